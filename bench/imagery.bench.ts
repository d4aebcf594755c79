/**
 * A web map zoomed from the whole world down to a city, drawn two ways in the same run in headless
 * Chromium (WebGPU on SwiftShader, then WebGL2): the plain three.js way web map engines draw raster
 * tiles (bench/imagery/baseline-map.ts: one mesh and one mipmapped `Texture` per visible tile,
 * chosen by a screen-space-error quadtree, parents drawn until children load, an LRU of tile
 * textures bounded by count: twice the tiles a view holds), and Tessera's (`VirtualTextureSystem`,
 * 264-texel pages with a 4-texel border, so each page is one 256-texel tile, trilinear, a 64 MiB
 * budget, over `ImageryTileSource(new XyzPyramid(...))` on one plane). Both fetch from the same local XYZ server
 * (bench/imagery/tile-server.ts: the Earth map reprojected to Mercator for z0-z3, deeper zooms
 * magnified from it with seeded detail per zoom; JPEG q80, never cached by the browser), with at
 * most 6 requests in flight.
 *
 * The path (bench/imagery/zoom-path.ts, a 960 x 540 canvas, then 1920 x 1080, orthographic
 * top-down camera; each with no added latency and with 80 ms before every tile answer): zoom 0
 * (the whole world 256 pixels wide) to zoom 11 about Paris, one zoom a step, each step held for the
 * same number of frames, one per requestAnimationFrame. (One virtual texture holds 4096 pages a
 * side: z12 with 256-texel payloads, z11 with the 248 of 256-texel pages.)
 * Figures per renderer (`imagery.baseline.*`, `imagery.tessera.*`; WebGL2's end in `_webgl`):
 * - `gpu_peak_mib`, `gpu_mean_mib`: GPU bytes the independent tracker counts (Tessera: its
 *   `tessera:` labels on WebGPU; the baseline, and both on WebGL2, which has no labels: every live
 *   byte above what the renderer held before the map existed), peak and mean over frames;
 * - `fetched_mib`, `fetched_bytes_per_frame` (mean), `requests`: what the server sent each renderer;
 * - `sharp_frames_*`, `sharp_ms_*` (median and max over steps): from the camera move to the last
 *   frame that changed what is drawn (the baseline: a tile mesh drawn or replaced; Tessera: a page
 *   mapped); `incomplete_steps`: steps still incomplete at the hold's end (the baseline missing a
 *   wanted tile, Tessera not settled), whose figures are then the hold's length;
 * - `settle_frames_*`: from the camera move to the frame the renderer knew the view complete
 *   (Tessera: `whenSettled()`, which waits for quiet feedback at 4 jitter offsets);
 * - `requests_<cause>`: the server's log of each run, each request classed by the step it came in
 *   (bench/imagery/request-accounting.ts): `view` (a tile the view shows at its zoom), `ring` (its
 *   zoom, outside the view), `coarser`, `finer`, `startup` (before the first step); `refetch`
 *   counts, across them, tiles fetched again; `imagery.view_tiles`: the tiles the path's views
 *   show, each once (the floor);
 * - `feedback_frames_median`, `first_page_frames_median` (Tessera): frames from the camera move
 *   until its feedback of the new view was analysed, and until its first page was mapped;
 * - `*_vs_baseline`: Tessera's figure over the baseline's;
 * - `burst_requests_per_s`: tile GETs a second with 6 in flight against the server (the baseline's
 *   own queue over `fetch`, Tessera's `HttpClient`), and `burst_tiles_per_s` with the decode
 *   (`createImageBitmap`; `XyzPyramid.loadTile` in Tessera's decode workers).
 */

import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { withBenchBrowser } from './bench-browser';
import type { BurstResult } from './imagery/burst';
import { accountRequests, viewTileCount } from './imagery/request-accounting';
import { startTileServer, type TileServer } from './imagery/tile-server';
import { MAX_ZOOM, tilesInRect, viewAt, visibleRect, XYZ_TILE_SIZE } from './imagery/zoom-path';
import type { ZoomRunResult } from './imagery/zoom-run';

