/**
 * Imagery from servers that misbehave: a flaky one (5xx, resets, truncated bodies and stalls on
 * one request in five) loses no page, a sparse pyramid (tiles answered 404) shows the coarser level
 * where a tile is missing without an error, and a dead host fails its pages once each while the
 * texture beside it streams on. The faults come from the test server (fault-injection-service.ts),
 * drawn per request from a seed, so a retry is a new draw as with a real server.
 */

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import {
  loadMercatorWorld,
  makeWebMapTiles,
  writeXyzDirectory,
} from '../../support/imagery/web-map-fixtures';
import { type ErrorLog, EXTENDED, expect, test } from '../fixtures';
import { IMAGERY_DIR, imageryFixtures } from './imagery-fixtures';

interface Report {
  views: Record<'close' | 'whole', { frames: number; pixels: number[] }>;
  errors: { vt: number; pageId: number; code: string; cause: string }[];
  failedPages: number;
  sources: { requests: number; retries: number; missing: number; missingTiles: number; pages: number }[];
}
declare const imageryFaults: { run(): Promise<Report> };

const MAX_ZOOM = 3;
const SPARSE_DIR = `${IMAGERY_DIR}/xyz-sparse`;
/** Tiles the sparse pyramid lacks: a checkerboard third of zoom 3 and one tile of zoom 2. */
const omitted = (z: number, x: number, y: number) =>
  (z === 3 && (x + y) % 3 === 0) || (z === 2 && x === 1 && y === 1);

async function sparseFixture(): Promise<void> {
  if (existsSync(join(SPARSE_DIR, '0/0/0.png'))) return;
  const tiles = await makeWebMapTiles(await loadMercatorWorld(256 * 2 ** MAX_ZOOM), {
    maxZoom: MAX_ZOOM,
    format: 'png',
    omit: omitted,
  });
  const scratch = `${SPARSE_DIR}.tmp-${process.pid}`;
  mkdirSync(scratch, { recursive: true });
  writeXyzDirectory(tiles, scratch, 'png');
  const { renameSync } = await import('node:fs');
  try {
    renameSync(scratch, SPARSE_DIR);
  } catch {
    // The other backend's worker wrote it first.
  }
}

async function run(
  page: Page,
  openPage: (path: string, params?: Record<string, string | number>) => Promise<void>,
  left: string,
  right: string,
  frames = 0,
): Promise<Report> {
  await openPage('/test/browser/sources/pages/imagery-faults.html', {
    left,
    right,
    maxZoom: MAX_ZOOM,
    frames,
  });
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  return page.evaluate(() => imageryFaults.run());
}

/** Pixels (of the left or right half of the frame) that differ between two captures. */
function differing(a: number[], b: number[], half: 'left' | 'right' | 'all' = 'all'): number {
  const width = 480;
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    const x = (i / 4) % width;
    if ((half === 'left' && x >= width / 2) || (half === 'right' && x < width / 2)) continue;
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
  }
  return n;
}

/** What Chromium logs for each failed request: the faults injected (and the sparse pyramid's 404s), nothing else. */
const INJECTED =
  /^console\.error: Failed to load resource: (the server responded with a status of (404|500|503)|net::ERR_)/;

