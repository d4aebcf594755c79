import { expect, test } from '../fixtures';
import { VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

const BUDGET = 12 * 1024 * 1024;

/**
 * GPU memory: what the independent tracker sees under `tessera:` never exceeds the budget and
 * equals `stats().gpuBytes.total` exactly; dispose leaves nothing. (The tracker wraps the WebGPU
 * device; on WebGL2 only the system's own accounting is checked.)
 */
test('tessera GPU bytes stay within budget, match stats, and dispose frees all', async ({
  page,
  openPage,
  gpuTracker,
  backend,
}) => {
  await openPage(VT_SCENE, { budget: BUDGET, delay: 1 });
  await waitForScene(page);
  const peaks: number[] = [];
  for (let round = 0; round < 4; round++) {
    const stats = await page.evaluate(async (r) => {
      if (r === 0) await vtScene.waitReady();
      vtScene.setPose(0.2 + r * 0.2, 0.04, 0.2 + r * 0.1, 0.3 * r, -0.4);
      for (let i = 0; i < 8; i++) {
        vtScene.step();
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      return vtScene.stats();
    }, round);
    expect(stats.gpuBytes.total).toBeLessThanOrEqual(BUDGET);
    if (backend === 'webgpu') {
      const live = await gpuTracker.liveBytesWithPrefix('tessera:');
      expect(live).toBe(stats.gpuBytes.total);
      peaks.push((await gpuTracker.snapshot()).byPrefix['tessera:']?.peak ?? 0);
    }
  }
  for (const peak of peaks) expect(peak).toBeLessThanOrEqual(BUDGET);
  await page.evaluate(() => vtScene.dispose());
  if (backend === 'webgpu') {
    await page.waitForTimeout(50);
    expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBe(0);
  }
});