/** Frames each step is held (`IMAGERY_HOLD` to change). */
const HOLD_FRAMES = Number(process.env.IMAGERY_HOLD ?? 50);
/** Backends run, in order (`IMAGERY_BACKENDS=webgpu` for WebGPU alone). */
const BACKENDS = (process.env.IMAGERY_BACKENDS ?? 'webgpu,webgl').split(',') as ('webgpu' | 'webgl')[];
/** Renderers run (`IMAGERY_PATHS=baseline` for one); `IMAGERY_BURST=0` skips the burst. */
const PATHS = (process.env.IMAGERY_PATHS ?? 'baseline,tessera').split(',') as ('baseline' | 'tessera')[];
/**
 * The views and latencies flown (`IMAGERY_VARIANTS`, comma-separated `<width>x<height>@<ms>`):
 * 960 x 540 and 1920 x 1080, each with no added latency and with 80 ms before every tile answer.
 * The first variant's keys carry no suffix; the others' add `_1080p` and `_80ms`.
 */
const VARIANTS = (process.env.IMAGERY_VARIANTS ?? '960x540@0,960x540@80,1920x1080@0,1920x1080@80')
  .split(',')
  .map((text) => {
    const match = /^(\d+)x(\d+)@(\d+)$/.exec(text.trim());
    if (match === null) throw new Error(`IMAGERY_VARIANTS: '${text}' is not <width>x<height>@<ms>`);
    const [width, height, latencyMs] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const suffix = `${height === 540 ? '' : `_${height}p`}${latencyMs === 0 ? '' : `_${latencyMs}ms`}`;
    return { width, height, latencyMs, suffix };
  });
/**
 * Tessera runs at two budgets: 64 MiB (`tessera`, 960 x 540 with no latency only unless
 * `IMAGERY_ALL_BUDGETS`), and about the baseline's peak (`tessera_small`: 24 MiB at 960 x 540,
 * 56 MiB at 1920 x 1080; `IMAGERY_SMALL_BUDGET_MIB` for the first; `IMAGERY_SMALL_ONLY` runs it
 * alone), so memory and traffic compare at equal bytes too.
 */
const SMALL_BUDGET_MIB = Number(process.env.IMAGERY_SMALL_BUDGET_MIB ?? 24);
function runsOf(
  suffix: string,
  height: number,
): { name: string; path: 'baseline' | 'tessera'; budgetMiB: number }[] {
  return PATHS.flatMap((path): { name: string; path: 'baseline' | 'tessera'; budgetMiB: number }[] => {
    if (path === 'baseline') return [{ name: path, path, budgetMiB: 0 }];
    const small = { name: 'tessera_small', path, budgetMiB: height <= 540 ? SMALL_BUDGET_MIB : 56 };
    return (suffix === '' || process.env.IMAGERY_ALL_BUDGETS) && !process.env.IMAGERY_SMALL_ONLY
      ? [{ name: 'tessera', path, budgetMiB: 64 }, small]
      : [small];
  });
}
const MIB = 2 ** 20;

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/**
 * Every tile either renderer can ask for on the path, so that the server encodes none of them
 * while a renderer waits: at zoom z, the view of step z - 1 (trilinear filtering and the
 * baseline's split rule reach one zoom finer than a view wants) grown by a tile on each side for
 * the pages' borders.
 */
function* pathTiles(width: number, height: number): Generator<[number, number, number]> {
  for (let z = 0; z <= MAX_ZOOM; z++) {
    const tiles: [number, number, number][] = [];
    const view = viewAt(Math.max(0, z - 1), width, height);
    tilesInRect(z, visibleRect(view, XYZ_TILE_SIZE), (x, y) => tiles.push([z, x, y]));
    yield* tiles;
  }
}

