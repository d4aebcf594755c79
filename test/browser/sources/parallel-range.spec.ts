/**
 * Range reads of one file run in parallel, counted at the server: every single-file source (tile
 * archive, PMTiles, COG, KTX2) reads its file through the test server's slow static host
 * (latency-file-service.ts: 80 ms per answer, `ETag` and `Last-Modified` as a static host sends,
 * no `Cache-Control: no-store`), and the server's most requests in flight for that file must
 * reach the client's per-host cap. Through the browser's HTTP cache Chromium sends concurrent
 * Range requests to one URL one at a time; the client's Range reads bypass it.
 */

import type { Page } from '@playwright/test';
import { EXTENDED, expect, test } from '../fixtures';
import type { LatencyFileStats } from '../latency-file-service';
import type { RangeRun, RangeSourceKind } from './pages/parallel-range';

const PAGE = 'test/browser/sources/pages/parallel-range.html';
/** The client's default cap on requests in flight per host. */
const PER_HOST = 6;
/** Tiles read at once from each tiled file (a KTX2 file: each of its levels). */
const TILES = 24;
/** One file per kind of single-file source, from the repository's assets. */
const FILES: Record<RangeSourceKind, string> = {
  archive: 'assets/world-seed7-64p.tsva',
  pmtiles: 'assets/examples/map/earth.pmtiles',
  cog: 'assets/examples/earth-8192x4096.tif',
  ktx2: 'assets/props/valley-rock.ktx2',
};
const KINDS = Object.keys(FILES) as RangeSourceKind[];

/** Reads `kind`'s file in a fresh server session; returns the client's view and the server's. */
async function measure(
  page: Page,
  kind: RangeSourceKind,
  browserCache: boolean,
): Promise<{ run: RangeRun; server: LatencyFileStats }> {
  const session = `${kind}-${browserCache ? 'browser-cache' : 'client'}-${Date.now()}`;
  const url = `/__latency/${session}/${FILES[kind]}`;
  const run = await page.evaluate(
    ([k, u, n, b]) =>
      (
        globalThis as never as {
          parallelRange: { run(...a: [RangeSourceKind, string, number, boolean]): Promise<RangeRun> };
        }
      ).parallelRange.run(k, u, n, b),
    [kind, url, TILES, browserCache] as [RangeSourceKind, string, number, boolean],
  );
  const stats = (await (await page.request.get(`/__latency/stats/${session}`)).json()) as Record<
    string,
    LatencyFileStats
  >;
  return { run, server: stats[FILES[kind]] };
}

function describeRun(kind: string, { run, server }: { run: RangeRun; server: LatencyFileStats }): string {
  return (
    `${kind}: ${run.reads} reads in ${run.elapsedMs.toFixed(0)} ms, server peak in flight ` +
    `${server.peakInFlight}, ${server.requests} requests`
  );
}

test.describe('Range reads of one file in parallel, measured at the server', () => {
  // The network path does not depend on the renderer: one run, under the webgpu project.
  test.skip(({ backend }) => backend !== 'webgpu', 'no GPU involved: runs under the webgpu project only');

  test.beforeEach(async ({ page, openPage }) => {
    await openPage(PAGE);
    await expect(page).toHaveTitle('ready');
  });

  test('archive, PMTiles, COG and KTX2 reach the per-host cap at the server', async ({ page }, testInfo) => {
    for (const kind of KINDS) {
      const seen = await measure(page, kind, false);
      testInfo.annotations.push({ type: 'parallel-range', description: describeRun(kind, seen) });
      expect(seen.server.rangeRequests, kind).toBe(seen.server.requests);
      expect(seen.server.peakInFlight, kind).toBe(PER_HOST);
      if (kind === 'archive') {
        // The same tiles again (pages evicted and wanted back) come from the client's Range cache.
        expect(seen.run.reread?.requests).toBe(0);
        expect(seen.run.reread?.cacheHits).toBeGreaterThanOrEqual(TILES);
      }
    }
  });

  test(`through the browser's cache (before the fix), logged not asserted ${EXTENDED}`, async ({
    page,
  }, testInfo) => {
    for (const kind of KINDS) {
      for (const browserCache of [true, false]) {
        const seen = await measure(page, kind, browserCache);
        const line = `${browserCache ? "browser's cache" : 'no-store'} ${describeRun(kind, seen)}`;
        console.log(line);
        testInfo.annotations.push({ type: 'parallel-range', description: line });
      }
    }
  });
});
