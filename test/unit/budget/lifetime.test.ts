import { describe, expect, it } from 'vitest';
import { ManagedTextureRegistry, StaleSweep } from '../../../src/core/index';

describe('lifetimes and the stale sweep', () => {
  it('applies tag policies: transient by time, scene when ended, persistent never, custom by frames', () => {
    const registry = new ManagedTextureRegistry();
    const evicted: number[] = [];
    registry.addEvictListener((id) => evicted.push(id));
    const sweep = new StaleSweep(registry, { cadenceFrames: 10 });
    sweep.setPolicy('ui', { kind: 'idle-frames', frames: 100 });
    const persistent = registry.register({ tag: 'persistent' });
    const transient = registry.register({ tag: 'transient' });
    const scene = registry.register({ tag: 'scene:forest' });
    const ui = registry.register({ tag: 'ui' });
    expect(sweep.sweep(50, 1999)).toBe(0);
    expect(sweep.sweep(100, 2000)).toBe(2); // transient (2 s) and ui (100 frames)
    expect(evicted).toEqual([transient, ui]);
    sweep.endScene('forest');
    expect(sweep.sweep(100000, 1e9)).toBe(1);
    expect(evicted).toEqual([transient, ui, scene]);
    expect(registry.has(persistent)).toBe(true);
  });

  it('touching keeps a texture; retained textures are never swept', () => {
    const registry = new ManagedTextureRegistry();
    const sweep = new StaleSweep(registry, { transient: { kind: 'idle-frames', frames: 10 } });
    const a = registry.register({ tag: 'transient' });
    const b = registry.register({ tag: 'transient' });
    registry.touch(a, 20);
    registry.retain(b);
    registry.retain(b);
    expect(sweep.sweep(25)).toBe(0);
    registry.release(b);
    expect(sweep.sweep(25)).toBe(0);
    registry.release(b);
    expect(sweep.sweep(25)).toBe(1);
    expect(registry.has(b)).toBe(false);
    expect(sweep.sweep(30)).toBe(1);
  });

  it('runs on its cadence only', () => {
    const registry = new ManagedTextureRegistry();
    const sweep = new StaleSweep(registry, {
      cadenceFrames: 5,
      transient: { kind: 'idle-frames', frames: 0 },
    });
    registry.register({ tag: 'transient' });
    const counts = [1, 2, 3, 4, 5].map((f) => sweep.update(f));
    expect(counts).toEqual([0, 0, 0, 0, 1]);
  });

  it('types double releases and unknown textures', () => {
    const registry = new ManagedTextureRegistry();
    const id = registry.register();
    expect(() => registry.release(id)).toThrow(expect.objectContaining({ code: 'released-twice' }));
    registry.evict(id);
    expect(() => registry.evict(id)).toThrow(expect.objectContaining({ code: 'released-twice' }));
    expect(() => registry.retain(id)).toThrow(expect.objectContaining({ code: 'released-twice' }));
    expect(() => registry.evict(987654321)).toThrow(expect.objectContaining({ code: 'unknown-texture' }));
    expect(() => registry.evict(-3)).toThrow(expect.objectContaining({ code: 'unknown-texture' }));
    expect(() => new StaleSweep(registry, { cadenceFrames: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid-option' }),
    );
  });
});
