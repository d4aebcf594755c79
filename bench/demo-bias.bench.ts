import type { Page } from 'playwright-core';
import type { CameraPose, DemoStats } from '../demo/automation';
import { withBenchBrowser } from './bench-browser';

/** Port of this benchmark's own Vite server (apart from the test server's and the other benches'). */
const BENCH_PORT = Number(process.env.TESSERA_BENCH_PORT ?? 5187) + 5;

/**
 * Budgets of the demo measured, MiB (the whole demo: terrain and streamed prop textures); the
 * rgba8 pool holds 42 and 72 pages there, fewer than the views need (50 to 114). Another list
 * with `DEMO_BIAS_BUDGETS=24,48`.
 */
const BUDGETS_MIB = (process.env.DEMO_BIAS_BUDGETS ?? '12,16').split(',').map(Number);

/**
 * Views of the 16 x 16-page UASTC world (inside it; metres, radians): a low grazing look along the
 * valley, the slope the demo test uses, and a high look down over the middle.
 */
const VIEWS: readonly CameraPose[] = [
  { x: -150, z: 150, height: 12, yaw: 0.9, pitch: -0.1 },
  { x: -100, z: 80, height: 60, yaw: 0.4, pitch: -0.35 },
  { x: 0, z: 0, height: 220, yaw: 2.2, pitch: -0.6 },
];

/** Frames rendered per view; the mip bias is averaged over the frames after {@link WARM_FRAMES}. */
const VIEW_FRAMES = 100;
const WARM_FRAMES = 40;
const SAMPLE_EVERY = 10;

async function stats(page: Page): Promise<DemoStats> {
  return page.evaluate(() => window.demo.stats());
}

/**
 * The demo itself, in headless Chromium on WebGPU at 1280 x 720, streaming the committed UASTC
 * archive (`?source=uastc`) once into its block-compressed pools (BC7 albedo + BC5 normals) and
 * once decoded into rgba8 pools (`?compressed=0`), the same archive, views and budget: the mip bias
 * the pool forces (mean over frames 40-100 of each view, the worst view reported), as
 * `demo.pool.mip_bias.<budget>mib.<bc7_bc5|rgba8>`, with the pool's slots beside it. Issue #13's
 * figure measured on the demo rather than in the simulator (`vt.pool.mip_bias.*`).
 */
export default {
  name: 'demo-bias',
  async run(): Promise<Record<string, number>> {
    return withBenchBrowser(BENCH_PORT, async (browser) => {
      const out: Record<string, number> = {};
      for (const budget of BUDGETS_MIB) {
        for (const [name, compressed] of [
          ['bc7_bc5', 1],
          ['rgba8', 0],
        ] as const) {
          const page = await browser.newPage();
          const errors: string[] = [];
          page.on('pageerror', (error) => errors.push(error.message));
          const query = new URLSearchParams({
            auto: '0',
            hud: '0',
            backend: 'webgpu',
            size: '1280x720',
            source: 'uastc',
            budget: String(budget),
            compressed: String(compressed),
          });
          await page.goto(`http://localhost:${BENCH_PORT}/demo/index.html?${query}`);
          await page.evaluate(() => window.demo.ready);
          let worst = 0;
          for (const view of VIEWS) {
            await page.evaluate((pose) => window.demo.teleport(pose), view);
            let sum = 0;
            let samples = 0;
            for (let f = 0; f < VIEW_FRAMES; f += SAMPLE_EVERY) {
              await page.evaluate((n) => window.demo.renderFrames(n), SAMPLE_EVERY);
              if (f >= WARM_FRAMES) {
                sum += (await stats(page)).vt.mipBias;
                samples++;
              }
            }
            worst = Math.max(worst, sum / samples);
            const now = await stats(page);
            console.log(
              `demo-bias ${budget} MiB ${name} view ${JSON.stringify(view)}: bias ${sum / samples}, resident ${now.vt.resident}`,
            );
          }
          const last = await stats(page);
          if (errors.length > 0 || last.errors.length > 0)
            throw new Error(`demo failed (${name}): ${[...errors, ...last.errors].join('; ')}`);
          if (last.usedBytes > last.budgetBytes) throw new Error(`demo over budget (${name})`);
          console.log(`demo-bias ${budget} MiB ${name}: ${JSON.stringify(last.vt.poolFormats)}`);
          out[`demo.pool.mip_bias.${budget}mib.${name}`] = worst;
          out[`demo.pool.slots.${budget}mib.${name}`] = last.vt.poolSlots;
          await page.close();
        }
      }
      return out;
    });
  },
};
