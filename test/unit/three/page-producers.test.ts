import { vec4 } from 'three/tsl';
import { describe, expect, it } from 'vitest';
import { TextureBudget } from '../../../src/core/budget/texture-budget';
import type { TileSource } from '../../../src/core/vt/tile-source';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import type { BackendBridge } from '../../../src/three/backend-bridge';
import { PageProducers, type PageProducersOptions } from '../../../src/three/page-producers';
import { RenderedTileSource } from '../../../src/three/rendered/rendered-tile-source';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const bridge = {} as BackendBridge;
const world = { x: -100, y: -50, width: 400, height: 200 };
const targetBytes = 2 * 32 * 32 * 4;

const rendered = () =>
  new RenderedTileSource({
    widthPages: 8,
    heightPages: 8,
    tileSize: 32,
    border: 2,
    world,
    layers: [
      { name: 'albedo', node: () => vec4(1, 0, 0, 1) as never },
      { name: 'normal', colorSpace: 'linear', usage: 'normal', node: () => vec4(0.5, 0.5, 1, 1) as never },
    ],
  });

/** A source of bytes (never loaded here: only its kind matters). */
const bytes: TileSource = {
  info: {
    widthPages: 8,
    heightPages: 8,
    tileSize: 32,
    border: 2,
    layers: [{ name: 'albedo', format: 'rgba8unorm-srgb' }],
  },
  load: () => Promise.reject(new Error('not loaded in this test')),
};

function producers(budget: TextureBudget, makeRoom: () => void = () => {}): PageProducers {
  const options: PageProducersOptions = {
    budget,
    poolFormats: ['rgba8unorm-srgb', 'rgba8unorm'],
    tileSize: 32,
    maxRendersPerFrame: 4,
    layers: [{ name: 'albedo' }, { name: 'normal', rendered: 'rgba8' }],
    makeRoom,
  };
  return new PageProducers(bridge, options);
}

describe('PageProducers (the rendered-tiles seam, no GPU)', () => {
  it('holds nothing of rendered tiles until the first rendered texture, then reserves its targets once', () => {
    const budget = new TextureBudget({ budgetBytes: 1 << 20 });
    const p = producers(budget);
    p.choose(0, bytes, new Int8Array([0, -1]));
    expect(p.of(0)).toBeNull();
    expect(p.admit(0)).toBe(true);
    expect(p.renderCounters).toEqual({
      renderedLastFrame: 0,
      renderedTotal: 0,
      rerenderedTotal: 0,
      refreshQueued: 0,
      compressedTotal: 0,
    });
    expect([p.reservedBytes, p.allocatedBytes, p.budgetedBytes, budget.liveBytes]).toEqual([0, 0, 0, 0]);

    p.maxRendersPerFrame = 2;
    p.choose(1, rendered(), new Int8Array([0, 1]));
    expect(p.of(1)).not.toBeNull();
    expect(p.of(0)).toBeNull();
    expect(p.maxRendersPerFrame).toBe(2);
    expect(p.reservedBytes).toBe(targetBytes);
    expect(budget.liveBytes).toBe(targetBytes);
    expect(p.allocatedBytes).toBe(0); // render targets are created at the first render
    p.choose(2, rendered(), new Int8Array([0, 1]));
    expect(budget.liveBytes).toBe(targetBytes);
    p.release(1);
    expect(p.of(1)).toBeNull();
    p.dispose();
    expect(budget.liveBytes).toBe(0);
  });

  it('keeps pool layers of rendered pages for rendered sources, before the texture is registered', () => {
    const p = producers(new TextureBudget({ budgetBytes: 1 << 20 }));
    expect(() => p.checkLayers('cpu', bytes, new Int8Array([-1, 0]))).toThrow(
      expect.objectContaining({ code: 'invalid-layers' }),
    );
    expect(() => p.checkLayers('cpu', bytes, new Int8Array([0, -1]))).not.toThrow();
    expect(() => p.checkLayers('rvt', rendered(), new Int8Array([0, 1]))).not.toThrow();
  });

  it('leaves nothing behind when the first rendered texture does not fit', () => {
    const budget = new TextureBudget({ budgetBytes: targetBytes + 100 });
    const blocker = budget.reserve('vt-pool', 200);
    let asked = 0;
    const p = producers(budget, () => {
      asked++;
      // While reserving, the pool is told to leave the targets' bytes.
      expect(p.budgetedBytes).toBe(targetBytes);
    });
    expect(() => p.choose(0, rendered(), new Int8Array([0, 1]))).toThrow(
      expect.objectContaining({ code: 'budget-too-small' }),
    );
    expect(asked).toBe(1);
    expect([p.of(0), p.reservedBytes, p.budgetedBytes]).toEqual([null, 0, 0]);
    expect(budget.liveBytes).toBe(200);
    budget.release(blocker);
    p.choose(0, rendered(), new Int8Array([0, 1]));
    expect(p.reservedBytes).toBe(targetBytes);
    p.dispose();
  });

  it('invalidates rendered textures only, by uv or in world units', async () => {
    const s = rendered();
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 100 },
      textures: [{ source: s }, { source: bytes }],
    });
    for (let frame = 1; frame <= 4; frame++) {
      streamer.beginFrame(frame);
      streamer.update();
      await flush();
      streamer.drainUploads(
        () => true,
        100,
        undefined,
        (vt) => vt === 0,
      );
    }
    const p = producers(new TextureBudget({ budgetBytes: 1 << 20 }));
    p.choose(0, s, new Int8Array([0, 1]));
    p.choose(1, bytes, new Int8Array([0, -1]));
    // uv (0.3..0.36, 0.6..0.62) is world (20..44, 70..74): one page at each pinned mip 1..3.
    expect(p.invalidate(0, 'rvt', s, { x: 20, y: 70, width: 24, height: 4 }, 'world', streamer)).toBe(3);
    expect(p.invalidate(0, 'rvt', s, { minU: 0, minV: 0, maxU: 1, maxV: 1 }, 'uv', streamer)).toBe(18);
    expect(p.renderCounters.refreshQueued).toBe(21);
    expect(() =>
      p.invalidate(1, 'cpu', bytes, { minU: 0, minV: 0, maxU: 1, maxV: 1 }, 'uv', streamer),
    ).toThrow(
      expect.objectContaining({
        code: 'invalid-option',
        message: expect.stringContaining("'cpu' is not rendered"),
      }),
    );
    expect(() => p.invalidate(0, 'rvt', s, { minU: 1, minV: 0, maxU: 0, maxV: 1 }, 'uv', streamer)).toThrow(
      expect.objectContaining({ code: 'invalid-option' }),
    );
    p.release(0);
    expect(p.renderCounters.refreshQueued).toBe(0);
    p.dispose();
    streamer.dispose();
  });
});
