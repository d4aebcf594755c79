import { expect, test } from '../fixtures';
import { VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

/**
 * The block-compressed pool: the analytic content (rendering.spec.ts) arrives as UASTC tiles
 * (encoded by Basis's encoder), is transcoded per tile in workers with three's Basis transcoder
 * and lands in a pool texture of the target format, forced one target at a time. The settled
 * frame must match the analytic reference within 35 dB PSNR like the rgba8 pool does (compression
 * error included), with every pixel at the wanted mip.
 */
const FORMATS = {
  bc7: 'bc7-rgba-unorm-srgb',
  astc: 'astc-4x4-unorm-srgb',
  etc2: 'etc2-rgba8unorm-srgb',
  rgba8: 'rgba8unorm-srgb',
} as const;

/** Largest per-channel error (sRGB steps) still explained by block compression, not a wrong tile. */
const COMPRESSED_TOLERANCE = 40;

for (const [target, format] of Object.entries(FORMATS)) {
  test(`UASTC -> ${target}: settled frame matches the analytic content (PSNR >= 35 dB)`, async ({
    page,
    openPage,
    backend,
  }) => {
    await openPage(VT_SCENE, { target, pages: 32, quality: Number(process.env.Q ?? 1) });
    await waitForScene(page);
    const result = await page.evaluate(async (tolerance) => {
      vtScene.setOrthoView(0.31, 0.62, 1.3);
      await vtScene.waitReady();
      await vtScene.settle(200);
      const comparison = await vtScene.compare(1.3, tolerance);
      const stats = vtScene.stats();
      return { comparison, stats, tracked: vtScene.trackedBytes(), budget: vtScene.budgetLiveBytes() };
    }, COMPRESSED_TOLERANCE);
    expect(result.stats.poolFormats).toEqual([format]);
    const { comparison } = result;
    expect(comparison.psnr, JSON.stringify(comparison)).toBeGreaterThanOrEqual(35);
    expect(comparison.garbagePixels).toBe(0);
    expect(comparison.mipHistogram[1]).toBeGreaterThan(0.99 * 256 * 256);
    // Exact accounting: the pool holds whole blocks, the tracker sees what stats() says.
    const tileBytes = target === 'rgba8' ? 128 * 128 * 4 : 32 * 32 * 16;
    expect(result.stats.gpuBytes.poolLayers[0]).toBe(result.stats.slotCount * tileBytes);
    // The tracker counts WebGL2 textures only (the readback ring is pixel-pack buffers there).
    const { gpuBytes } = result.stats;
    expect(result.tracked).toBe(gpuBytes.total - (backend === 'webgl' ? gpuBytes.readbackBuffers : 0));
    expect(gpuBytes.total).toBeLessThanOrEqual(result.budget);
    await page.evaluate(() => vtScene.dispose());
    await page.waitForTimeout(50);
    expect(await page.evaluate(() => vtScene.trackedBytes())).toBe(0);
  });
}
