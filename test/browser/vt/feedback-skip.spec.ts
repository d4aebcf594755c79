import { expect, test } from '../fixtures';
import { settleStartView, VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

/**
 * A frame that finds every feedback readback still in flight renders no feedback pass: its
 * requests could never be read, and the pass is a second render of the scene. Twelve frames back
 * to back in one task give the readbacks no turn of the event loop to complete, so after the
 * ring's 3 slots fill, the other frames must skip the pass, not only its readback. Counted at the
 * WebGPU API: render passes whose colour attachment is a view of the feedback target.
 */
test('frames with every readback in flight render no feedback pass', async ({ page, openPage, backend }) => {
  test.skip(
    backend === 'webgl',
    'counted through WebGPU render passes; the skip itself is backend-independent',
  );
  // Before the page loads, so every view three makes (and caches) is known by its texture's label.
  await page.addInitScript(() => {
    const labels = new WeakMap<GPUTextureView, string>();
    const createView = GPUTexture.prototype.createView;
    GPUTexture.prototype.createView = function (this: GPUTexture, descriptor?: GPUTextureViewDescriptor) {
      const view = createView.call(this, descriptor);
      labels.set(view, this.label);
      return view;
    };
    Object.assign(globalThis, { tesseraViewLabels: labels });
  });
  // still=1: the pass is tried every frame even on this still view (feedback-still.spec.ts tests resting).
  await openPage(VT_SCENE, { budget: 16 * 1024 * 1024, feedback: 'separate-pass', still: 1 });
  await waitForScene(page);
  await settleStartView(page);
  const result = await page.evaluate(async () => {
    // Let the readbacks in flight land, so the ring starts empty.
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const viewLabels = (globalThis as unknown as { tesseraViewLabels: WeakMap<GPUTextureView, string> })
      .tesseraViewLabels;
    const encoder = GPUCommandEncoder.prototype;
    const beginRenderPass = encoder.beginRenderPass;
    let feedbackPasses = 0;
    let passes = 0;
    encoder.beginRenderPass = function (this: GPUCommandEncoder, descriptor: GPURenderPassDescriptor) {
      passes++;
      for (const attachment of descriptor.colorAttachments) {
        if (attachment && viewLabels.get(attachment.view as GPUTextureView) === 'tessera:feedback')
          feedbackPasses++;
      }
      return beginRenderPass.call(this, descriptor);
    };
    const frames = 12;
    try {
      const before = vtScene.stats().readbacks;
      vtScene.step(frames);
      const after = vtScene.stats().readbacks;
      return {
        frames,
        passes,
        feedbackPasses,
        started: after.started - before.started,
        skipped: after.skipped - before.skipped,
      };
    } finally {
      encoder.beginRenderPass = beginRenderPass;
    }
  });
  const detail = JSON.stringify(result);
  expect(result.started + result.skipped, detail).toBe(result.frames);
  expect(result.started, detail).toBeGreaterThanOrEqual(1);
  expect(result.skipped, detail).toBeGreaterThanOrEqual(result.frames - 3);
  // One feedback pass per readback started, none for the frames that skipped.
  expect(result.feedbackPasses, detail).toBe(result.started);
  // The main render still ran every frame.
  expect(result.passes - result.feedbackPasses, detail).toBeGreaterThanOrEqual(result.frames);
});

/**
 * Main-pass feedback (WebGPU): the scene is drawn once per frame, with no feedback render pass at
 * all; the requests come from the main render, compacted by two compute passes per readback.
 */
test('main-pass feedback draws each frame once: no feedback render pass', async ({
  page,
  openPage,
  backend,
}) => {
  test.skip(backend === 'webgl', 'WebGL2 keeps the separate pass');
  await openPage(VT_SCENE, { budget: 16 * 1024 * 1024, feedback: 'main-pass' });
  await waitForScene(page);
  await settleStartView(page);
  const result = await page.evaluate(async () => {
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const encoder = GPUCommandEncoder.prototype;
    const beginRenderPass = encoder.beginRenderPass;
    const beginComputePass = encoder.beginComputePass;
    let passes = 0;
    let computePasses = 0;
    encoder.beginRenderPass = function (this: GPUCommandEncoder, descriptor: GPURenderPassDescriptor) {
      passes++;
      return beginRenderPass.call(this, descriptor);
    };
    encoder.beginComputePass = function (this: GPUCommandEncoder, descriptor?: GPUComputePassDescriptor) {
      if (descriptor?.label === 'tessera:feedback-compaction') computePasses++;
      return beginComputePass.call(this, descriptor);
    };
    const frames = 12;
    try {
      const before = vtScene.stats().readbacks;
      for (let i = 0; i < frames; i++) {
        vtScene.step();
        await vtScene.gpuIdle();
      }
      const after = vtScene.stats().readbacks;
      return { frames, passes, computePasses, started: after.started - before.started };
    } finally {
      encoder.beginRenderPass = beginRenderPass;
      encoder.beginComputePass = beginComputePass;
    }
  });
  const detail = JSON.stringify(result);
  expect(result.passes, detail).toBe(result.frames);
  expect(result.started, detail).toBeGreaterThanOrEqual(1);
  expect(result.computePasses, detail).toBe(2 * result.started);
});