async function expectOnlyInjectedErrors(errorLog: ErrorLog): Promise<void> {
  // Chromium reports failed requests a while after they fail: drain until a quiet half second.
  for (let quiet = 0; quiet < 2; ) {
    const batch = await errorLog.take();
    expect(batch.filter((e) => !INJECTED.test(e))).toEqual([]);
    quiet = batch.length === 0 ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function maxDifference(a: number[], b: number[]): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) if ((i & 3) !== 3) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

const tiles = (dir: string) => `/${dir}/{z}/{x}/{y}.png`;
const faulty = (kinds: string, rate: number, seed: string, dir: string) =>
  `/__faults/${kinds}/${rate}/${seed}/${dir}/{z}/{x}/{y}.png`;

/**
 * The faults are in the network, not in the backend: `npm test` runs this on WebGPU, and
 * `npm run test:extended` on WebGL2 as well.
 */
for (const only of ['webgpu', 'webgl'] as const) {
  test(
    `a flaky server (one request in five fails: 5xx, reset, truncated, stalled) loses no page; a sparse pyramid falls back without errors; a dead host fails each page once, the other texture streams on (${only})`,
    only === 'webgl' ? { tag: EXTENDED } : {},
    async ({ page, backend, openPage, errorLog }) => {
      test.skip(backend !== only, `the ${only} run`);
      test.setTimeout(240_000);
      const fixture = `${IMAGERY_DIR}/xyz`;
      await imageryFixtures();
      await sparseFixture();
      // What a sound server gives, for both parts.
      const clean = await run(page, openPage, tiles(fixture), tiles(fixture));

      await test.step('a flaky server', async () => {
        const kinds = '503,500,reset,truncated,stall';
        const flaky = await run(
          page,
          openPage,
          faulty(kinds, 0.2, `${backend}-left`, fixture),
          faulty(kinds, 0.2, `${backend}-right`, fixture),
        );
        await expectOnlyInjectedErrors(errorLog);
        console.log(`flaky (${backend}): ${JSON.stringify(flaky.sources)}, errors ${flaky.errors.length}`);
        expect(flaky.errors).toEqual([]);
        expect(flaky.failedPages).toBe(0);
        expect(flaky.sources[0].retries + flaky.sources[1].retries).toBeGreaterThan(0);
        for (const view of ['close', 'whole'] as const) {
          expect(flaky.views[view].frames, view).toBeGreaterThan(0);
          // The same pages in other pool slots: at most a rounding step apart.
          expect(maxDifference(flaky.views[view].pixels, clean.views[view].pixels), view).toBeLessThanOrEqual(
            1,
          );
        }
      });

      await test.step('a sparse pyramid beside a dead host', async () => {
        const report = await run(page, openPage, tiles(SPARSE_DIR), faulty('dead', 1, backend, fixture), 120);
        const sparseVt = 0;
        await expectOnlyInjectedErrors(errorLog);
        console.log(
          `sparse + dead (${backend}): ${JSON.stringify(report.sources)}, errors ${report.errors.length}`,
        );
        // The sparse texture: its missing tiles stood in for by their parents, never an error.
        expect(report.sources[0].missingTiles).toBeGreaterThan(0);
        expect(report.errors.filter((e) => e.vt === sparseVt)).toEqual([]);
        // The dead host: every page it was asked for failed, each reported once (within the 300-frame
        // cool-down after which a page still in view is tried again), as HTTP errors.
        const dead = report.errors.filter((e) => e.vt !== sparseVt);
        expect(dead.length).toBeGreaterThan(0);
        expect(new Set(dead.map((e) => e.pageId)).size).toBe(dead.length);
        for (const e of dead) {
          expect(e.code).toBe('tile-failed-permanently');
          // The host answers 503; on a loaded machine an answer may also come too late (a timeout).
          expect(['http-status', 'timeout']).toContain(e.cause);
        }
        // The sparse half is the full pyramid's picture where tiles exist and a magnified parent where
        // not: mostly equal, nowhere a hole.
        for (const view of ['close', 'whole'] as const) {
          const pixels = report.views[view].pixels;
          const total = (480 / 2) * 240;
          const changed = differing(pixels, clean.views[view].pixels, 'left');
          expect(changed, view).toBeLessThan(total * 0.5);
          // A hole: black where the full pyramid draws the plane.
          const full = clean.views[view].pixels;
          let holes = 0;
          for (let i = 0; i < pixels.length; i += 4) {
            const x = (i / 4) % 480;
            const drawn = full[i] + full[i + 1] + full[i + 2] > 0;
            if (x < 200 && drawn && pixels[i] + pixels[i + 1] + pixels[i + 2] === 0) holes++;
          }
          expect(holes, view).toBe(0);
        }
      });
    },
  );
}
