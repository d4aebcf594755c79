import { EXTENDED, expect, test } from '../fixtures';
import { bakedPhotograph, PHOTO_DIR } from './photo-fixture';

/** Saves the virtual texture's frame and the reference as PNGs next to the photograph. */
async function saveFrames(page: import('@playwright/test').Page, name: string): Promise<void> {
  const { default: sharp } = await import('sharp');
  const shots = await page.evaluate(() => photoScene.frames());
  for (const which of ['vt', 'reference'] as const) {
    await sharp(Buffer.from(shots[which]), { raw: { width: shots.width, height: shots.height, channels: 4 } })
      .png()
      .toFile(`${PHOTO_DIR}/${name}-${which}.png`);
  }
}

interface PhotoSceneApi {
  settle(maxFrames?: number): Promise<number>;
  frames(): Promise<{ width: number; height: number; vt: number[]; reference: number[] }>;
  compare(): Promise<{ psnr: number; worst: number; top: number[]; bottom: number[] }>;
  resize(width: number, height: number): void;
  stats(): { feedbackSize: { width: number; height: number }; streaming: { settled: boolean } };
  content(): { width: number; height: number; aspect: number };
  pageEvents(): { count: number; unmapped: number; wrongFrame: number };
  compareSupersampled(): Promise<number>;
  budget(): { live: number; budget: number; peak: number } | null;
}
declare const photoScene: PhotoSceneApi;

/** Agreement with TextureLoader on every mesh, dB. */
const MIN_MESH_PSNR = 50;

/**
 * The README path on a photograph: bake an image with the CLI's defaults, add the archive with
 * `ArchiveTileSource.open(url)`, show it with `virtualTexture(vt)` on a plane of the photo's aspect.
 * Settled, the frame equals three's own `TextureLoader` texture of the same image on the same plane
 * (orientation, content rectangle and filtering all right), straight on and after the canvas is
 * resized (the feedback follows the drawing buffer).
 */
test('a baked photograph shows exactly as TextureLoader shows it, before and after a resize', async ({
  page,
  openPage,
}) => {
  test.setTimeout(180_000);
  const urls = await bakedPhotograph(2048, 1024);
  await openPage('/test/browser/readme/pages/photo.html', { archive: urls.archive, image: urls.image });
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  const content = await page.evaluate(() => photoScene.content());
  expect(content).toEqual({ width: 2048, height: 1024, aspect: 2 });

  const frames = await page.evaluate(() => photoScene.settle());
  expect(frames).toBeGreaterThan(0);
  const straight = await page.evaluate(() => photoScene.compare());
  if (straight.psnr < 50) await saveFrames(page, 'straight');
  expect(straight.psnr, JSON.stringify(straight)).toBeGreaterThanOrEqual(50);

  // A larger canvas needs finer mips: the feedback target must follow, or every request is a mip
  // too coarse and the frame blurs.
  await page.evaluate(() => photoScene.resize(1280, 640));
  const resizedFrames = await page.evaluate(() => photoScene.settle());
  expect(resizedFrames).toBeGreaterThan(0);
  const stats = await page.evaluate(() => photoScene.stats());
  expect(stats.feedbackSize).toEqual({ width: 160, height: 80 });
  const resized = await page.evaluate(() => photoScene.compare());
  if (resized.psnr < 50) await saveFrames(page, 'resized');
  expect(resized.psnr, JSON.stringify(resized)).toBeGreaterThanOrEqual(50);
  test.info().annotations.push({
    type: 'psnr',
    description: `straight ${straight.psnr.toFixed(1)} dB (${frames} frames), resized ${resized.psnr.toFixed(1)} dB (${resizedFrames} frames)`,
  });
  console.log(`photo vs TextureLoader: ${test.info().annotations.at(-1)?.description}`);
  // Every page-loaded event came after its page was mapped, in the frame it names.
  const events = await page.evaluate(() => photoScene.pageEvents());
  expect(events.count).toBeGreaterThan(20);
  expect(events).toMatchObject({ unmapped: 0, wrongFrame: 0 });
});

/**
 * The same image on other meshes, with their own uvs: a sphere, and a sphere read back from glTF
 * (GLTFExporter, then GLTFLoader) sampled with `flipY: false` as GLTFLoader loads a glTF's own
 * textures. Each equals three's texture of the same image on the same mesh.
 */
