import { describe, expect, it } from 'vitest';
import { textureLevelRangeBytes } from '../../../src/core/index';
import { addTexture, makeSystem } from './setup';

type System = ReturnType<typeof makeSystem>;

/** Bytes of level `level` of a `size`² rgba8 texture. */
const levelBytes = (size: number, level: number) =>
  textureLevelRangeBytes(
    { format: 'rgba8unorm', width: size, height: size, mipLevelCount: 32 - Math.clz32(size) },
    level,
    1,
  );

/**
 * Counts the bytes a source would serve: every allocation loads the levels its texture does not
 * hold (no CPU cache, so a level shed and wanted again counts again: the planner's worst case).
 */
function countDownloads(system: System, sizes: Map<number, number>) {
  const counter = { bytes: 0 };
  const allocate = system.backend.allocate.bind(system.backend);
  system.backend.allocate = (id, firstMip, mipCount) => {
    const size = sizes.get(id) as number;
    const held = system.planner.isRenderable(id) ? system.planner.residentMipOf(id) : firstMip + mipCount;
    for (let level = firstMip; level < Math.min(held, firstMip + mipCount); level++)
      counter.bytes += levelBytes(size, level);
    allocate(id, firstMip, mipCount);
  };
  return counter;
}

/** A scene of textures of several sizes and screen sizes (so several importances, some equal). */
function scene(budgetBytes: number, latency: number) {
  const system = makeSystem(budgetBytes, {}, latency);
  const sizes = new Map<number, number>();
  const views: { id: number; px: number }[] = [];
  const shapes = [
    [1024, 1024],
    [1024, 1024],
    [1024, 512],
    [512, 512],
    [512, 512],
    [512, 300],
    [256, 256],
    [2048, 900],
  ];
  for (const [size, px] of shapes) {
    const id = addTexture(system, size);
    sizes.set(id, size);
    views.push({ id, px });
  }
  return { system, sizes, views, downloads: countDownloads(system, sizes) };
}

/** Runs frames (need refreshed every 4) until every texture is settled; returns that frame. */
function runUntilSettled(s: ReturnType<typeof scene>, maxFrames: number): number {
  for (let frame = 1; frame <= maxFrames; frame++) {
    if (frame % 4 === 1) for (const v of s.views) s.system.planner.setScreenNeed(v.id, v.px, 1, frame);
    s.system.planner.update(frame);
    s.system.backend.tick();
    if (s.system.planner.loadsInFlight === 0 && s.views.every((v) => s.system.planner.isSettled(v.id)))
      return frame;
  }
  return -1;
}

describe('MipStreamingPlanner below the view need', () => {
  for (const latency of [0, 3]) {
    it(`settles at a quarter of the need within 1.1x the unconstrained download (latency ${latency} frames)`, () => {
      const free = scene(256 << 20, latency);
      const freeFrame = runUntilSettled(free, 500);
      expect(freeFrame).toBeGreaterThan(0);
      const need = free.system.budget.liveBytes;
      const tight = scene(Math.floor(need / 4), latency);
      const settledAt = runUntilSettled(tight, 500);
      expect(settledAt).toBeGreaterThan(0);
      expect(settledAt).toBeLessThan(freeFrame + 60);
      expect(tight.downloads.bytes).toBeLessThanOrEqual(1.1 * free.downloads.bytes);
      expect(tight.system.budget.peakBytes).toBeLessThanOrEqual(Math.floor(need / 4));
      // Stays settled: no further loads or frees while the view holds still.
      const allocations = tight.system.backend.allocations.length;
      const frees = tight.system.backend.frees.length;
      for (let frame = settledAt + 1; frame < settledAt + 300; frame++) {
        if (frame % 4 === 1)
          for (const v of tight.views) tight.system.planner.setScreenNeed(v.id, v.px, 1, frame);
        tight.system.planner.update(frame);
        tight.system.backend.tick();
      }
      expect(tight.system.backend.allocations.length).toBe(allocations);
      expect(tight.system.backend.frees.length).toBe(frees);
      // The least important textures are the coarser ones.
      const mips = tight.views.map((v) => tight.system.planner.residentMipOf(v.id));
      // The less important of two alike textures (512² at 512 and at 300 px) is no finer.
      expect(mips[5]).toBeGreaterThanOrEqual(mips[3]);
    });
  }
});
