import { describe, expect, it } from 'vitest';
import type { TesseraError } from '../../../src/core/errors';
import { textureLevelRangeBytes } from '../../../src/core/index';
import { addTexture, makeSystem } from './setup';

const chain = (size: number, level: number) => {
  const full = 32 - Math.clz32(size);
  return textureLevelRangeBytes(
    { format: 'rgba8unorm', width: size, height: size, mipLevelCount: full },
    level,
    full - level,
  );
};

describe('MipStreamingPlanner', () => {
  it('loads the pinned chain (<= 64 texels) as the texture is added, then the wanted level', () => {
    const system = makeSystem(64 << 20);
    const id = addTexture(system, 1024);
    // Asked for at once, before any update (this fake backend completes loads synchronously).
    expect(system.backend.allocations[0]).toEqual({ id, firstMip: 4, mipCount: 7 });
    system.planner.update(0);
    expect(system.planner.isRenderable(id)).toBe(true);
    // 1024 texels per world unit, mesh 1 world unit seen at 256 px => level 2
    system.planner.setScreenNeed(id, 256, 1, 1);
    system.planner.update(1);
    expect(system.planner.residentMipOf(id)).toBe(2);
    expect(system.budget.liveBytes).toBe(chain(1024, 4) + chain(1024, 2));
  });

  it('loads finer mips in priority order (bigger on screen first)', () => {
    const system = makeSystem(64 << 20, { maxLoadsInFlight: 1 }, 1);
    const small = addTexture(system, 512);
    const big = addTexture(system, 512);
    for (let f = 0; f < 4; f++) {
      system.planner.update(f);
      system.backend.tick();
    }
    system.planner.setScreenNeed(small, 128, 1, 4);
    system.planner.setScreenNeed(big, 512, 1, 4);
    system.planner.update(5);
    expect(system.backend.allocations.at(-1)!.id).toBe(big);
  });

  it('under pressure drops the finest mips of the least important texture first', () => {
    const budgetBytes = chain(1024, 0) + chain(1024, 1) + 2 * chain(1024, 4) + chain(1024, 2);
    const system = makeSystem(budgetBytes);
    const important = addTexture(system, 1024, 'persistent');
    const unimportant = addTexture(system, 1024, 'transient');
    system.planner.update(0);
    system.planner.setScreenNeed(unimportant, 1024, 1, 1);
    system.planner.update(1);
    expect(system.planner.residentMipOf(unimportant)).toBe(0);
    system.planner.setScreenNeed(important, 1024, 1, 2);
    system.planner.setScreenNeed(unimportant, 256, 1, 2);
    system.planner.update(2);
    expect(system.planner.residentMipOf(important)).toBe(0);
    expect(system.planner.residentMipOf(unimportant)).toBeGreaterThan(0);
    expect(system.budget.peakBytes).toBeLessThanOrEqual(budgetBytes);
  });

  it('does not flap under an oscillating need (hysteresis)', () => {
    const system = makeSystem(64 << 20, { dropAfterFrames: 10 });
    const id = addTexture(system, 1024);
    system.planner.update(0);
    // wanted alternates between 2.9 and 3.2 levels: never passes the grow margin below 3, never 1 level above
    system.planner.setScreenNeed(id, 1024 / 2 ** 2.7, 1, 1);
    system.planner.update(1);
    expect(system.planner.residentMipOf(id)).toBe(2);
    const allocationsBefore = system.backend.allocations.length;
    for (let f = 2; f < 200; f++) {
      const level = f % 2 === 0 ? 2.9 : 3.2;
      system.planner.setScreenNeed(id, 1024 / 2 ** level, 1, f);
      system.planner.update(f);
    }
    expect(system.backend.allocations.length).toBe(allocationsBefore);
    expect(system.backend.frees.length).toBe(0);
    // a sustained coarser need drops after dropAfterFrames
    for (let f = 200; f < 215; f++) {
      system.planner.setScreenNeed(id, 1024 / 2 ** 3.5, 1, f);
      system.planner.update(f);
    }
    expect(system.planner.residentMipOf(id)).toBe(3);
  });

  it('keeps the placeholder and raises an error when a load fails', () => {
    const errors: TesseraError[] = [];
    const system = makeSystem(64 << 20, { onLoadFailed: (_id, error) => errors.push(error) });
    const id = system.registry.register({ tag: 'persistent' });
    system.backend.failIds.add(id);
    system.planner.add(id, { format: 'bc7-rgba-unorm', width: 512, height: 512, uvDensity: 1 });
    system.planner.update(0);
    expect(system.planner.isRenderable(id)).toBe(false);
    expect(system.planner.hasFailed(id)).toBe(true);
    expect(errors[0].code).toBe('texture-load-failed');
    expect(system.budget.liveBytes).toBe(0);
  });

  it('lets a texture whose load failed load again once its cool-down ends', () => {
    const errors: TesseraError[] = [];
    const system = makeSystem(64 << 20, {
      onLoadFailed: (_id, error) => errors.push(error),
      failedCooldownFrames: 50,
    });
    const id = system.registry.register({ tag: 'persistent' });
    system.backend.failIds.add(id);
    system.planner.add(id, { format: 'bc7-rgba-unorm', width: 512, height: 512, uvDensity: 1 });
    system.backend.failIds.delete(id); // the server is back
    const attempts = system.backend.allocations.length;
    for (let frame = 1; frame < 50; frame++) system.planner.update(frame);
    // Cooling down: no new attempt, failed now, and settled (nothing to wait for).
    expect(system.backend.allocations.length).toBe(attempts);
    expect(system.planner.hasFailed(id)).toBe(true);
    expect(system.planner.isSettled(id)).toBe(true);
    system.planner.update(50);
    expect(system.backend.allocations.length).toBe(attempts + 1);
    expect(system.planner.isRenderable(id)).toBe(true);
    expect(system.planner.hasFailed(id)).toBe(false);
    expect(errors.length).toBe(1);
    expect(() => makeSystem(1 << 20, { failedCooldownFrames: -1 })).toThrow(/failedCooldownFrames/);
  });

  it('frees every byte and calls the backend release hook on eviction', () => {
    const system = makeSystem(64 << 20);
    const id = addTexture(system, 512);
    system.planner.update(0);
    system.planner.setScreenNeed(id, 512, 1, 1);
    system.planner.update(1);
    expect(system.budget.liveBytes).toBeGreaterThan(0);
    system.registry.evict(id);
    expect(system.budget.liveBytes).toBe(0);
    expect(system.backend.releases).toEqual([id]);
  });

  it('rejects bad descriptors and unknown ids with typed errors', () => {
    const system = makeSystem(1 << 20);
    const id = system.registry.register();
    expect(() => system.planner.add(id, { format: 'rgba8unorm', width: 0, height: 4, uvDensity: 1 })).toThrow(
      expect.objectContaining({ code: 'invalid-size' }),
    );
    expect(() =>
      system.planner.add(id, { format: 'rgba8unorm', width: 4, height: 4, uvDensity: Number.NaN }),
    ).toThrow(expect.objectContaining({ code: 'invalid-option' }));
    expect(() => system.planner.setScreenNeed(999, 1, 1, 0)).toThrow(
      expect.objectContaining({ code: 'unknown-texture' }),
    );
  });
});
