import type { VirtualTextureSystem } from '../../../src/three/virtual-texture-system';
import { expect, test } from '../fixtures';
import { type Comparison, VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi & {
  loseDevice(): void;
  stepPaced(frames: number): Promise<void>;
  recover(): Promise<void>;
  budgetLiveBytes(): number;
  trackedBytes(): number;
  debug: { system: VirtualTextureSystem };
};

/**
 * Device loss mid-stream (WebGPU: `device.destroy()`; WebGL2: WEBGL_lose_context): frames while
 * lost do nothing, no exception escapes, Tessera says so once; `recover(newRenderer)` recreates its
 * GPU resources with the same reservations and the view streams back to the settled PSNR.
 */
test('device loss mid-stream: lost frames do nothing, recover() streams back to the settled PSNR', async ({
  page,
  openPage,
  errorLog,
  backend,
}) => {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('tessera:')) warnings.push(message.text());
  });
  await openPage(VT_SCENE, { delay: 1 });
  await waitForScene(page);
  const settled = await page.evaluate(async () => {
    vtScene.setOrthoView(0.31, 0.62, 2.3);
    await vtScene.waitReady();
    await vtScene.stepPaced(90);
    return vtScene.compare(2.3);
  });
  expect(settled.psnr).toBeGreaterThanOrEqual(35);

  const lost = await page.evaluate(async () => {
    const system = vtScene.debug.system;
    // Mid-stream: a new view, a few frames in, loads running.
    vtScene.setOrthoView(0.6, 0.3, 1.2);
    const busy = () => {
      const s = system.stats().streaming;
      return s.loading + s.queued + s.awaitingUpload > 0;
    };
    for (let i = 0; i < 60 && !busy(); i++) await vtScene.stepPaced(1);
    const loading = system.stats().streaming;
    const reserved = vtScene.budgetLiveBytes();
    vtScene.loseDevice();
    let thrown = '';
    const frameBefore = system.stats().frame;
    try {
      await vtScene.stepPaced(20);
    } catch (error) {
      thrown = String(error);
    }
    return {
      loading,
      thrown,
      deviceLost: system.deviceLost,
      framesRun: system.stats().frame - frameBefore,
      reserved,
      reservedWhileLost: vtScene.budgetLiveBytes(),
    };
  });
  expect(lost.loading.loading + lost.loading.queued + lost.loading.awaitingUpload).toBeGreaterThan(0);
  expect(lost.thrown).toBe('');
  expect(lost.deviceLost).toBe(true);
  // The loss is noticed when `device.lost` resolves or the context-lost event fires, a task or
  // two later: under load that took 2 frames once (each did nothing on the GPU).
  expect(lost.framesRun).toBeLessThanOrEqual(3);
  expect(lost.reservedWhileLost).toBe(lost.reserved);
  expect(warnings.filter((w) => w.includes('lost'))).toHaveLength(1);
  // The loss itself: three reports a lost WebGL context as an error; a destroyed WebGPU device it ignores.
  const expected = (await errorLog.take()).filter((e) => !/Device Lost/.test(e));
  expect(expected).toEqual([]);

  const recovered = await page.evaluate(async () => {
    const system = vtScene.debug.system;
    await vtScene.recover();
    // The pinned mips are back at once (CPU copies): every pixel shows some mip on the first frame.
    vtScene.setOrthoView(0.31, 0.62, 2.3);
    await vtScene.stepPaced(1);
    const first = await vtScene.compare(2.3);
    await vtScene.stepPaced(120);
    const stats = system.stats();
    return {
      first,
      comparison: (await vtScene.compare(2.3)) as Comparison,
      lost: system.deviceLost,
      reserved: vtScene.budgetLiveBytes(),
      total: stats.gpuBytes.total,
      tracked: vtScene.trackedBytes(),
    };
  });
  if (process.env.TESSERA_PRINT_FIGURES) {
    console.log(
      `${backend} device loss: settled ${settled.psnr.toFixed(2)} dB, recovered ${recovered.comparison.psnr.toFixed(2)} dB`,
    );
  }
  expect(recovered.lost).toBe(false);
  expect(recovered.first.garbagePixels).toBe(0);
  expect(recovered.reserved, 'the same reservations, exactly').toBe(lost.reserved);
  expect(recovered.total).toBeLessThanOrEqual(recovered.reserved);
  if (backend === 'webgpu') expect(recovered.tracked).toBe(recovered.total);
  expect(recovered.comparison.psnr, JSON.stringify(recovered.comparison)).toBeGreaterThanOrEqual(
    settled.psnr - 0.5,
  );
  expect(recovered.comparison.garbagePixels).toBe(0);
});
