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
for (const [filtering, fog] of [
  ['bilinear', false],
  ['bilinear', true],
  ['trilinear', false],
  ['anisotropic', false],
] as const) {
  test(`${filtering}: feedback requests match the simulator for the same camera${fog ? ', with scene fog' : ''}`, {
    tag: filtering === 'bilinear' && !fog ? [] : EXTENDED,
  }, async ({ page, openPage }) => {
    await openPage(VT_SCENE, { budget: 64 * 1024 * 1024, fog: fog ? 1 : 0, filtering });
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
test('a material sampling two virtual textures requests pages of both', async ({ page, openPage }) => {
  await openPage(VT_SCENE, { two: 1, budget: 32 * 1024 * 1024 });
  await waitForScene(page);
  const result = await page.evaluate(async () => {
    vtScene.setOrthoView(0.3, 0.6, 2.3);
    await vtScene.waitReady();
    await vtScene.settle(100);
    return { vts: vtScene.requestedVts(), resident: vtScene.stats().residentPages };
  });
  expect(result.vts).toEqual([0, 1]);
});
