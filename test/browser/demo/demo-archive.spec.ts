/**
 * `?source=archive`: the terrain streams the baked archive (assets/world-seed7-64p.tsva, WebP)
 * over HTTP Range requests, decoded in a WorkerDecoderPool, from the test server (root = the
 * repository, so the file is at /assets/). WebGPU only: the source path does not depend on the backend.
 * Part of the full suite (TESSERA_FULL_BUDGET=1, ~30 s) to keep `npm test` short.
 */

import { expect, test } from '../fixtures';
import {
  DEMO_PAGE,
  demoReady,
  demoStats,
  isolateFromDevServerReloads,
  screenshotCanvas,
  settle,
  teleport,
} from './demo-page';

test('demo: ?source=archive streams the baked world through decode workers', async ({
  page,
  backend,
  openPage,
}) => {
  test.skip(!process.env.TESSERA_FULL_BUDGET, 'part of the full suite (TESSERA_FULL_BUDGET=1)');
  test.skip(backend !== 'webgpu', 'the tile source does not depend on the backend');
  await isolateFromDevServerReloads(page);
  const ranges: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('.tsva')) ranges.push(request.headers().range ?? 'none');
  });
  await openPage(DEMO_PAGE, { auto: 0, size: '256x144', hud: 0, budget: 48, source: 'archive' });
  await demoReady(page);
  await teleport(page, { x: -600, z: 300, height: 120, yaw: 0.4, pitch: -0.35 });
  const settled = await settle(page, 90);
  const stats = await demoStats(page);
  expect(stats.implementation.terrainSource).toBe('archive');
  expect(stats.errors).toEqual([]);
  expect(stats.vt.resident).toBeGreaterThan(1);
  // Tiles came as ranged reads of the archive, not one download of the whole file.
  expect(ranges.length).toBeGreaterThan(1);
  expect(ranges.every((r) => r.startsWith('bytes='))).toBe(true);
  const variety = await screenshotCanvas(page, 'test-results/demo/archive-webgpu.png');
  expect(variety.distinctColours).toBeGreaterThan(50);
  expect(variety.stddev).toBeGreaterThan(4);
  console.log(
    `archive: ${JSON.stringify(settled)}, ${ranges.length} range requests, ${stats.vt.resident} pages`,
  );
});
