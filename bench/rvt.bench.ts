import { withBenchBrowser } from './bench-browser';
import type { RenderRateResult } from './rvt/render-rate';

/** Port of the benchmark's own Vite server (kept apart from the test server's and three.bench's). */
const BENCH_PORT = Number(process.env.TESSERA_BENCH_PORT ?? 5188);

/**
 * Runtime virtual textures (issue #14) in headless Chromium, each backend in one run:
 * `rvt.render_only.tiles_per_s` (the demo terrain's pages, albedo + normal, rendered from the TSL
 * material and copied into their pool slots, GPU work finished), the CPU procedural source's tiles
 * per second on one core (`rvt.cpu_procedural.tiles_per_s`) and the ratio of the two. Keys of the
 * WebGL2 backend end in `_webgl`. `rvt.render_compress.tiles_per_s` (render + GPU block compression
 * into a BC7 pool) belongs here too, measured by the same page once the compressor exists: it is
 * the same loop with the compressing `writeRenderedTile`.
 */
export default {
  name: 'rvt',
  async run(): Promise<Record<string, number>> {
    return withBenchBrowser(BENCH_PORT, async (browser) => {
      const out: Record<string, number> = {};
      for (const backend of ['webgpu', 'webgl'] as const) {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        page.on('console', (message) => {
          if (message.type() === 'error') errors.push(message.text());
        });
        await page.goto(`http://localhost:${BENCH_PORT}/bench/rvt/render-rate.html?backend=${backend}`);
        await page.waitForFunction(() => document.title === 'done' || document.title === 'error', null, {
          timeout: 300_000,
        });
        const { result, error } = (await page.evaluate(() => ({
          result: (globalThis as { benchResult?: unknown }).benchResult,
          error: (globalThis as { benchError?: unknown }).benchError,
        }))) as { result?: RenderRateResult; error?: string };
        await page.close();
        if (error !== undefined || errors.length > 0 || result === undefined) {
          throw new Error(
            `render-rate page (${backend}) failed: ${[error, ...errors].filter(Boolean).join('; ')}`,
          );
        }
        const suffix = backend === 'webgl' ? '_webgl' : '';
        out[`rvt.render_only.tiles_per_s${suffix}`] = result.renderOnlyTilesPerSecond;
        out[`rvt.cpu_procedural.tiles_per_s${suffix}`] = result.cpuProceduralTilesPerSecond;
        out[`rvt.render_only.vs_cpu_procedural${suffix}`] =
          result.renderOnlyTilesPerSecond / result.cpuProceduralTilesPerSecond;
        if (result.renderCompressTilesPerSecond !== null) {
          out['rvt.render_compress.tiles_per_s'] = result.renderCompressTilesPerSecond;
          out['rvt.render_compress.vs_render_only'] =
            result.renderCompressTilesPerSecond / result.renderOnlyTilesPerSecond;
          out['rvt.render_compress.vs_cpu_procedural'] =
            result.renderCompressTilesPerSecond / result.cpuProceduralTilesPerSecond;
        }
      }
      return out;
    });
  },
};
