import { EXTENDED, expect, test } from '../fixtures';
import { flyAndComparePerspective, VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

/**
 * Correct pixels: a 128 x 128-page virtual texture (15360² texels of payload) with analytic
 * content, seen straight on at a fractional mip (2.3), after streaming settles, matches the
 * colour computed per pixel (bilinear in mip 2, or trilinear between mips 2 and 3).
 */
for (const filtering of ['bilinear', 'trilinear', 'anisotropic'] as const) {
  test(`${filtering}: settled frame matches the analytic content (PSNR >= 35 dB)`, {
    tag: filtering === 'trilinear' ? EXTENDED : [],
  }, async ({ page, openPage }) => {
    await openPage(VT_SCENE, { filtering });
    await waitForScene(page);
    const result = await page.evaluate(async () => {
      vtScene.setOrthoView(0.31, 0.62, 2.3);
      await vtScene.waitReady();
      await vtScene.settle(150);
      return vtScene.compare(2.3);
    });
    expect(result.psnr, JSON.stringify(result)).toBeGreaterThanOrEqual(35);
    expect(result.garbagePixels).toBe(0);
    // Every pixel is explained by mip 2 (not by a coarser fallback): streaming finished.
    expect(result.mipHistogram[2]).toBeGreaterThan(0.99 * 256 * 256);
  });
}

/**
 * Never garbage while streaming: from the first frame after the pinned mips are resident, while
 * the camera pans over finer and finer content and tiles arrive late (15 ms each), every pixel
 * equals the content at the wanted mip or a coarser one (no black, stale, misplaced or seamed tiles).
 * Once with the dense page table this 128²-page texture gets by default (one fetch per lookup),
 * once forced sparse (indirection, blocks stored as pages arrive).
 */
for (const storage of ['dense', 'sparse'] as const) {
  test(`every frame while streaming shows the wanted mip or a coarser one (${storage} page table)`, {
    tag: storage === 'sparse' ? EXTENDED : [],
  }, async ({ page, openPage }) => {
    await openPage(VT_SCENE, { delay: 15, storage });
    await waitForScene(page);
    expect(await page.evaluate(() => vtScene.pageTableDense)).toBe(storage === 'dense');
    const frames = await page.evaluate(async () => {
      vtScene.setOrthoView(0.2, 0.3, 0.4);
      await vtScene.waitReady();
      const out = [];
      for (let i = 0; i < 12; i++) {
        // Pan by ~1.5 pages of mip 0 per frame and zoom in from mip 3 to mip 0.
        const lod = Math.max(0.4, 3.4 - i * 0.5);
        vtScene.setOrthoView(0.2 + i * 0.012, 0.3 + i * 0.004, lod);
        vtScene.step();
        const c = await vtScene.compare(lod, 10);
        out.push({ lod, garbage: c.garbagePixels, worst: c.worstError, histogram: c.mipHistogram });
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      return out;
    });
    for (const frame of frames) {
      expect(frame.garbage, JSON.stringify(frame)).toBe(0);
    }
    // Streaming did make progress during the run: some frame shows content finer than the pinned mips.
    const finest = Math.min(...frames.map((f) => f.histogram.findIndex((n) => n > 0)));
    expect(finest).toBeLessThan(5);
  });
}

/**
 * Never garbage under a perspective camera: while the camera flies low over the texture and turns
 * (tiles arriving 15 ms late), every pixel equals the content at its exact uv at some mip (within a
 * quarter texel of that mip, see comparePerspective): no black, misplaced, stale or seamed tiles at
 * grazing angles and mip transitions either.
 */
test('every perspective frame while streaming shows right content at some mip', { tag: EXTENDED }, async ({
  page,
  openPage,
}) => {
  await openPage(VT_SCENE, { delay: 15 });
  await waitForScene(page);
  const { frames } = await flyAndComparePerspective(page);
  for (const frame of frames) {
    expect(frame.checked).toBeGreaterThan(50_000);
    expect(frame.garbagePixels, JSON.stringify(frame)).toBe(0);
  }
});
