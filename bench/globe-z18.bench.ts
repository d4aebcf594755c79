/**
 * `imagery.globe_z18.*`: one globe from orbit to street level (issue #44 item 5). The browser test's
 * page (test/browser/sources/pages/imagery-globe.ts: `ImageryGlobe` over the deterministic tile
 * server, zooms 0-18, in a `VirtualTextureSystem` of 96 MiB with pages of 264 (one tile each),
 * 640x360) flies its stops on each backend: the whole Earth, zoom 18 over Paris, 260 km up beside the region's centre where its edge
 * crosses the view, and a jump to Sydney at zoom 18. Per stop:
 *
 * - `frames`: frames from arriving until the system is settled and no region is moving (3 frames
 *   in a row), the frames to sharp;
 * - `gpu_peak_bytes`: the most GPU bytes the system held during the stop (its own exact count; the
 *   budget is `budget_bytes`), and `tracker_peak_bytes` (WebGPU: the independent tracker's
 *   `tessera:` labels, over the whole flight so far);
 * - `psnr`: the settled frame against plain three.js drawing the server's tiles at the stop's zooms.
 *
 * And for the flight: `over_budget_frames` (frames whose reserved or allocated bytes passed the
 * budget), `region_moves`, `requests`.
 */

import { createServer as createNetServer } from 'node:net';
import { withBenchBrowser } from './bench-browser';

const STOPS = [
  ['orbit', 'jump'],
  ['paris', 'fly'],
  ['edge', 'fly'],
  ['sydney', 'jump'],
] as const;

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

interface GlobePage {
  fly(stop: string): Promise<void>;
  jump(stop: string): void;
  settle(): Promise<number>;
  compare(stop: string): Promise<{ all: { psnr: number } }>;
  budget(): { overBudgetFrames: number; stopMaxGpu: number; budgetBytes: number };
  resetStopPeak(): void;
  errors(): string[];
  counters(): { regionMoves: number; requests: number };
}
declare const globeTest: GlobePage;
declare const __tesseraGpuTracker: { snapshot(): { byPrefix: Record<string, { peak: number }> } };

export default {
  name: 'globe-z18',
  async run(): Promise<Record<string, number>> {
    const port = await freePort();
    return withBenchBrowser(port, async (browser) => {
      const out: Record<string, number> = {};
      for (const backend of ['webgpu', 'webgl'] as const) {
        const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
        await page.addInitScript({
          path: new URL('../test/support/gpu-tracker.js', import.meta.url).pathname,
        });
        const pageErrors: string[] = [];
        page.on('pageerror', (error) => pageErrors.push(error.message));
        try {
          await page.goto(
            `http://localhost:${port}/test/browser/sources/pages/imagery-globe.html?backend=${backend}`,
          );
          await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 120_000 });
          const prefix = `imagery.globe_z18.${backend}`;
          for (const [stop, how] of STOPS) {
            await page.evaluate(() => globeTest.resetStopPeak());
            if (how === 'fly') await page.evaluate((s) => globeTest.fly(s), stop);
            else await page.evaluate((s) => globeTest.jump(s), stop);
            const frames = await page.evaluate(() => globeTest.settle());
            const { all } = await page.evaluate((s) => globeTest.compare(s), stop);
            const budget = await page.evaluate(() => globeTest.budget());
            out[`${prefix}.${stop}.frames`] = frames;
            out[`${prefix}.${stop}.gpu_peak_bytes`] = budget.stopMaxGpu;
            out[`${prefix}.${stop}.psnr`] = Math.round(all.psnr * 10) / 10;
            if (backend === 'webgpu') {
              out[`${prefix}.${stop}.tracker_peak_bytes`] = await page.evaluate(
                () => __tesseraGpuTracker.snapshot().byPrefix['tessera:']?.peak ?? 0,
              );
            }
            console.error(
              `${backend} ${stop}: ${frames} frames, ${all.psnr.toFixed(1)} dB, peak ${budget.stopMaxGpu} B`,
            );
          }
          const budget = await page.evaluate(() => globeTest.budget());
          const counters = await page.evaluate(() => globeTest.counters());
          out[`${prefix}.budget_bytes`] = budget.budgetBytes;
          out[`${prefix}.over_budget_frames`] = budget.overBudgetFrames;
          out[`${prefix}.region_moves`] = counters.regionMoves;
          out[`${prefix}.requests`] = counters.requests;
          const errors = [...pageErrors, ...(await page.evaluate(() => globeTest.errors()))];
          if (errors.length > 0) throw new Error(`${backend}: ${errors.join('; ')}`);
        } finally {
          await page.close();
        }
      }
      return out;
    });
  },
};
