import { expect, test } from '../fixtures';
import { VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

const BUDGET = 24 * 1024 * 1024;
/** Issue 17's bound on a 4096²-page texture's page table after settling on a view. */
const PAGE_TABLE_LIMIT = 8 * 1024 * 1024;

/**
 * A 4096 x 4096-page virtual texture (491520² texels of procedural content; its dense page table
 * would be 85 MiB, 3.5x this whole budget) settles on views at both ends of the texture at mip 0:
 * every pixel right (PSNR against the analytic content), the page tables within their bound, and
 * the independent tracker's bytes within the budget and equal to the system's own accounting.
 */
test('a 4096²-page texture settles at both ends within budget', async ({
  page,
  openPage,
  gpuTracker,
  backend,
}) => {
  await openPage(VT_SCENE, { pages: 4096, budget: BUDGET });
  await waitForScene(page);
  for (const [u, v] of [
    [0.004, 0.004],
    [0.996, 0.996],
  ]) {
    const result = await page.evaluate(
      async ([cu, cv]) => {
        await vtScene.waitReady();
        vtScene.setOrthoView(cu, cv, 0.3);
        const frames = await vtScene.settle(200);
        // The system's own rule also wants 4 quiet jitter offsets (readbacks lag under load, so the
        // scene's quiet test can pass first).
        const settleFrames = await vtScene.waitSettled(200);
        return { frames, settleFrames, comparison: await vtScene.compare(0.3), stats: vtScene.stats() };
      },
      [u, v],
    );
    const { comparison, stats } = result;
    // Settled by the system's own rule (the scene's frame count also waits on readbacks, which
    // SwiftShader sometimes delays under load).
    expect(result.settleFrames, JSON.stringify({ u, v, stats })).toBeGreaterThanOrEqual(0);
    expect(comparison.psnr, JSON.stringify(comparison)).toBeGreaterThanOrEqual(35);
    expect(comparison.garbagePixels).toBe(0);
    expect(comparison.mipHistogram[0]).toBeGreaterThan(0.99 * 256 * 256);
    expect(stats.gpuBytes.pageTables).toBeLessThanOrEqual(PAGE_TABLE_LIMIT);
    // The page-table reservation is exactly what the page tables hold.
    expect(stats.byCategory['page-table']).toBe(stats.gpuBytes.pageTables);
    expect(stats.gpuBytes.total).toBeLessThanOrEqual(BUDGET);
    if (backend === 'webgpu') {
      expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBe(stats.gpuBytes.total);
      expect((await gpuTracker.snapshot()).byPrefix['tessera:']?.peak ?? 0).toBeLessThanOrEqual(BUDGET);
    }
  }
});
