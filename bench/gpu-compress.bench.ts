import { withBenchBrowser } from './bench-browser';

/** What bench/gpu-compress/compress-rate.ts leaves in `globalThis.benchResult`, ms per tile. */
interface CompressRateResult {
  bc7MsPerTile: number;
  bc7Mode6MsPerTile: number;
  bc5MsPerTile: number;
  bc1MsPerTile: number;
  copyMsPerTile: number;
}

/** Port of this benchmark's own Vite server (apart from the test server's and the other benches'). */
const BENCH_PORT = Number(process.env.TESSERA_BENCH_PORT ?? 5187) + 3;

/**
 * GPU block compression of rendered tiles (headless Chromium, WebGPU on SwiftShader here): 128²
 * terrain-detail tiles per second through the GpuTileCompressor into BC7 (the rendered source's
 * colour format), BC1 and BC5, and the ratio to the plain rgba8 path (a texture-to-texture tile
 * copy into an rgba8 pool slot) in the same run. On a CPU-only machine the absolute figures are
 * SwiftShader's; the ratio says what compression costs over not compressing.
 */
export default {
  name: 'gpu-compress',
  async run(): Promise<Record<string, number>> {
    return withBenchBrowser(BENCH_PORT, async (browser) => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      await page.goto(`http://localhost:${BENCH_PORT}/bench/gpu-compress/compress-rate.html`);
      await page.waitForFunction(() => document.title === 'done' || document.title === 'error', null, {
        timeout: 300_000,
      });
      if (errors.length > 0) throw new Error(`benchmark page failed: ${errors.join('; ')}`);
      const result = (await page.evaluate(
        () => (globalThis as { benchResult?: unknown }).benchResult,
      )) as CompressRateResult;
      const copyRate = 1000 / result.copyMsPerTile;
      const bc7Rate = 1000 / result.bc7MsPerTile;
      return {
        'rvt.compress.tiles_per_s': bc7Rate,
        'rvt.compress.ms_per_tile': result.bc7MsPerTile,
        'rvt.compress.vs_rgba8_copy': bc7Rate / copyRate,
        'rvt.compress.bc7_mode6.tiles_per_s': 1000 / result.bc7Mode6MsPerTile,
        'rvt.compress.bc1.tiles_per_s': 1000 / result.bc1MsPerTile,
        'rvt.compress.bc5.tiles_per_s': 1000 / result.bc5MsPerTile,
        'rvt.copy_rgba8.tiles_per_s': copyRate,
      };
    });
  },
};
