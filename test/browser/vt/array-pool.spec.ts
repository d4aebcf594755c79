import { EXTENDED, expect, test } from '../fixtures';
import { flyAndComparePerspective, VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: Omit<VtSceneApi, 'stats'> & {
  poolShape(): { slotsPerRow: number; slotRows: number; arrayLayers: number; tileSize: number };
  visibleSlotLayers(): { byArrayLayer: number[]; fallback: number };
  stats(): ReturnType<VtSceneApi['stats']> & { slotCount: number };
};

/**
 * Pool textures capped at 512² texels (4 x 4 slots of 128² per array layer), so the default
 * 24 MiB budget needs a 2D array texture of many array layers: the array path at a small scale.
 */
const POOL_TEXTURE = 512;

for (const filtering of ['bilinear', 'trilinear'] as const) {
  test(`array pool, ${filtering}: settled frame matches the analytic content from array layers >= 1`, {
    tag: filtering === 'trilinear' ? EXTENDED : [],
  }, async ({ page, openPage }) => {
    await openPage(VT_SCENE, { filtering, poolTexture: POOL_TEXTURE });
    await waitForScene(page);
    const result = await page.evaluate(async () => {
      vtScene.setOrthoView(0.31, 0.62, 2.3);
      await vtScene.waitReady();
      await vtScene.settle(150);
      return {
        shape: vtScene.poolShape(),
        slotCount: vtScene.stats().slotCount,
        comparison: await vtScene.compare(2.3),
        visible: vtScene.visibleSlotLayers(),
      };
    });
    const { shape, comparison, visible } = result;
    expect(shape.slotsPerRow * shape.tileSize).toBeLessThanOrEqual(POOL_TEXTURE);
    expect(shape.arrayLayers).toBeGreaterThan(4);
    expect(result.slotCount).toBe(shape.slotsPerRow * shape.slotRows * shape.arrayLayers);
    expect(comparison.psnr, JSON.stringify(comparison)).toBeGreaterThanOrEqual(35);
    expect(comparison.garbagePixels).toBe(0);
    expect(comparison.mipHistogram[2]).toBeGreaterThan(0.99 * 256 * 256);
    // Every requested page shows from its own slot, and most of those slots are in array layers
    // >= 1 (spread over several), so the correct pixels above came through the array lookups.
    expect(visible.fallback, JSON.stringify(visible)).toBe(0);
    const beyondFirst = visible.byArrayLayer.slice(1).reduce((a, b) => a + b, 0);
    expect(beyondFirst, JSON.stringify(visible)).toBeGreaterThan(visible.byArrayLayer[0]);
    expect(visible.byArrayLayer.filter((n) => n > 0).length, JSON.stringify(visible)).toBeGreaterThanOrEqual(
      3,
    );
  });
}

/**
 * Never garbage while streaming through the array pool: a low perspective flight with tiles
 * arriving late shows right content at some mip on every frame (no tile from a wrong array layer).
 */
test('array pool: every perspective frame while streaming shows right content at some mip', {
  tag: EXTENDED,
}, async ({ page, openPage }) => {
  await openPage(VT_SCENE, { delay: 15, poolTexture: POOL_TEXTURE });
  await waitForScene(page);
  const { frames, residentPages } = await flyAndComparePerspective(page);
  for (const frame of frames) {
    expect(frame.checked).toBeGreaterThan(50_000);
    expect(frame.garbagePixels, JSON.stringify(frame)).toBe(0);
  }
  // More pages resident than one 4 x 4 grid holds: array layers beyond the first were written.
  expect(residentPages).toBeGreaterThan(16);
});

/**
 * Budget accounting stays exact with array pool textures: the tracker's `tessera:` bytes (which
 * count every array layer) equal stats().gpuBytes.total, the pool's bytes are the array's, and
 * dispose frees all of it.
 */
test('array pool: GPU bytes match the tracker and dispose frees them', async ({
  page,
  openPage,
  gpuTracker,
  backend,
}) => {
  await openPage(VT_SCENE, { poolTexture: POOL_TEXTURE, delay: 1 });
  await waitForScene(page);
  const stats = await page.evaluate(async () => {
    await vtScene.waitReady();
    vtScene.setPose(0.3, 0.05, 0.2, 0.4, -0.5);
    vtScene.step(8);
    return { stats: vtScene.stats(), shape: vtScene.poolShape() };
  });
  const { shape } = stats;
  const poolBytes = shape.slotsPerRow * shape.slotRows * shape.arrayLayers * shape.tileSize ** 2 * 4;
  expect(shape.arrayLayers).toBeGreaterThan(1);
  expect(stats.stats.gpuBytes.poolLayers).toEqual([poolBytes]);
  expect(stats.stats.gpuBytes.total).toBeLessThanOrEqual(24 * 1024 * 1024);
  if (backend === 'webgpu') {
    expect(await gpuTracker.liveBytesWithPrefix('tessera:pool:')).toBe(poolBytes);
    expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBe(stats.stats.gpuBytes.total);
  }
  await page.evaluate(() => vtScene.dispose());
  if (backend === 'webgpu') {
    await page.waitForTimeout(50);
    expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBe(0);
  }
});
