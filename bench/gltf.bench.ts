/**
 * glTF scenes streamed through `registerGltfTextureStreaming`, in headless Chromium (WebGPU on
 * SwiftShader), against three's KTX2Loader on the same files in the same run. Scene A: eight
 * 2048² KTX2 textures (four UASTC + zstd, four ETC1S), photograph-like content, one unit quad
 * each in a 4 x 2 grid seen at ~465 pixels a unit (so every texture needs mip 2); scene B: two
 * more and a truncated file. The page is the browser test's (test/browser/gltf/pages), with the
 * bench's view. Bytes are counted where they are served (Playwright routes, with Range):
 * - `gltf.first_frame_bytes_per_texture_max`: the most bytes any texture took before its first
 *   textured frame (metadata incl. ETC1S codebooks + the pinned chain);
 * - `gltf.mip2_download_ratio` (and `_uastc`, `_etc1s`): bytes for the mip-2 view over the whole
 *   files KTX2Loader downloads (`gltf.ktx2loader_bytes`);
 * - `gltf.mip2_vram_ratio`: peak GPU bytes of the eight streamed textures over what KTX2Loader's
 *   textures take once uploaded (the independent GPU tracker's count);
 * - the budget-cut, regrowth and A -> B transition figures of the same run.
 * Fixtures are encoded once into `.tmp/gltf-fixtures/` (minutes: 2048² UASTC) and reused.
 */

import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { CHROMIUM_ARGS, chromiumPath, hasChromium } from '../test/browser/chromium';
import { type Served, serveFiles } from '../test/browser/gltf/serve-files';
import { cachedFixtureTexture, type GltfFixtureTexture, writeGltfScene } from '../test/support/gltf-fixtures';

const EDGE = 2048;

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** One 2048² fixture texture (encoded once, then read from `.tmp/gltf-fixtures/`). */
function cached(kind: 'uastc' | 'etc1s', name: string, seed: number): Promise<GltfFixtureTexture> {
  const colour = [
    [200, 90, 60],
    [70, 180, 90],
    [80, 90, 200],
    [190, 170, 60],
  ][seed % 4] as [number, number, number];
  return cachedFixtureTexture(kind, name, EDGE, colour, seed);
}

