import { pageMip, pageX, pageY } from '../../../src/core/vt/page-id';
import { EXTENDED, expect, test } from '../fixtures';
import { VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

/** True when `id` is in `set`, or a page one mip up/down or one page across of it is (edge tolerance). */
function explained(id: number, set: Set<number>): boolean {
  if (set.has(id)) return true;
  const mip = pageMip(id);
  const x = pageX(id);
  const y = pageY(id);
  const vtBits = id & 0xf0000000;
  const has = (m: number, px: number, py: number) =>
    m >= 0 && m < 16 && px >= 0 && py >= 0 && set.has((vtBits | (m << 24) | (py << 12) | px) >>> 0);
  for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) if (has(mip, x + dx, y + dy)) return true;
  if (has(mip + 1, x >> 1, y >> 1)) return true;
  for (let dy = 0; dy <= 1; dy++)
    for (let dx = 0; dx <= 1; dx++) if (has(mip - 1, 2 * x + dx, 2 * y + dy)) return true;
  return false;
}

/**
 * The GPU feedback pass requests the pages the simulator (src/sim) predicts for the same
 * perspective camera and the same rotating sub-pixel offset, under each filtering mode's mip rule
 * (src/core/vt/feedback/mip-rule.ts) on an oblique view. Quad derivatives over 8-pixel
 * feedback pixels differ slightly from the simulator's exact Jacobian, so mips may differ by one at
 * mip boundaries and pages by one at tile edges; anything further is a bug.
 */
for (const [filtering, fog, mode] of [
  ['bilinear', false, 'separate-pass'],
  ['bilinear', true, 'separate-pass'],
  ['trilinear', false, 'separate-pass'],
  ['anisotropic', false, 'separate-pass'],
  ['bilinear', false, 'main-pass'],
  ['trilinear', false, 'main-pass'],
  ['anisotropic', false, 'main-pass'],
] as const) {
  const main = mode === 'main-pass';
  test(`${filtering}: feedback requests match the simulator for the same camera${fog ? ', with scene fog' : ''}${main ? ', written by the main pass' : ''}`, {
    tag: filtering === 'bilinear' && !fog ? [] : EXTENDED,
  }, async ({ page, openPage, backend }) => {
    // The main pass writes requests on WebGPU only (WebGL2 keeps the separate pass).
    test.skip(main && backend !== 'webgpu', 'main-pass feedback is WebGPU only');
    await openPage(VT_SCENE, { budget: 64 * 1024 * 1024, fog: fog ? 1 : 0, filtering, feedback: mode });
    await waitForScene(page);
    const frames = await page.evaluate(async () => {
      vtScene.setPose(0.3, 0.05, 0.2, 0.4, -0.5);
      await vtScene.waitReady();
      vtScene.step(2); // compiles the request material
      const out = [];
      for (let i = 0; i < 5; i++) {
        const r = await vtScene.stepAndCompareFeedback();
        if (r) out.push(r);
        if (i === 2) vtScene.setPose(0.6, 0.08, 0.5, -1.2, -0.35);
      }
      return out;
    });
    expect(frames.length).toBeGreaterThanOrEqual(4);
    for (const frame of frames) {
      expect(frame.sim.length).toBeGreaterThan(10);
      const sim = new Set(frame.sim);
      const gpu = new Set(frame.gpu);
      const gpuExplained = frame.gpu.filter((id) => explained(id, sim)).length / frame.gpu.length;
      const simExplained = frame.sim.filter((id) => explained(id, gpu)).length / frame.sim.length;
      const exact =
        frame.gpu.filter((id) => sim.has(id)).length / Math.max(frame.gpu.length, frame.sim.length);
      const detail = JSON.stringify({ gpuExplained, simExplained, exact, pixels: frame.pixelAgreement });
      expect(gpuExplained, detail).toBeGreaterThanOrEqual(0.98);
      expect(simExplained, detail).toBeGreaterThanOrEqual(0.98);
      expect(exact, detail).toBeGreaterThanOrEqual(0.75);
      expect(frame.pixelAgreement, detail).toBeGreaterThanOrEqual(0.85);
    }
  });
}

/** A material sampling two virtual textures gets pages of both requested (in alternate frames). */
for (const mode of ['separate-pass', 'main-pass'] as const) {
  test(`a material sampling two virtual textures requests pages of both (${mode})`, async ({
    page,
    openPage,
    backend,
  }) => {
    test.skip(mode === 'main-pass' && backend !== 'webgpu', 'main-pass feedback is WebGPU only');
    await openPage(VT_SCENE, { two: 1, budget: 32 * 1024 * 1024, feedback: mode });
    await waitForScene(page);
    const result = await page.evaluate(async () => {
      vtScene.setOrthoView(0.3, 0.6, 2.3);
      await vtScene.waitReady();
      await vtScene.settle(100);
      return { vts: vtScene.requestedVts(), resident: vtScene.stats().residentPages };
    });
    expect(result.vts).toEqual([0, 1]);
  });
}

/**
 * With requests written by the main render (WebGPU): no feedback pass is drawn, the readbacks are
 * compacted lists (far smaller than the separate pass's image), streaming settles and the settled
 * frame shows the analytic content as exactly as with the separate pass.
 */
test('main-pass feedback: streams to the analytic content with compact readbacks, within the budget', async ({
  page,
  openPage,
  backend,
}) => {
  test.skip(backend !== 'webgpu', 'main-pass feedback is WebGPU only');
  const results: Record<
    string,
    {
      psnr: number;
      garbage: number;
      bytesPerReadback: number;
      mode: string;
      feedbackBytes: number;
      reserved: number;
    }
  > = {};
  for (const mode of ['separate-pass', 'main-pass'] as const) {
    await openPage(VT_SCENE, { budget: 64 * 1024 * 1024, feedback: mode });
    await waitForScene(page);
    results[mode] = await page.evaluate(async () => {
      vtScene.setOrthoView(0.37, 0.61, 1.4);
      await vtScene.waitReady();
      await vtScene.settle(300);
      const c = await vtScene.compare(1.4);
      const s = vtScene.stats() as unknown as {
        feedbackMode: string;
        readbacks: { delivered: number; bytesRead: number };
        gpuBytes: { feedbackTargets: number; readbackBuffers: number };
        byCategory: { feedback: number; readback: number };
      };
      return {
        psnr: c.psnr,
        garbage: c.garbagePixels,
        bytesPerReadback: s.readbacks.bytesRead / Math.max(1, s.readbacks.delivered),
        mode: s.feedbackMode,
        feedbackBytes: s.gpuBytes.feedbackTargets + s.gpuBytes.readbackBuffers,
        reserved: s.byCategory.feedback + s.byCategory.readback,
      };
    });
  }
  const separate = results['separate-pass'];
  const main = results['main-pass'];
  const detail = JSON.stringify(results);
  expect(main.mode, detail).toBe('main-pass');
  expect(main.garbage, detail).toBe(0);
  expect(main.psnr, detail).toBeGreaterThanOrEqual(separate.psnr - 0.5);
  expect(main.bytesPerReadback, detail).toBeLessThan(separate.bytesPerReadback / 2);
  expect(main.feedbackBytes, detail).toBeLessThanOrEqual(main.reserved);
});
