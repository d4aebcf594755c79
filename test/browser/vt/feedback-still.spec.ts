import type { Page } from '@playwright/test';
import { pageMip, pageX, pageY } from '../../../src/core/vt/page-id';
import { expect, test } from '../fixtures';
import { VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

/*
 * The separate feedback pass (WebGL2, or `feedbackMode: 'separate-pass'` on WebGPU) renders only
 * every `stillFeedbackInterval`-th frame once the view has been still for a jitter cycle, with the
 * jitter advancing per pass rendered, and every frame as soon as anything moves.
 */

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

/** Share of `ids` explained by `set` ({@link explained}). */
function explainedShare(ids: number[], set: Set<number>): number {
  return ids.filter((id) => explained(id, set)).length / Math.max(1, ids.length);
}

/**
 * WebGPU only: counts render passes drawing into the feedback target from here on (three caches
 * its views, so each view is labelled with its texture's label when created, before the page loads).
 */
async function countFeedbackPasses(page: Page, backend: string): Promise<void> {
  if (backend !== 'webgpu') return;
  await page.addInitScript(() => {
    // Not on an error page (a navigation that failed has no WebGPU).
    if (typeof GPUTexture === 'undefined') return;
    const labels = new WeakMap<GPUTextureView, string>();
    const createView = GPUTexture.prototype.createView;
    GPUTexture.prototype.createView = function (this: GPUTexture, descriptor?: GPUTextureViewDescriptor) {
      const view = createView.call(this, descriptor);
      labels.set(view, this.label);
      return view;
    };
    const counter = { feedbackPasses: 0 };
    const beginRenderPass = GPUCommandEncoder.prototype.beginRenderPass;
    GPUCommandEncoder.prototype.beginRenderPass = function (
      this: GPUCommandEncoder,
      descriptor: GPURenderPassDescriptor,
    ) {
      for (const attachment of descriptor.colorAttachments) {
        if (attachment && labels.get(attachment.view as GPUTextureView) === 'tessera:feedback')
          counter.feedbackPasses++;
      }
      return beginRenderPass.call(this, descriptor);
    };
    Object.assign(globalThis, { tesseraFeedbackPasses: counter });
  });
}

/** Feedback render passes counted so far (WebGPU), or -1 on WebGL2. */
function feedbackPasses(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { tesseraFeedbackPasses?: { feedbackPasses: number } }).tesseraFeedbackPasses
        ?.feedbackPasses ?? -1,
  );
}

test('a still view renders the pass every 4th frame, visits all 16 offsets and requests the pages every-frame feedback does', async ({
  page,
  openPage,
  backend,
}) => {
  await countFeedbackPasses(page, backend);
  await openPage(VT_SCENE, { budget: 64 * 1024 * 1024, feedback: 'separate-pass' });
  await waitForScene(page);
  await page.evaluate(async () => {
    // Grazing, so small far pages show at only some of the offsets.
    vtScene.setPose(0.6, 0.04, 0.5, -1.2, -0.2);
    await vtScene.waitReady();
    await vtScene.settle(300);
  });
  const result = await page.evaluate(async () => {
    vtScene.setStillFeedbackInterval(1);
    const everyFrame = await vtScene.gatherFeedback(200, 16);
    vtScene.setStillFeedbackInterval(4);
    // The setter counts as a change; a jitter cycle of still frames later the pass rests.
    await vtScene.gatherFeedback(20);
    const still = await vtScene.gatherFeedback(400, 16);
    return {
      everyFrame,
      still,
      sim: vtScene.simulatedPagesOverCycle(),
      mipBias: vtScene.stats().mipBias,
    };
  });
  const passesAfter = await feedbackPasses(page);
  const { everyFrame, still, sim } = result;
  const summary = {
    everyFrame: { ...everyFrame, pages: everyFrame.pages.length },
    still: { ...still, pages: still.pages.length },
    sim: sim.length,
    mipBias: result.mipBias,
  };
  const detail = JSON.stringify(summary);
  expect(result.mipBias, detail).toBe(0);
  // Every-frame feedback: the pass ran each frame it could read.
  expect(everyFrame.skippedStill, detail).toBe(0);
  expect(everyFrame.started + everyFrame.skipped, detail).toBe(everyFrame.frames);
  // Every offset visited either way: the jitter advances per pass, not per frame.
  expect(everyFrame.phases.length, detail).toBe(16);
  expect(still.phases.length, detail).toBe(16);
  // Still: one frame in 4 tries the pass (a busy ring retries it the next frame).
  expect(still.skippedStill + still.started + still.skipped, detail).toBe(still.frames);
  expect(still.started, detail).toBeGreaterThanOrEqual(16);
  expect(still.started + still.skipped, detail).toBeLessThanOrEqual(
    Math.ceil(still.frames / 4) + still.skipped,
  );
  expect(still.skippedStill, detail).toBeGreaterThanOrEqual(3 * (still.started - 1));
  if (passesAfter >= 0) expect(passesAfter, detail).toBeGreaterThan(0);
  // The same pages over a cycle: a still view loses nothing, and both match the simulator.
  const everySet = new Set(everyFrame.pages);
  const stillSet = new Set(still.pages);
  const simSet = new Set(sim);
  const shares = {
    stillInEvery: still.pages.filter((id) => everySet.has(id)).length / still.pages.length,
    everyInStill: everyFrame.pages.filter((id) => stillSet.has(id)).length / everyFrame.pages.length,
    stillExplainedBySim: explainedShare(still.pages, simSet),
    simExplainedByStill: explainedShare(sim, stillSet),
  };
  const detail2 = JSON.stringify({ ...summary, shares });
  expect(sim.length, detail2).toBeGreaterThan(10);
  expect(shares.stillInEvery, detail2).toBe(1);
  expect(shares.everyInStill, detail2).toBe(1);
  expect(shares.stillExplainedBySim, detail2).toBeGreaterThanOrEqual(0.98);
  expect(shares.simExplainedByStill, detail2).toBeGreaterThanOrEqual(0.98);
});