export default {
  name: 'gltf',
  async run(): Promise<Record<string, number>> {
    if (!hasChromium()) throw new Error(`no Chromium at ${chromiumPath()} (set CHROMIUM_PATH)`);
    const a: GltfFixtureTexture[] = [];
    for (let i = 0; i < 8; i++)
      a.push(
        await cached(i % 2 === 0 ? 'uastc' : 'etc1s', `a${i}-${i % 2 === 0 ? 'uastc' : 'etc1s'}`, i + 1),
      );
    const b = [await cached('uastc', 'b0-uastc', 11), await cached('etc1s', 'b1-etc1s', 12)];
    b.push({ uri: 'b-broken.ktx2', bytes: b[1].bytes.subarray(0, 60), mimeType: 'image/ktx2' });
    const files = { ...(await writeGltfScene('a', a, 4)), ...(await writeGltfScene('b', b)) };
    const port = await freePort();
    let server: Awaited<ReturnType<typeof createServer>> | undefined;
    let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
    try {
      server = await createServer({
        configFile: fileURLToPath(new URL('../test/browser/vite.config.ts', import.meta.url)),
        server: { port, strictPort: true },
        logLevel: 'error',
      });
      await server.listen();
      browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
      const page = await browser.newPage();
      await page.addInitScript({
        path: fileURLToPath(new URL('../test/support/gpu-tracker.js', import.meta.url)),
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const served = await serveFiles(page as never, files);
      // 4 x 2 quads at 1.1 spacing: 4.4 x 2.2 units on 2048 x 1024 pixels, ~465 pixels a unit:
      // a 2048² texture wants mip log2(2048 / 465) = 2.14.
      const query = new URLSearchParams({ backend: 'webgpu', w: '2048', h: '1024', hw: '2.2', hh: '1.1' });
      await page.goto(`http://localhost:${port}/test/browser/gltf/pages/gltf-streaming.html?${query}`);
      await page.waitForFunction(() => document.title === 'ready', null, { timeout: 120_000 });
      const r = (await page.evaluate(
        (urls) =>
          (globalThis as never as { gltfPage: { run(u: string[]): Promise<unknown> } }).gltfPage.run(urls),
        a.map((t) => `/gltf-files/${t.uri}`),
      )) as {
        streamed: {
          firstTexturedFrame: number;
          firstRenderable: Record<string, number>;
          peakKtx2: number;
          textures: { mip: number }[];
        };
        ktx2LoaderBytes: number;
        overBudgetFrames: number;
        afterCut: number[];
        afterRegrow: number[];
        transition: { bytesA: number; bytesB: number; peak: number };
        budget: number;
      };
      if (errors.length > 0) throw new Error(`benchmark page failed: ${errors.join('; ')}`);
      const bytesOf = (list: Served[]) => list.reduce((sum, x) => sum + x.bytes, 0);
      // Per texture: the requests answered before the first frame it rendered textured.
      const firstFrame = (uri: string) =>
        bytesOf(
          served.filter(
            (x) =>
              x.file === uri &&
              (x.phase === 'load' ||
                (x.phase === 'stream' && x.afterFrame < (r.streamed.firstRenderable[uri] ?? 0))),
          ),
        );
      const viewPhase = (x: Served) => x.phase === 'load' || x.phase === 'stream';
      const streamedOf = (list: GltfFixtureTexture[]) =>
        bytesOf(served.filter((x) => x.range && viewPhase(x) && list.some((t) => t.uri === x.file)));
      const regrowBytes = bytesOf(
        served.filter((x) => x.range && x.phase === 'regrow' && a.some((t) => t.uri === x.file)),
      );
      const wholeOf = (list: GltfFixtureTexture[]) =>
        bytesOf(served.filter((x) => x.phase === 'ktx2loader' && list.some((t) => t.uri === x.file)));
      const uastc = a.filter((t) => t.uri.includes('uastc'));
      const etc1s = a.filter((t) => t.uri.includes('etc1s'));
      const firstFrames = a.map((t) => firstFrame(t.uri));
      const t = r.transition;
      return {
        'gltf.textures': a.length,
        'gltf.texture_edge': EDGE,
        'gltf.file_bytes_total': wholeOf(a),
        'gltf.first_frame_bytes_per_texture_max': Math.max(...firstFrames),
        'gltf.first_frame_bytes_per_texture_mean': firstFrames.reduce((x, y) => x + y, 0) / a.length,
        'gltf.ktx2loader_bytes': wholeOf(a),
        'gltf.mip2_download_bytes': streamedOf(a),
        'gltf.mip2_download_ratio': streamedOf(a) / wholeOf(a),
        'gltf.mip2_download_ratio_uastc': streamedOf(uastc) / wholeOf(uastc),
        'gltf.mip2_download_ratio_etc1s': streamedOf(etc1s) / wholeOf(etc1s),
        'gltf.mip2_vram_bytes': r.streamed.peakKtx2,
        'gltf.ktx2loader_vram_bytes': r.ktx2LoaderBytes,
        'gltf.mip2_vram_ratio': r.streamed.peakKtx2 / r.ktx2LoaderBytes,
        'gltf.textures_at_mip2': r.streamed.textures.filter((x) => x.mip === 2).length,
        'gltf.budget_cut.over_budget_frames': r.overBudgetFrames,
        'gltf.budget_cut.textures_shed': r.afterCut.filter((mip) => mip > 2).length,
        'gltf.budget_regrow.textures_at_mip2': r.afterRegrow.filter((mip) => mip === 2).length,
        'gltf.budget_regrow.download_bytes': regrowBytes,
        'gltf.transition.peak_bytes': t.peak,
        'gltf.transition.bound_bytes': Math.max(t.bytesA, t.bytesB) + 0.1 * r.budget,
        'gltf.transition.peak_over_bound': t.peak / (Math.max(t.bytesA, t.bytesB) + 0.1 * r.budget),
      };
    } finally {
      await browser?.close();
      await server?.close();
    }
  },
};