for (const mesh of ['sphere', 'gltf'] as const) {
  test(`a baked photograph on a ${mesh} shows as TextureLoader shows it`, { tag: EXTENDED }, async ({
    page,
    openPage,
  }) => {
    test.setTimeout(180_000);
    const urls = await bakedPhotograph(2048, 1024);
    await openPage('/test/browser/readme/pages/photo.html', {
      archive: urls.archive,
      image: urls.image,
      mesh,
    });
    await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => photoScene.settle())).toBeGreaterThan(0);
    const result = await page.evaluate(() => photoScene.compare());
    if (result.psnr < MIN_MESH_PSNR) await saveFrames(page, mesh);
    console.log(`photo on a ${mesh} vs TextureLoader: ${result.psnr.toFixed(1)} dB`);
    expect(result.psnr, JSON.stringify(result)).toBeGreaterThanOrEqual(MIN_MESH_PSNR);
  });
}

/**
 * A resize the budget cannot pay for: the shared budget is full right after the system is made,
 * so the feedback target keeps its reservation, warns once, and requests stay right (the LOD
 * offset follows the real ratio): the frame still matches TextureLoader, and nothing exceeds the
 * budget.
 */
test('a resize with no room in the budget keeps the target, warns once, and stays sharp', {
  tag: EXTENDED,
}, async ({ page, openPage }) => {
  test.setTimeout(180_000);
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('tessera:')) warnings.push(message.text());
  });
  const urls = await bakedPhotograph(2048, 1024);
  await openPage('/test/browser/readme/pages/photo.html', {
    archive: urls.archive,
    image: urls.image,
    tight: 1,
  });
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  expect(await page.evaluate(() => photoScene.settle())).toBeGreaterThan(0);
  await page.evaluate(() => photoScene.resize(1280, 640));
  expect(await page.evaluate(() => photoScene.settle())).toBeGreaterThan(0);
  const stats = await page.evaluate(() => photoScene.stats());
  // The target stays at the pixels reserved for 640 x 320 (80 x 40), not the 160 x 80 wanted.
  expect(stats.feedbackSize.width * stats.feedbackSize.height).toBeLessThanOrEqual(80 * 40);
  expect(warnings.filter((w) => w.includes('feedback target'))).toHaveLength(1);
  const budget = await page.evaluate(() => photoScene.budget());
  expect(budget?.peak).toBeLessThanOrEqual(budget?.budget ?? 0);
  const result = await page.evaluate(() => photoScene.compare());
  expect(result.psnr, JSON.stringify(result)).toBeGreaterThanOrEqual(45);
  console.log(`photo after a resize refused by the budget: ${result.psnr.toFixed(1)} dB`);
});

/**
 * Anisotropic filtering is real: on the photo seen as a floor at a grazing angle, against its
 * mip 0 supersampled 4 x 4 per pixel, the anisotropic sampler (taps along the footprint's major
 * axis) beats trilinear (isotropic, so blurred along the view) by at least 3 dB.
 */
test('anisotropic filtering beats trilinear by >= 3 dB at a grazing angle', { tag: EXTENDED }, async ({
  page,
  openPage,
}) => {
  test.setTimeout(240_000);
  const urls = await bakedPhotograph(2048, 1024);
  const psnr: Record<string, number> = {};
  for (const filtering of ['trilinear', 'anisotropic'] as const) {
    await openPage('/test/browser/readme/pages/photo.html', {
      archive: urls.archive,
      image: urls.image,
      view: 'grazing',
      filtering,
      w: 320,
      h: 160,
    });
    await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
    expect(await page.evaluate(() => photoScene.settle())).toBeGreaterThan(0);
    psnr[filtering] = await page.evaluate(() => photoScene.compareSupersampled());
  }
  console.log(
    `grazing view vs 4x4 supersampled: trilinear ${psnr.trilinear.toFixed(1)} dB, anisotropic ${psnr.anisotropic.toFixed(1)} dB`,
  );
  expect(psnr.anisotropic - psnr.trilinear, JSON.stringify(psnr)).toBeGreaterThanOrEqual(3);
});