test('a moving camera renders the pass every frame, from the first frame of the move', async ({
  page,
  openPage,
  backend,
}) => {
  await countFeedbackPasses(page, backend);
  await openPage(VT_SCENE, { budget: 64 * 1024 * 1024, feedback: 'separate-pass' });
  await waitForScene(page);
  await page.evaluate(async () => {
    vtScene.setPose(0.3, 0.05, 0.2, 0.4, -0.5);
    await vtScene.waitReady();
    await vtScene.settle(300);
  });
  const result = await page.evaluate(async () => {
    // Resting first: a jitter cycle of still frames, then a few more.
    const resting = await vtScene.gatherFeedback(24);
    const move = (i: number) => vtScene.setPose(0.3 + 0.003 * (i + 1), 0.05, 0.2, 0.4, -0.5);
    const first = await vtScene.gatherFeedback(1, 0, move);
    const moving = await vtScene.gatherFeedback(12, 0, (i) => move(i + 1));
    return { resting, first, moving };
  });
  const countedBefore = await feedbackPasses(page);
  const detail = JSON.stringify(result);
  expect(result.resting.skippedStill, detail).toBeGreaterThanOrEqual(3);
  for (const run of [result.first, result.moving]) {
    expect(run.skippedStill, detail).toBe(0);
    expect(run.started + run.skipped, detail).toBe(run.frames);
  }
  // The first frame of the move tried the pass (it started, or found every readback busy).
  expect(result.first.frames, detail).toBe(1);
  // WebGPU: one feedback render pass per readback started (nothing drawn for frames that rest).
  if (countedBefore >= 0) {
    const counted = await page.evaluate(async () => {
      const counter = (globalThis as unknown as { tesseraFeedbackPasses: { feedbackPasses: number } })
        .tesseraFeedbackPasses;
      const passes = counter.feedbackPasses;
      const run = await vtScene.gatherFeedback(40);
      const move = await vtScene.gatherFeedback(8, 0, (i) =>
        vtScene.setPose(0.35 + 0.003 * i, 0.05, 0.2, 0.4, -0.5),
      );
      return { run, move, passes: counter.feedbackPasses - passes };
    });
    const countedDetail = JSON.stringify(counted);
    expect(counted.passes, countedDetail).toBe(counted.run.started + counted.move.started);
    // The first 16 still frames after the move keep the full rate, then 3 frames in 4 rest.
    expect(counted.run.skippedStill, countedDetail).toBeGreaterThanOrEqual(12);
  }
});

test('whenSettled resolves on a view where the pass rests', async ({ page, openPage }) => {
  await openPage(VT_SCENE, { budget: 64 * 1024 * 1024, feedback: 'separate-pass' });
  await waitForScene(page);
  const result = await page.evaluate(async () => {
    vtScene.setPose(0.3, 0.05, 0.2, 0.4, -0.5);
    await vtScene.waitReady();
    const first = await vtScene.waitSettled(600);
    const resting = await vtScene.gatherFeedback(40);
    // Called while resting: resolves at the next pass, a few frames later.
    const again = await vtScene.waitSettled(100);
    return { first, again, resting: resting.skippedStill };
  });
  const detail = JSON.stringify(result);
  expect(result.first, detail).toBeGreaterThan(0);
  expect(result.resting, detail).toBeGreaterThan(20);
  expect(result.again, detail).toBeGreaterThan(0);
});
