/**
 * The showcase glTF (test/support/gltf-showcase-scene.ts: 2048² photograph-like textures as UASTC +
 * zstd, ETC1S, an rgba8 KTX2, PNG and JPEG; a 40 m floor with uv x10, a normal-mapped sphere,
 * instanced crates, a poster through uv set 1 and KHR_texture_transform) at 1280x720 in headless
 * Chromium, on both backends of three's WebGPURenderer, streamed through `registerGltfTextureStreaming`
 * as the README shows and drawn by three's own GLTFLoader + KTX2Loader in the same page. Per backend
 * (`gltf_showcase.<backend>.*`):
 * - `psnr_overall`, `psnr_min_mesh`, `psnr.<mesh>`: the settled streamed frame against three's (dB);
 * - `first_frame_bytes` (every byte served before the first textured frame, the glTF and its
 *   buffer included) against `three_bytes` (three shows nothing before it has downloaded all);
 * - `settled_bytes`: bytes served until `whenSettled()` resolved; `gpu_bytes` (the budget's exact
 *   count) against `three_gpu_bytes` (what three's render added, by the independent GPU tracker);
 * - `first_textured_frame` (frames after `loadAsync` resolved), `settled_frame`;
 * - `budget_half.*`, `budget_quarter.*`: the same scene under 1/2 and 1/4 of the unconstrained run's
 *   GPU bytes: `settled_frame` (-1: never), `bytes_ratio` (download over the unconstrained run's),
 *   `over_budget_frames`, `gpu_bytes`.
 * Textures are encoded once into `.tmp/gltf-fixtures/` (minutes for 2048² UASTC) and reused.
 */

import { fileURLToPath } from 'node:url';
import { type Served, serveFiles } from '../test/browser/gltf/serve-files';
import { writeShowcaseScene } from '../test/support/gltf-showcase-scene';
import { type FidelityPage, SHOWCASE_MESHES } from '../test/support/gltf-showcase-view';
import { withBenchBrowser } from './bench-browser';

const EDGE = 2048;
const WIDTH = 1280;
const HEIGHT = 720;
const PORT = 5187;

export default {
  name: 'gltf-showcase',
  async run(): Promise<Record<string, number>> {
    const files = await writeShowcaseScene('showcase', EDGE);
    return withBenchBrowser(PORT, async (browser) => {
      const out: Record<string, number> = {};
      for (const backend of ['webgpu', 'webgl'] as const) {
        const page = await browser.newPage();
        await page.addInitScript({
          path: fileURLToPath(new URL('../test/support/gpu-tracker.js', import.meta.url)),
        });
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        page.on('console', (message) => {
          if (message.type() === 'error') errors.push(message.text());
        });
        const served = await serveFiles(page as never, files);
        const query = new URLSearchParams({ backend, w: String(WIDTH), h: String(HEIGHT) });
        await page.goto(`http://localhost:${PORT}/test/browser/gltf/pages/gltf-fidelity.html?${query}`);
        await page.waitForFunction(() => document.title === 'ready', null, { timeout: 120_000 });
        const compared = await page.evaluate(
          (budget) => (globalThis as never as { fidelityPage: FidelityPage }).fidelityPage.compare(budget),
          256 << 20,
        );
        const stream = (budget: number, phase: string) =>
          page.evaluate(
            ([b, p]) =>
              (globalThis as never as { fidelityPage: FidelityPage }).fidelityPage.stream(
                b as number,
                p as string,
              ),
            [budget, phase] as const,
          );
        const full = await stream(256 << 20, 'full');
        const half = await stream(Math.floor(full.gpuBytes / 2), 'half');
        const quarter = await stream(Math.floor(full.gpuBytes / 4), 'quarter');
        await page.close();
        if (errors.length > 0) throw new Error(`benchmark page failed (${backend}): ${errors.join('; ')}`);
        const bytesOf = (keep: (x: Served) => boolean) =>
          served.filter(keep).reduce((sum, x) => sum + x.bytes, 0);
        const key = `gltf_showcase.${backend}`;
        const perMesh = SHOWCASE_MESHES.map((mesh) => compared.perMesh[mesh]);
        out[`${key}.psnr_overall`] = compared.overall;
        out[`${key}.psnr_min_mesh`] = Math.min(...perMesh);
        for (const mesh of SHOWCASE_MESHES) out[`${key}.psnr.${mesh}`] = compared.perMesh[mesh];
        out[`${key}.first_frame_bytes`] = bytesOf(
          (x) => x.phase === 'stream' && x.afterFrame < compared.firstTexturedFrame,
        );
        out[`${key}.settled_bytes`] = bytesOf((x) => x.phase === 'stream');
        out[`${key}.three_bytes`] = bytesOf((x) => x.phase === 'reference');
        out[`${key}.gpu_bytes`] = compared.gpuBytes;
        out[`${key}.three_gpu_bytes`] = compared.referenceGpuBytes;
        out[`${key}.first_textured_frame`] = compared.firstTexturedFrame;
        out[`${key}.settled_frame`] = compared.settledAt;
        const fullBytes = bytesOf((x) => x.phase === 'full');
        for (const [name, run] of [
          ['budget_half', half],
          ['budget_quarter', quarter],
        ] as const) {
          const phase = name === 'budget_half' ? 'half' : 'quarter';
          out[`${key}.${name}.settled_frame`] = run.settledAt;
          out[`${key}.${name}.bytes_ratio`] = bytesOf((x) => x.phase === phase) / fullBytes;
          out[`${key}.${name}.over_budget_frames`] = run.overBudgetFrames;
          out[`${key}.${name}.gpu_bytes`] = run.gpuBytes;
        }
      }
      return out;
    });
  },
};