/** Loads `path` with the tracker injected, waits for its result and returns it. */
async function runPage<T>(
  browser: Browser,
  port: number,
  path: string,
  query: URLSearchParams,
  viewport = { width: 1000, height: 600 },
): Promise<T> {
  const page = await browser.newPage({ viewport });
  try {
    await page.addInitScript({
      path: fileURLToPath(new URL('../test/support/gpu-tracker.js', import.meta.url)),
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') console.error(`[${path}] ${message.text()}`);
    });
    await page.goto(`http://localhost:${port}/${path}?${query}`);
    await page.waitForFunction(() => document.title === 'done' || document.title === 'error', null, {
      timeout: 900_000,
      polling: 500,
    });
    if (process.env.IMAGERY_SHOTS) {
      await page.screenshot({ path: `.tmp/imagery-${path.split('/').pop()}-${query.get('backend')}.png` });
    }
    const { result, error } = (await page.evaluate(() => ({
      result: (globalThis as { benchResult?: unknown }).benchResult,
      error: (globalThis as { benchError?: unknown }).benchError,
    }))) as { result?: T; error?: string };
    if (error !== undefined || errors.length > 0 || result === undefined) {
      throw new Error(`${path} failed: ${[error, ...errors].filter(Boolean).join('; ')}`);
    }
    return result;
  } finally {
    await page.close();
  }
}

