import { expect, test } from '../browser/fixtures';
import { serveFiles } from '../browser/gltf/serve-files';
import { bakedPhotograph } from '../browser/readme/photo-fixture';
import { writeShowcaseScene } from '../support/gltf-showcase-scene';
import { type FidelityPage, SHOWCASE_MESHES } from '../support/gltf-showcase-view';
import { threeVersionAt } from './three-aliases';

/**
 * The smoke test run against the previous three.js minor (playwright.config.ts of this folder),
 * on the pages the main browser suite uses: a virtual texture from an archive (WebP, and UASTC
 * into a BC7 pool) as the README shows it, against three's TextureLoader; a glTF of KTX2 (UASTC,
 * ETC1S, rgba8), PNG and JPEG textures streamed through the GLTFLoader plugin, against three's
 * GLTFLoader + KTX2Loader. Each runs until settled; the fixture fails it on any page error,
 * console error or WebGPU validation error.
 */

/** The README photo page's API (test/browser/readme/pages/photo.ts), the parts used here. */
interface PhotoSceneApi {
  settle(maxFrames?: number): Promise<number>;
  compare(): Promise<{ psnr: number; worst: number }>;
  stats(): { poolFormats: string[]; streaming: { settled: boolean; failed: number } };
  trackedBytes(): number;
  disposeSystem(): void;
}
declare const photoScene: PhotoSceneApi;

/** The three revision the pages must run, e.g. '186' for 0.186.1. */
const REVISION = threeVersionAt().split('.')[1];

/** Fails unless the page runs the three under test (three sets `window.__THREE__` when loaded). */
async function expectThreeUnderTest(page: import('@playwright/test').Page): Promise<void> {
  const revision = await page.evaluate(() => (window as unknown as { __THREE__?: string }).__THREE__);
  expect(revision, 'three revision in the page').toBe(REVISION);
}

test.describe.configure({ mode: 'parallel' });

for (const archive of [
  { name: 'WebP (the CLI defaults)', bake: [], pool: undefined, format: 'rgba8unorm-srgb', minPsnr: 50 },
  {
    name: 'UASTC + zstd into a BC7 pool',
    bake: ['--encoding', 'uastc', '--zstd', '19'],
    pool: 'uastc',
    format: 'bc7-rgba-unorm-srgb',
    minPsnr: 40,
  },
]) {
  test(`archive virtual texture, ${archive.name}: settles and matches TextureLoader; dispose frees it`, async ({
    page,
    openPage,
    backend,
  }) => {
    test.setTimeout(150_000);
    const urls = await bakedPhotograph(2048, 1024, archive.bake);
    await openPage('/test/browser/readme/pages/photo.html', {
      archive: urls.archive,
      image: urls.image,
      w: 320,
      h: 160,
      ...(archive.pool ? { pool: archive.pool } : {}),
    });
    await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
    await expectThreeUnderTest(page);
    const frames = await page.evaluate(() => photoScene.settle());
    expect(frames, 'frames to settle').toBeGreaterThan(0);
    const { comparison, stats } = await page.evaluate(async () => ({
      comparison: await photoScene.compare(),
      stats: photoScene.stats(),
    }));
    expect(stats.poolFormats[0]).toBe(archive.format);
    expect(stats.streaming.failed).toBe(0);
    console.log(
      `[three r${REVISION} ${backend}] ${archive.name}: ${comparison.psnr.toFixed(2)} dB vs TextureLoader, ${frames} frames`,
    );
    expect(comparison.psnr, JSON.stringify(comparison)).toBeGreaterThanOrEqual(archive.minPsnr);
    const left = await page.evaluate(() => {
      photoScene.disposeSystem();
      return photoScene.trackedBytes();
    });
    // WebGL2 textures carry no labels: the tracker there counts three's own textures too.
    if (backend === 'webgpu') expect(left, 'tessera: bytes left after dispose').toBe(0);
  });
}

test('glTF with KTX2, PNG and JPEG textures streamed through the GLTFLoader plugin: settles and matches GLTFLoader + KTX2Loader', async ({
  page,
  openPage,
  backend,
}) => {
  test.setTimeout(150_000);
  await serveFiles(page, await writeShowcaseScene('showcase', 512));
  await openPage('test/browser/gltf/pages/gltf-fidelity.html');
  await expect(page).toHaveTitle('ready');
  await expectThreeUnderTest(page);
  const r = await page.evaluate(
    (budget) => (globalThis as never as { fidelityPage: FidelityPage }).fidelityPage.compare(budget),
    64 << 20,
  );
  console.log(
    `[three r${REVISION} ${backend}] glTF: ${r.overall.toFixed(2)} dB overall vs GLTFLoader + KTX2Loader, settled at frame ${r.settledAt}, formats ${[
      ...new Set(r.textures.map((t) => t.format)),
    ].join(' ')}`,
  );
  expect(r.settledAt, 'settled').toBeGreaterThan(0);
  expect(r.firstTexturedFrame).toBeGreaterThan(0);
  expect(r.firstTexturedFrame).toBeLessThanOrEqual(4);
  for (let m = 0; m < SHOWCASE_MESHES.length; m++)
    expect(r.maskCounts[m], SHOWCASE_MESHES[m]).toBeGreaterThan(200);
  // The same bounds as the main suite's gltf-fidelity.spec.ts.
  expect(r.overall).toBeGreaterThanOrEqual(40);
  for (const [mesh, value] of Object.entries(r.perMesh)) expect(value, mesh).toBeGreaterThanOrEqual(35);
});
