import type { TextureBudget } from '../../../src/core/budget/texture-budget';
import type { VirtualTexture } from '../../../src/three/virtual-texture';
import type { VirtualTextureSystem } from '../../../src/three/virtual-texture-system';
import { expect, test } from '../fixtures';
import { type Comparison, VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi & {
  compare(lod: number, tolerance?: number, filtering?: string): Promise<Comparison>;
  trackedBytes(): number;
  budget(): TextureBudget;
  second(): VirtualTexture | null;
  stepPaced(frames: number): Promise<void>;
  debug: {
    system: VirtualTextureSystem;
    vt: VirtualTexture;
    material: { colorNode: unknown; version: number };
    virtualTexture(vt: VirtualTexture): unknown;
  };
};

const MIB = 1024 * 1024;

/** Mean mip shown, weighted by pixels (from a comparison's histogram). */
function meanMip(histogram: number[]): number {
  let sum = 0;
  let n = 0;
  histogram.forEach((count, mip) => {
    sum += count * mip;
    n += count;
  });
  return sum / n;
}

/**
 * Live settings: filtering, uploads per frame and feedback scale change on the running system; the
 * same material (same colour node) follows, and the settled frame matches the analytic content of
 * the new mode.
 */
test('filtering, uploads per frame and feedback scale change without a rebuild', async ({
  page,
  openPage,
}) => {
  await openPage(VT_SCENE, { filtering: 'bilinear' });
  await waitForScene(page);
  const result = await page.evaluate(async () => {
    const system = vtScene.debug.system;
    const material = vtScene.debug.material;
    const node = material.colorNode;
    vtScene.setOrthoView(0.31, 0.62, 2.3);
    await vtScene.waitReady();
    await vtScene.settle(150);
    const bilinear = await vtScene.compare(2.3);
    system.setFiltering('trilinear');
    await vtScene.settle(150);
    const trilinear = await vtScene.compare(2.3);
    // The same frame judged as bilinear: the mode really changed.
    const asBilinear = await vtScene.compare(2.3, 10, 'bilinear');
    const sameNode = material.colorNode === node;
    system.setMaxUploadsPerFrame(1);
    vtScene.setOrthoView(0.7, 0.2, 0.4);
    const uploads: number[] = [];
    for (let i = 0; i < 12; i++) {
      vtScene.step();
      uploads.push(vtScene.stats().uploadsLastFrame);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    const before = system.stats().feedbackSize;
    system.setFeedbackScale(4);
    vtScene.step();
    const after = system.stats().feedbackSize;
    const invalid: string[] = [];
    for (const bad of [
      () => system.setFiltering('cubic' as never),
      () => system.setMaxUploadsPerFrame(0),
      () => system.setFeedbackScale(-2),
    ]) {
      try {
        bad();
      } catch (error) {
        invalid.push((error as { code: string }).code);
      }
    }
    // Bad input changed nothing: the system still streams with the settings it had.
    vtScene.step();
    const unchanged = { uploads: system.maxUploadsPerFrame, scale: system.feedbackScale };
    return {
      bilinear,
      trilinear,
      asBilinear,
      sameNode,
      uploads,
      before,
      after,
      invalid,
      unchanged,
      mode: system.filtering,
    };
  });
  expect(result.bilinear.psnr).toBeGreaterThanOrEqual(35);
  expect(result.trilinear.psnr, JSON.stringify(result.trilinear)).toBeGreaterThanOrEqual(35);
  expect(result.trilinear.garbagePixels).toBe(0);
  expect(result.asBilinear.psnr).toBeLessThan(result.trilinear.psnr - 3);
  expect(result.sameNode).toBe(true);
  expect(Math.max(...result.uploads)).toBeLessThanOrEqual(1);
  expect(Math.max(...result.uploads)).toBe(1);
  expect(result.after.width).toBe(result.before.width * 2);
  expect(result.invalid).toEqual(['invalid-option', 'invalid-option', 'invalid-option']);
  expect(result.unchanged).toEqual({ uploads: 1, scale: 4 });
  expect(result.mode).toBe('trilinear');
});

/**
 * A cut of the system's share: the pool shrinks at once, the independent tracker never sees more
 * than the new share (frame by frame and at its peak), the pinned mips stay (no pixel black or
 * wrong on the very next frame); a raise grows the pool back and the view gets sharper.
 */
test('a budget cut sheds pool slots within the budget at every frame; a raise sharpens again', async ({
  page,
  openPage,
  gpuTracker,
  backend,
}) => {
  await openPage(VT_SCENE, { budget: 24 * MIB, delay: 1 });
  await waitForScene(page);
  const sharp = await page.evaluate(async () => {
    vtScene.setOrthoView(0.4, 0.45, 1.3);
    await vtScene.waitReady();
    await vtScene.settle(200);
    const c = await vtScene.compare(1.3);
    return { comparison: c, stats: vtScene.stats() };
  });
  expect(sharp.comparison.psnr).toBeGreaterThanOrEqual(35);
  await gpuTracker.resetPeak();
  // Just above the minimum: the pinned 21 slots and 8 more (the page tables' share, feedback,
  // readback, staging).
  const cut = await page.evaluate(async () => {
    const system = vtScene.debug.system;
    const s = system.stats();
    const other =
      s.pageTableShareBytes + s.byCategory.feedback + s.byCategory.readback + s.byCategory.staging;
    const share = other + 29 * 128 * 128 * 4;
    const slotsBefore = s.slotCount;
    const totalBefore = s.gpuBytes.total;
    // Free room (the unreserved part of the page tables' share): a cut may copy through it.
    const freeBefore = system.budget.freeBytes;
    const tracker = (
      globalThis as never as {
        __tesseraGpuTracker: {
          resetPeak(): void;
          snapshot(): { byPrefix: Record<string, { peak: number }> };
        };
      }
    ).__tesseraGpuTracker;
    system.setShareBytes(share);
    // The cut itself: never old and new pools at once (at most what was held before).
    const cutPeak = tracker.snapshot().byPrefix['tessera:']?.peak ?? 0;
    tracker.resetPeak();
    const frames = [];
    for (let i = 0; i < 30; i++) {
      vtScene.step();
      const stats = vtScene.stats();
      const frame = {
        tracked: vtScene.trackedBytes(),
        total: stats.gpuBytes.total,
        slots: stats.slotCount,
        garbage: i === 0 ? (await vtScene.compare(1.3)).garbagePixels : 0,
      };
      frames.push(frame);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    await vtScene.settle(200);
    const blurry = await vtScene.compare(1.3);
    let refused = '';
    try {
      system.setShareBytes(1024);
    } catch (error) {
      refused = (error as { code: string }).code;
    }
    const afterPeak = tracker.snapshot().byPrefix['tessera:']?.peak ?? 0;
    return {
      share,
      slotsBefore,
      totalBefore,
      freeBefore,
      cutPeak,
      afterPeak,
      frames,
      blurry,
      refused,
      budget: system.budget.budgetBytes,
    };
  });
  expect(cut.slotsBefore).toBeGreaterThan(300);
  expect(cut.budget).toBe(cut.share);
  for (const f of cut.frames) {
    expect(f.total).toBeLessThanOrEqual(cut.share);
    expect(f.slots).toBeLessThanOrEqual(29);
    if (backend === 'webgpu') expect(f.tracked).toBe(f.total);
  }
  expect(cut.frames[0].garbage, 'the frame right after the cut shows some mip everywhere').toBe(0);
  expect(cut.blurry.garbagePixels).toBe(0);
  expect(meanMip(cut.blurry.mipHistogram)).toBeGreaterThan(meanMip(sharp.comparison.mipHistogram) + 0.5);
  expect(cut.refused).toBe('budget-too-small');
  if (backend === 'webgpu') {
    // Old and new pools at once only in room the budget had free (else shed first).
    expect(cut.cutPeak, 'the reallocation used only free room').toBeLessThanOrEqual(
      cut.totalBefore + cut.freeBefore,
    );
    expect(cut.cutPeak).toBeLessThanOrEqual(24 * MIB);
    expect(cut.afterPeak, 'after the cut, never above the new share').toBeLessThanOrEqual(cut.share);
  }
  const raised = await page.evaluate(async () => {
    vtScene.debug.system.setShareBytes(24 * 1024 * 1024);
    const slots = vtScene.stats().slotCount;
    await vtScene.settle(300);
    return { slots, comparison: await vtScene.compare(1.3), stats: vtScene.stats() };
  });
  if (process.env.TESSERA_PRINT_FIGURES) {
    const peak = `cut peak ${cut.cutPeak} <= before ${cut.totalBefore}; after ${cut.afterPeak} <= share ${cut.share}`;
    const mips = [sharp.comparison, cut.blurry, raised.comparison].map((c) =>
      meanMip(c.mipHistogram).toFixed(2),
    );
    console.log(
      `${backend} budget cut: slots ${cut.slotsBefore} -> ${cut.frames[0].slots} -> ${raised.slots}; ${peak}; mean mip ${mips.join(' -> ')}; PSNR ${sharp.comparison.psnr.toFixed(2)} / ${raised.comparison.psnr.toFixed(2)} dB`,
    );
  }
  expect(raised.slots).toBeGreaterThan(300);
  expect(raised.stats.gpuBytes.total).toBeLessThanOrEqual(24 * MIB);
  expect(
    raised.comparison.psnr,
    JSON.stringify({ ...raised.comparison, s: raised.stats }),
  ).toBeGreaterThanOrEqual(35);
  expect(meanMip(raised.comparison.mipHistogram)).toBeLessThan(meanMip(cut.blurry.mipHistogram) - 0.5);
});

/**
 * With room in the budget for the old and the new pool at once, a resize copies the surviving pages
 * GPU-side (WebGPU copyTextureToTexture, WebGL2 copyTexSubImage2D): the very next frame shows the
 * same picture, with the same pages resident after a grow, and the most recent ones after a shrink.
 */
test('a resize with room for both pools copies the surviving pages GPU-side', async ({ page, openPage }) => {
  await openPage(VT_SCENE, { shared: 40 * MIB, budget: 8 * MIB, delay: 1 });
  await waitForScene(page);
  const result = await page.evaluate(async () => {
    const system = vtScene.debug.system;
    // Away from the streamed textures' quads (they sit just below the plane, between the camera and it).
    vtScene.setOrthoView(0.15, 0.8, 1.3);
    await vtScene.waitReady();
    await vtScene.stepPaced(90);
    const settled = await vtScene.compare(1.3);
    const before = vtScene.stats();
    system.setShareBytes(16 * 1024 * 1024);
    vtScene.step();
    const grown = { stats: vtScene.stats(), comparison: await vtScene.compare(1.3) };
    system.setShareBytes(8 * 1024 * 1024);
    vtScene.step();
    const shrunk = { stats: vtScene.stats(), comparison: await vtScene.compare(1.3) };
    return { settled, before, grown, shrunk };
  });
  expect(result.settled.psnr).toBeGreaterThanOrEqual(35);
  expect(result.grown.stats.slotCount).toBeGreaterThan(result.before.slotCount);
  expect(result.grown.stats.residentPages).toBeGreaterThanOrEqual(result.before.residentPages);
  expect(result.grown.comparison.garbagePixels).toBe(0);
  expect(result.grown.comparison.psnr).toBeGreaterThanOrEqual(result.settled.psnr - 0.5);
  expect(result.shrunk.stats.slotCount).toBeLessThan(result.grown.stats.slotCount);
  expect(result.shrunk.comparison.garbagePixels).toBe(0);
  expect(result.shrunk.comparison.psnr).toBeGreaterThanOrEqual(result.settled.psnr - 0.5);
});

/**
 * A cut of a shared budget (TextureBudget.setBudget) with streamed textures in it: the streamed
 * mips go first, then the pool sheds slots; the tracker never sees more than the budget reserves,
 * and within the budget's shed schedule (8 frames) everything is within the new figure. A raise
 * lets the pool grow back.
 */
test('a shared budget cut sheds streamed mips then pool slots; a raise grows the pool back', async ({
  page,
  openPage,
}) => {
  await openPage(VT_SCENE, { shared: 16 * MIB, budget: 12 * MIB, delay: 1 });
  await waitForScene(page);
  const result = await page.evaluate(async () => {
    const budget = vtScene.budget();
    vtScene.setPose(0.5, 0.08, 0.2, 0.2, -0.5);
    await vtScene.waitReady();
    await vtScene.settle(150);
    const slotsBefore = vtScene.stats().slotCount;
    budget.setBudget(6 * 1024 * 1024);
    const frames = [];
    for (let i = 0; i < 16; i++) {
      vtScene.step();
      const b = budget.stats();
      frames.push({ tracked: vtScene.trackedBytes(), live: b.liveBytes, over: b.overBudgetBytes });
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    const slotsCut = vtScene.stats().slotCount;
    const perspective = await vtScene.comparePerspective(10);
    budget.setBudget(16 * 1024 * 1024);
    for (let i = 0; i < 40; i++) {
      vtScene.step();
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return { slotsBefore, slotsCut, slotsRaised: vtScene.stats().slotCount, frames, perspective };
  });
  if (process.env.TESSERA_PRINT_FIGURES) {
    const over = result.frames.map((f) => f.over).join(',');
    console.log(
      `shared cut: slots ${result.slotsBefore} -> ${result.slotsCut} -> ${result.slotsRaised}; over-budget bytes per frame ${over}`,
    );
  }
  for (const f of result.frames) expect(f.tracked).toBeLessThanOrEqual(f.live);
  for (const f of result.frames.slice(8)) {
    expect(f.over).toBe(0);
    expect(f.tracked).toBeLessThanOrEqual(6 * MIB);
  }
  expect(result.slotsCut).toBeLessThan(result.slotsBefore);
  expect(result.perspective.garbagePixels).toBe(0);
  expect(result.slotsRaised).toBeGreaterThan(result.slotsCut);
});

/**
 * remove(vt): its slots, loads and page table go (the tracker sees its page table freed), the other
 * texture keeps streaming, the material that sampled it keeps rendering without errors, and using
 * the removed texture raises a typed error.
 */
test('remove(vt) frees its page table and slots; the others keep streaming', async ({
  page,
  openPage,
  backend,
}) => {
  await openPage(VT_SCENE, { two: 1 });
  await waitForScene(page);
  const result = await page.evaluate(async () => {
    const system = vtScene.debug.system;
    const second = vtScene.second() as VirtualTexture;
    vtScene.setOrthoView(0.3, 0.6, 2.3);
    await vtScene.waitReady();
    await vtScene.stepPaced(60);
    const before = system.stats();
    const secondTable = vtScene.trackedBytes();
    const ownPages = () => {
      let n = 0;
      for (const page of system.streamer.pool.slotPages)
        if (page >>> 28 === second.id && page !== 0xffffffff) n++;
      return n;
    };
    const pagesBefore = ownPages();
    const first = vtScene.debug.vt;
    const firstTableBefore = first.pageTableBytes;
    system.remove(second);
    const trackedDrop = secondTable - vtScene.trackedBytes();
    vtScene.setOrthoView(0.6, 0.3, 1.0);
    // Until the first texture streams again (readbacks can lag for a while on SwiftShader).
    for (let i = 0; i < 300 && system.stats().uploadsTotal === before.uploadsTotal; i++) {
      await vtScene.stepPaced(1);
    }
    await vtScene.stepPaced(10);
    const after = system.stats();
    const errors: string[] = [];
    for (const use of [
      () => system.remove(second),
      () => system.setEvictable(second, true),
      () => vtScene.debug.virtualTexture(second),
    ]) {
      try {
        use();
      } catch (error) {
        errors.push((error as { code: string }).code);
      }
    }
    return {
      before,
      after,
      pagesBefore,
      pagesAfter: ownPages(),
      removed: second.removed,
      errors,
      trackedDrop,
      secondTableBytes: second.pageTableBytes,
      firstTableBefore,
      firstTableAfter: first.pageTableBytes,
    };
  });
  expect(result.removed).toBe(true);
  expect(result.pagesBefore).toBeGreaterThan(0);
  expect(result.pagesAfter).toBe(0);
  // Sparse page tables follow the view: the first texture's may have grown or shrunk meanwhile.
  expect(result.before.gpuBytes.pageTables).toBe(result.firstTableBefore + result.secondTableBytes);
  expect(result.after.gpuBytes.pageTables).toBe(result.firstTableAfter);
  expect(result.after.byCategory['page-table']).toBe(result.after.gpuBytes.pageTables);
  if (backend === 'webgpu') expect(result.trackedDrop).toBe(result.secondTableBytes);
  expect(result.after.uploadsTotal, JSON.stringify(result.after)).toBeGreaterThan(result.before.uploadsTotal);
  expect(result.after.residentPages).toBeGreaterThan(result.before.residentPages - result.pagesBefore);
  expect(result.errors).toEqual(['unknown-texture', 'unknown-texture', 'unknown-texture']);
});
