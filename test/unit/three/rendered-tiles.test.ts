import { Mesh, MeshBasicMaterial } from 'three';
import { vec4 } from 'three/tsl';
import { describe, expect, it } from 'vitest';
import { TextureBudget } from '../../../src/core/budget/texture-budget';
import { TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import type { BackendBridge } from '../../../src/three/backend-bridge';
import { DecalList } from '../../../src/three/rendered/decal-list';
import { RenderedTileSource } from '../../../src/three/rendered/rendered-tile-source';
import { ribbonGeometry } from '../../../src/three/rendered/ribbon-geometry';
import { splatAlbedo } from '../../../src/three/rendered/splat-albedo';
import { TileRenderStage } from '../../../src/three/rendered/tile-render-stage';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const world = { x: -100, y: -50, width: 400, height: 200 };
const source = (widthPages = 8, heightPages = 4) =>
  new RenderedTileSource({
    widthPages,
    heightPages,
    tileSize: 32,
    border: 2,
    world,
    layers: [
      { name: 'albedo', node: () => vec4(1, 0, 0, 1) as never },
      { name: 'normal', colorSpace: 'linear', usage: 'normal', node: () => vec4(0.5, 0.5, 1, 1) as never },
    ],
  });

describe('RenderedTileSource', () => {
  it('declares rgba8 layers by colour space and no staged bytes', () => {
    const s = source();
    expect(s.info.rendered).toBe(true);
    expect(s.info.layers.map((l) => l.format)).toEqual(['rgba8unorm-srgb', 'rgba8unorm']);
    expect(s.info.layers[1].usage).toBe('normal');
  });

  it('resolves an empty token for a page, a typed error for a bad page, a disposed source or an abort', async () => {
    const s = source();
    const signal = new AbortController().signal;
    await expect(s.load(1, 3, 1, signal)).resolves.toEqual({ layers: [] });
    await expect(s.load(0, 8, 0, signal)).rejects.toMatchObject({ code: 'bad-index' });
    await expect(s.load(9, 0, 0, signal)).rejects.toBeInstanceOf(TileSourceError);
    const aborted = new AbortController();
    aborted.abort(new DOMException('stop', 'AbortError'));
    await expect(s.load(0, 0, 0, aborted.signal)).rejects.toMatchObject({ name: 'AbortError' });
    s.dispose();
    await expect(s.load(0, 0, 0, signal)).rejects.toMatchObject({ code: 'source-disposed' });
  });

  it('maps world rectangles to the texture uv and rejects bad construction', () => {
    const uv = source().worldToUv(
      { x: 0, y: 0, width: 100, height: 50 },
      { minU: 0, minV: 0, maxU: 0, maxV: 0 },
    );
    expect(uv).toEqual({ minU: 0.25, minV: 0.25, maxU: 0.5, maxV: 0.5 });
    const layer = { name: 'a', node: () => vec4(1) as never };
    const bad = [
      { world: { ...world, width: 0 }, layers: [layer] },
      { world, layers: [] },
      { world, layers: [layer, layer] },
    ];
    for (const o of bad) {
      expect(() => new RenderedTileSource({ widthPages: 4, heightPages: 4, ...o })).toThrow(
        TesseraConfigError,
      );
    }
    expect(() => new RenderedTileSource({ widthPages: 3, heightPages: 4, world, layers: [layer] })).toThrow(
      TesseraConfigError,
    );
  });
});

describe('decals', () => {
  it('builds a mitred ribbon with uv along its length, and rejects degenerate input', () => {
    const g = ribbonGeometry([0, 0, 10, 0, 10, 10], 2);
    expect(g.getAttribute('position').count).toBe(6);
    expect(Array.from(g.getAttribute('uv').array)).toEqual([0, 0, 0, 1, 10, 0, 10, 1, 20, 0, 20, 1]);
    g.computeBoundingBox();
    expect(g.boundingBox!.min.x).toBeCloseTo(0);
    expect(g.boundingBox!.max.x).toBeCloseTo(11);
    expect(() => ribbonGeometry([0, 0], 2)).toThrow(TesseraConfigError);
    expect(() => ribbonGeometry([0, 0, 1, Number.NaN], 2)).toThrow(TesseraConfigError);
    expect(() => ribbonGeometry([0, 0, 1, 1], 0)).toThrow(TesseraConfigError);
  });

  it('reports the rectangle of every edit, draws into the chosen layers, and rejects misuse', () => {
    const s = source();
    const changes: { x: number; y: number; width: number; height: number }[] = [];
    const decals = new DecalList(s, (rect) => changes.push(rect));
    const mesh = new Mesh(ribbonGeometry([0, 0, 20, 0], 4), new MeshBasicMaterial());
    const added = decals.add(mesh, { layers: [0, 1] });
    expect(added).toMatchObject({ x: 0, y: -2, width: 20, height: 4 });
    expect(mesh.layers.mask).toBe(s.layerMask([0, 1]));
    const moved = decals.update(mesh, (m) => m.position.set(30, 0, 0));
    expect(moved).toMatchObject({ x: 0, y: -2, width: 50, height: 4 });
    const removed = decals.remove(mesh);
    expect(removed).toMatchObject({ x: 30, width: 20 });
    expect(changes).toHaveLength(3);
    expect(s.overlay.children).toHaveLength(0);
    expect(() => decals.remove(mesh)).toThrow(TesseraConfigError);
    expect(() => decals.add(mesh, { layers: [2] })).toThrow(TesseraConfigError);
    decals.add(mesh);
    expect(() => decals.add(mesh)).toThrow(TesseraConfigError);
  });

  it('splat bases need 1..4 layers with positive repeats', () => {
    const tex = {} as never;
    expect(() => splatAlbedo({ splatMap: tex, world, layers: [] })).toThrow(TesseraConfigError);
    expect(() => splatAlbedo({ splatMap: tex, world, layers: [{ texture: tex, repeat: 0 }] })).toThrow(
      TesseraConfigError,
    );
  });
});

describe('TileRenderStage (no GPU: admission, budget, invalidation)', () => {
  const bridge = {} as BackendBridge;
  const formats = ['rgba8unorm-srgb', 'rgba8unorm'] as const;

  it('reserves its targets once, shrinking the pool through makeRoom, else budget-too-small', () => {
    const budget = new TextureBudget({ budgetBytes: 32 * 32 * 4 * 2 + 100 });
    const stage = new TileRenderStage(bridge, budget, formats, 32, 4);
    const s = source();
    const blocker = budget.reserve('vt-pool', 200);
    let asked = 0;
    expect(() =>
      stage.attach(0, s, new Int8Array([0, 1]), () => {
        asked++;
        expect(stage.budgetedBytes).toBe(32 * 32 * 4 * 2);
      }),
    ).toThrow(expect.objectContaining({ code: 'budget-too-small' }));
    expect(asked).toBe(1);
    expect(stage.has(0)).toBe(false);
    stage.attach(0, s, new Int8Array([0, 1]), () => budget.release(blocker));
    expect(stage.reservedBytes).toBe(32 * 32 * 4 * 2);
    expect(budget.liveBytes).toBe(32 * 32 * 4 * 2);
    stage.attach(1, s, new Int8Array([0, 1]), () => expect.unreachable());
    stage.dispose();
    expect(budget.liveBytes).toBe(0);
  });

  it('refuses a rendered texture on a block-compressed pool layer', () => {
    const stage = new TileRenderStage(
      bridge,
      new TextureBudget({ budgetBytes: 1 << 20 }),
      ['bc7-rgba-unorm-srgb'],
      32,
      4,
    );
    expect(() => stage.attach(0, source(), new Int8Array([0]), () => {})).toThrow(
      expect.objectContaining({ code: 'invalid-layers' }),
    );
  });

  it('admits other textures always and rendered ones up to the frame bound', () => {
    const stage = new TileRenderStage(bridge, new TextureBudget({ budgetBytes: 1 << 20 }), formats, 32, 2);
    stage.attach(3, source(), new Int8Array([0, 1]), () => {});
    expect(stage.admit(0)).toBe(true);
    expect(stage.admit(3)).toBe(true);
  });

  it('marks exactly the resident pages a rectangle overlaps, at every mip, each once', async () => {
    const s = source(8, 8);
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 100 }, textures: [{ source: s }] });
    let uploaded = 0;
    for (let frame = 1; frame <= 4; frame++) {
      streamer.beginFrame(frame);
      streamer.update();
      await flush();
      uploaded += streamer.drainUploads(() => true, 100);
    }
    expect(uploaded).toBe(21); // the pinned mips 1..3
    const stage = new TileRenderStage(bridge, new TextureBudget({ budgetBytes: 1 << 20 }), formats, 32, 4);
    stage.attach(0, s, new Int8Array([0, 1]), () => {});
    // uv (0.3..0.36, 0.6..0.62), borders included: mip 1 (4 x 4 pages) page (1, 2); mip 2 (0, 1); mip 3 (0, 0).
    const rect = { minU: 0.3, minV: 0.6, maxU: 0.36, maxV: 0.62 };
    expect(stage.invalidate(0, streamer, rect)).toBe(3);
    expect(stage.invalidate(0, streamer, rect)).toBe(0); // already waiting
    expect(stage.counters.refreshQueued).toBe(3);
    // Whole texture: every resident page, once.
    expect(stage.invalidate(0, streamer, { minU: 0, minV: 0, maxU: 1, maxV: 1 })).toBe(18);
    stage.detach(0);
    expect(stage.counters.refreshQueued).toBe(0);
  });
});
