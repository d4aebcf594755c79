/**
 * `?source=uastc`: the terrain streams the committed UASTC archive (assets/world-seed7-16p-uastc.tsva,
 * zstd inflated in the decode workers) through the transcode workers into a block-compressed pool:
 * BC7 for the albedo, BC5 for the normal layer on this device, on both backends.
 */

import { EXTENDED, expect, test } from '../fixtures';
import {
  DEMO_PAGE,
  demoReady,
  demoStats,
  isolateFromDevServerReloads,
  screenshotCanvas,
  settle,
  teleport,
} from './demo-page';

/** A view over the world's middle, looking down the slope (inside the 16-page world). */
const POSE = { x: -100, z: 80, height: 60, yaw: 0.4, pitch: -0.35 };

test('demo: ?source=uastc streams the UASTC world into BC7 + BC5 pools', { tag: EXTENDED }, async ({
  page,
  backend,
  openPage,
}) => {
  test.setTimeout(180_000);
  await isolateFromDevServerReloads(page);
  await openPage(DEMO_PAGE, { auto: 0, size: '256x144', hud: 0, budget: 48, source: 'uastc' });
  await demoReady(page);
  await teleport(page, POSE);
  const settled = await settle(page, 120);
  const stats = await demoStats(page);
  expect(stats.implementation.terrainSource).toBe('uastc');
  expect(stats.vt.poolFormats).toEqual(['bc7-rgba-unorm-srgb', 'bc5-rg-unorm']);
  expect(stats.errors).toEqual([]);
  expect(stats.vt.resident).toBeGreaterThan(21);
  expect(stats.usedBytes).toBeLessThanOrEqual(stats.budgetBytes);
  const variety = await screenshotCanvas(page, `test-results/demo/uastc-${backend}.png`);
  expect(variety.distinctColours).toBeGreaterThan(50);
  expect(variety.stddev).toBeGreaterThan(4);
  console.log(
    `[${backend}] uastc: ${JSON.stringify(settled)}, ${stats.vt.resident} pages of ${stats.vt.poolSlots} slots, mip bias ${stats.vt.mipBias}`,
  );
});

test('demo: ?compressed=0 decodes the UASTC world into rgba8 pools, 4x the bytes per page', {
  tag: EXTENDED,
}, async ({ page, backend, openPage }) => {
  test.skip(backend !== 'webgpu', 'the pool layers are chosen alike on both backends');
  test.setTimeout(180_000);
  await isolateFromDevServerReloads(page);
  const slots: Record<string, number> = {};
  for (const compressed of [1, 0]) {
    await openPage(DEMO_PAGE, { auto: 0, size: '256x144', hud: 0, budget: 48, source: 'uastc', compressed });
    await demoReady(page);
    await teleport(page, POSE);
    await settle(page, 120);
    const stats = await demoStats(page);
    expect(stats.errors).toEqual([]);
    expect(stats.vt.resident).toBeGreaterThan(21);
    expect(stats.usedBytes).toBeLessThanOrEqual(stats.budgetBytes);
    if (compressed === 0) expect(stats.vt.poolFormats).toEqual(['rgba8unorm-srgb', 'rgba8unorm']);
    slots[compressed] = stats.vt.poolSlots;
  }
  // The same share of the same budget: 16 KiB per BC7 or BC5 page and layer against 64 KiB.
  expect(slots[1] / slots[0]).toBeGreaterThan(3.5);
});

/**
 * Issue #13's demo figure, measured and reported (not asserted: the two archives differ): 48 MiB,
 * 1280 x 720, the same pose; the WebP archive (64 x 64 pages) into rgba8 pools against the UASTC
 * archive (16 x 16 pages, 4x coarser texels over the same world) into BC7 + BC5 pools.
 */
test('demo: mip bias at 48 MiB and 720p, WebP archive in rgba8 vs UASTC archive in BC7/BC5', async ({
  page,
  backend,
  openPage,
}) => {
  test.skip(!process.env.TESSERA_FULL_BUDGET, 'part of the full suite (TESSERA_FULL_BUDGET=1)');
  test.skip(backend !== 'webgpu', 'a measurement; the pool sizes do not depend on the backend');
  test.setTimeout(400_000);
  await isolateFromDevServerReloads(page);
  const figures: Record<string, unknown> = {};
  for (const source of ['archive', 'uastc'] as const) {
    await openPage(DEMO_PAGE, { auto: 0, size: '1280x720', hud: 0, budget: 48, source });
    await demoReady(page);
    await teleport(page, POSE);
    const settled = await settle(page, 150);
    const stats = await demoStats(page);
    expect(stats.errors).toEqual([]);
    figures[source] = {
      pool: stats.vt.poolFormats,
      slots: stats.vt.poolSlots,
      resident: stats.vt.resident,
      mipBias: stats.vt.mipBias,
      settled: settled,
    };
  }
  console.log(`48 MiB, 720p: ${JSON.stringify(figures)}`);
});