/** The upper median, as bench/median.ts takes it. */
function upperMedian(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** The figures of one renderer's run on one backend. */
function zoomFigures(
  key: (metric: string) => string,
  result: ZoomRunResult,
  served: { requests: number; bytes: number },
): Record<string, number> {
  const frames = result.steps.map((s) => (s.complete ? s.sharpFrames : result.holdFrames));
  const ms = result.steps.map((s) => s.sharpMs);
  const settled = result.steps.map((s) => (s.complete ? s.completeFrames : result.holdFrames));
  const out: Record<string, number> = {
    [key('gpu_peak_mib')]: result.gpuPeakBytes / MIB,
    [key('gpu_mean_mib')]: result.gpuMeanBytes / MIB,
    [key('fetched_mib')]: served.bytes / MIB,
    [key('fetched_bytes_per_frame')]: served.bytes / result.frames,
    [key('requests')]: served.requests,
    [key('sharp_frames_median')]: upperMedian(frames),
    [key('sharp_frames_max')]: Math.max(...frames),
    [key('sharp_ms_median')]: upperMedian(ms),
    [key('sharp_ms_max')]: Math.max(...ms),
    [key('settle_frames_median')]: upperMedian(settled),
    [key('settle_frames_max')]: Math.max(...settled),
    [key('incomplete_steps')]: result.steps.filter((s) => !s.complete).length,
    [key('frame_ms_median')]: result.frameMsMedian,
  };
  // Tessera's: frames from the camera move until its feedback of the new view was analysed, and
  // until its first page was mapped (medians over steps).
  for (const [counter, metric] of [
    ['feedbackFramesMedian', 'feedback_frames_median'],
    ['firstPageFramesMedian', 'first_page_frames_median'],
  ] as const) {
    if (result.counters[counter] !== undefined) out[key(metric)] = result.counters[counter];
  }
  if (result.gpuErrors.length > 0) throw new Error(`GPU errors: ${result.gpuErrors.join('; ')}`);
  return out;
}

async function measure(browser: Browser, port: number, server: TileServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {
    'imagery.max_zoom': MAX_ZOOM,
    'imagery.steps': MAX_ZOOM + 1,
    'imagery.hold_frames': HOLD_FRAMES,
  };
  for (const [v, variant] of VARIANTS.entries()) {
    server.latencyMs = variant.latencyMs;
    out[`imagery.view_tiles${variant.suffix}`] = viewTileCount(MAX_ZOOM, variant.width, variant.height);
    for (const backend of BACKENDS) {
      const suffix = `${variant.suffix}${backend === 'webgl' ? '_webgl' : ''}`;
      for (const { name, path, budgetMiB } of runsOf(variant.suffix, variant.height)) {
        // The server counts by client name: one per run, variant and backend.
        const client = `${name}_${v}${backend === 'webgl' ? 'gl' : 'gpu'}`;
        const query = new URLSearchParams({
          backend,
          budgetMiB: String(budgetMiB),
          hold: String(HOLD_FRAMES),
          width: String(variant.width),
          height: String(variant.height),
          // A shorter path for a look at one step's screenshot (IMAGERY_SHOTS=1).
          last: process.env.IMAGERY_LAST ?? String(MAX_ZOOM),
          tiles: `${server.origin}/${client}/{z}/{x}/{y}.jpg`,
          mark: `${server.origin}/${client}/step/`,
        });
        const viewport = { width: variant.width + 40, height: variant.height + 60 };
        const result = await runPage<ZoomRunResult>(
          browser,
          port,
          `bench/imagery/${path}-zoom.html`,
          query,
          viewport,
        );
        const key = (metric: string) => `imagery.${name}.${metric}${suffix}`;
        Object.assign(out, zoomFigures(key, result, server.counts(client)));
        const account = accountRequests(server.requests(client), variant.width, variant.height);
        for (const [cause, count] of Object.entries(account)) out[key(`requests_${cause}`)] = count;
        console.log(`${name}${suffix}: ${JSON.stringify(result.steps)} ${JSON.stringify(result.counters)}`);
      }
      for (const name of ['tessera', 'tessera_small']) {
        for (const metric of [
          'gpu_peak_mib',
          'fetched_mib',
          'requests',
          'sharp_frames_median',
          'frame_ms_median',
        ]) {
          const tessera = `imagery.${name}.${metric}${suffix}`;
          const baseline = `imagery.baseline.${metric}${suffix}`;
          if (out[tessera] !== undefined && out[baseline] > 0) {
            out[`imagery.${name}.${metric.replace(/_mib$/, '')}_vs_baseline${suffix}`] =
              out[tessera] / out[baseline];
          }
        }
      }
    }
  }
  server.latencyMs = 0;
  out['imagery.server.generated_on_demand'] = server.generatedOnDemand;
  if (process.env.IMAGERY_BURST === '0') return out;
  const burst = await runPage<BurstResult>(
    browser,
    port,
    'bench/imagery/burst.html',
    new URLSearchParams({
      tiles: `${server.origin}/burst/{z}/{x}/{y}.jpg`,
      list: JSON.stringify(burstTiles()),
    }),
  );
  for (const path of PATHS) {
    out[`imagery.${path}.burst_requests_per_s`] = burst[path].requestsPerSecond;
    out[`imagery.${path}.burst_tiles_per_s`] = burst[path].tilesPerSecond;
  }
  return out;
}

/** Tiles the burst asks for: deep ones the server already holds (the city's z11 neighbourhood). */
function burstTiles(): [number, number, number][] {
  const tiles: [number, number, number][] = [];
  tilesInRect(MAX_ZOOM, visibleRect(viewAt(MAX_ZOOM - 1), XYZ_TILE_SIZE), (x, y) =>
    tiles.push([MAX_ZOOM, x, y]),
  );
  return tiles;
}

export default {
  name: 'imagery',
  async run(): Promise<Record<string, number>> {
    const server = await startTileServer();
    try {
      const started = performance.now();
      await server.prepare(
        pathTiles(Math.max(...VARIANTS.map((v) => v.width)), Math.max(...VARIANTS.map((v) => v.height))),
      );
      console.log(`imagery: tiles encoded in ${Math.round(performance.now() - started)} ms`);
      const port = await freePort();
      return await withBenchBrowser(port, (browser) => measure(browser, port, server));
    } finally {
      await server.close();
    }
  },
};
