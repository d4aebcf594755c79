import { describe, expect, it } from 'vitest';
import { TextureBudget } from '../../../src/core/budget/texture-budget';
import { TesseraConfigError, type TesseraError, TileSourceError } from '../../../src/core/errors';
import { packPageId } from '../../../src/core/vt/page-id';
import { poolSlotCount } from '../../../src/core/vt/residency/pool-shape';
import { PageLoadState } from '../../../src/core/vt/scheduling/residency-scheduler';
import { defaultStagingBytes, defaultStagingReserve } from '../../../src/core/vt/scheduling/staging-reserve';
import { sourceTileBytes, tileLayerBytes, tileMatchesInfo } from '../../../src/core/vt/tile-bytes';
import type { TileData, TileSource, TileSourceInfo } from '../../../src/core/vt/tile-source';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import { planVirtualTextureBudget } from '../../../src/core/vt/vt-budget-plan';
import { reserveVirtualTextureBudget } from '../../../src/three/virtual-texture-reservations';
import { resolveSystemOptions } from '../../../src/three/virtual-texture-system-options';
import { flush, ManualTileSource } from './fake-source';

/** A source whose loads resolve at once (one shared tile), or with `wrong` tiles where it says. */
class FastTileSource implements TileSource {
  readonly info: TileSourceInfo;
  loads = 0;
  private readonly tile: TileData;
  constructor(
    pages: number,
    tileSize = 16,
    private readonly wrong: (mip: number, x: number, y: number) => boolean = () => false,
  ) {
    this.info = {
      widthPages: pages,
      heightPages: pages,
      tileSize,
      border: 2,
      layers: [{ name: 'a', format: 'rgba8unorm' }],
    };
    this.tile = { layers: [new Uint8Array(tileSize * tileSize * 4)] };
  }
  load(mip: number, x: number, y: number): Promise<TileData> {
    this.loads++;
    if (this.wrong(mip, x, y)) return Promise.resolve({ layers: [new Uint8Array(7)] });
    return Promise.resolve(this.tile);
  }
}

/** Every mip-0 page of a `w x h` window at (`x0`, `y0`), once each. */
function view(x0: number, y0: number, w: number, h: number): Uint32Array {
  const ids = new Uint32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) ids[y * w + x] = packPageId(0, 0, x0 + x, y0 + y);
  return ids;
}

describe('tile bytes', () => {
  it('counts each layer from its format, never 4 bytes per texel for block formats', () => {
    expect(tileLayerBytes('rgba8unorm', 128)).toBe(128 * 128 * 4);
    expect(tileLayerBytes('rgba8unorm-srgb', 136)).toBe(136 * 136 * 4);
    expect(tileLayerBytes('uastc-4x4', 128)).toBe((128 / 4) ** 2 * 16);
    expect(tileLayerBytes('uastc-4x4-srgb', 128)).toBe(16384);
    expect(tileLayerBytes('bc7-rgba-unorm', 128)).toBe(16384);
    expect(tileLayerBytes('bc1-rgba-unorm', 128)).toBe(8192);
    const info: TileSourceInfo = {
      widthPages: 4,
      heightPages: 4,
      tileSize: 128,
      border: 4,
      layers: [
        { name: 'albedo', format: 'uastc-4x4-srgb' },
        { name: 'normal', format: 'rgba8unorm', usage: 'normal' },
      ],
    };
    expect(sourceTileBytes(info)).toBe(16384 + 65536);
    expect(tileMatchesInfo({ layers: [new Uint8Array(16384), new Uint8Array(65536)] }, info)).toBe(true);
    expect(tileMatchesInfo({ layers: [new Uint8Array(65536), new Uint8Array(16384)] }, info)).toBe(false);
    expect(tileMatchesInfo({ layers: [new Uint8Array(16384)] }, info)).toBe(false);
    expect(tileMatchesInfo({} as TileData, info)).toBe(false);
    expect(tileMatchesInfo(null, info)).toBe(false);
  });

  it('sizes the default reserve from the upload rate, at most an eighth of the share', () => {
    expect(defaultStagingBytes(65536, 16)).toBe((16 + 2 * 16) * 65536);
    expect(defaultStagingReserve(256 << 20, 65536, 16)).toBe(48 * 65536);
    expect(defaultStagingReserve(8 << 20, 65536, 16)).toBe(16 * 65536); // an eighth of 8 MiB
    expect(defaultStagingReserve(100_000, 65536, 16)).toBe(65536); // never below one tile
  });
});

describe('staging bound', () => {
  it('with a fast source and one upload per frame, staged bytes stay within the reserve and the budget is never over', async () => {
    const source = new FastTileSource(32);
    const tile = sourceTileBytes(source.info);
    const input = {
      shareBytes: 600_000,
      capacityBytes: 600_000,
      tileSize: 16,
      layerCount: 1,
      feedbackWidth: 8,
      feedbackHeight: 8,
      readbackRowAlignment: 256,
      readbacksInFlight: 3,
      pageTableBytes: 8192,
      stagingBytes: 3 * tile,
      minPoolSlots: 21,
      maxTextureSize: 4096,
      maxArrayLayers: 1,
    };
    const budget = new TextureBudget({ budgetBytes: input.shareBytes });
    const plan = planVirtualTextureBudget(input);
    const reserved = reserveVirtualTextureBudget(budget, plan, input);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: poolSlotCount(reserved.poolShape) },
      maxUploadsPerFrame: 1,
      maxConcurrentLoads: 16,
      stagingBytes: plan.stagingBytes,
      textures: [{ source, pinnedMipCount: 1 }],
    });
    expect(budget.stats().byCategory.staging).toBe(3 * tile);
    let backpressured = 0;
    const views = [view(0, 0, 6, 5), view(20, 12, 6, 5), view(3, 25, 6, 5)];
    for (let f = 1; f <= 300; f++) {
      streamer.beginFrame(f);
      streamer.submitFeedback(views[Math.floor(f / 100)] ?? views[2]);
      streamer.update();
      const started = streamer.stats();
      if (started.queued > 0 && started.stagedBytes + tile > started.stagingBytes) backpressured++;
      expect(started.stagedBytes).toBeLessThanOrEqual(budget.stats().byCategory.staging);
      await flush();
      streamer.drainUploads(() => true);
      const s = streamer.stats();
      expect(s.stagedBytes).toBeLessThanOrEqual(budget.stats().byCategory.staging);
      expect(s.stagedBytes).toBe((s.inFlight + s.pendingUploads) * tile);
      expect(budget.liveBytes).toBeLessThanOrEqual(budget.budgetBytes);
      expect(budget.stats().overBudgetBytes).toBe(0);
    }
    // The bound did hold loads back (16 could run at once), and nothing waiting was lost: the last
    // view (30 pages and their ancestors) is all resident.
    expect(backpressured).toBeGreaterThan(50);
    const s = streamer.stats();
    expect(s.stagedPeakBytes).toBe(3 * tile);
    expect(s.residency).toBe(1);
    expect(s.queued + s.inFlight + s.pendingUploads).toBe(0);
    expect(s.loadErrors).toBe(0);
    streamer.dispose();
  });

  it('settles on the same pages with a tight bound as without one', async () => {
    const run = async (stagingBytes: number | undefined) => {
      const source = new FastTileSource(32);
      const streamer = new VirtualTextureStreamer({
        pool: { slotCount: 128 },
        maxUploadsPerFrame: 1,
        stagingBytes,
        textures: [{ source, pinnedMipCount: 1 }],
      });
      const feedback = view(4, 7, 7, 4);
      let frames = 0;
      for (let f = 1; f <= 400; f++) {
        streamer.beginFrame(f);
        streamer.submitFeedback(feedback);
        streamer.update();
        await flush();
        streamer.drainUploads(() => true);
        const s = streamer.stats();
        if (s.queued + s.inFlight + s.pendingUploads === 0 && s.residency === 1) {
          frames = f;
          break;
        }
      }
      const pages = [...streamer.pool.slotPages].filter((p) => p !== 0xffffffff).sort();
      const loads = source.loads;
      streamer.dispose();
      return { frames, pages, loads };
    };
    const tight = await run(sourceTileBytes(new FastTileSource(32).info));
    const free = await run(undefined);
    expect(tight.frames).toBeGreaterThan(0);
    expect(tight.pages).toEqual(free.pages);
    expect(tight.loads).toBe(free.loads); // nothing dropped and loaded twice
    // One upload per frame bounds both: a one-tile bound costs at most a frame per tile.
    expect(tight.frames).toBeLessThanOrEqual(2 * free.frames);
  });

  it('a page that leaves the view mid-load does not displace a wanted page, and is uploaded if it returns', async () => {
    const source = new ManualTileSource(4, 4);
    // 4 x 4 pages: mips 1 and 2 pinned (5 pages), and room for exactly 4 more.
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 9 }, maxConcurrentLoads: 16 });
    streamer.registerTexture(source, { pinnedMipCount: 2 });
    const wanted = view(0, 0, 2, 2);
    const late = packPageId(0, 0, 3, 3);
    let frame = 0;
    const step = async (feedback: Uint32Array) => {
      streamer.beginFrame(++frame);
      streamer.submitFeedback(feedback);
      streamer.update();
      source.settleAll();
      await flush();
      streamer.drainUploads(() => true);
    };
    await step(wanted);
    expect(streamer.pool.freeCount).toBe(0);
    // The view takes in one more page; its load is slow.
    streamer.beginFrame(++frame);
    streamer.submitFeedback(new Uint32Array([...wanted, late]));
    streamer.update();
    const slow = source.pending.splice(0);
    expect(slow.map((p) => packPageId(0, p.mip, p.x, p.y))).toEqual([late]);
    // It leaves the view before the tile lands: two feedbacks without it.
    streamer.submitFeedback(wanted);
    streamer.beginFrame(++frame);
    streamer.submitFeedback(wanted);
    streamer.update();
    expect(streamer.scheduler.stateOf(late)).toBe(PageLoadState.Loading); // not yet expired
    slow[0].resolve(source.tile());
    await flush();
    expect(streamer.stats().stagedBytes).toBe(sourceTileBytes(source.info));
    streamer.beginFrame(++frame);
    streamer.update();
    expect(streamer.drainUploads(() => true)).toBe(0);
    expect(streamer.stats().evictions).toBe(0);
    for (const id of wanted) expect(streamer.pool.slotOf(id)).toBeGreaterThanOrEqual(0);
    // It waits, uploaded only if the view asks again; its request expires after abortAfterFrames
    // (8) frames, and its bytes with it.
    expect(streamer.scheduler.stateOf(late)).toBe(PageLoadState.Ready);
    for (let i = 0; i < 8; i++) await step(wanted);
    const s = streamer.stats();
    expect(streamer.scheduler.stateOf(late)).toBe(PageLoadState.Untracked);
    expect(s.stagedBytes).toBe(0);
    expect(s.evictions).toBe(0);
    for (const id of wanted) expect(streamer.pool.slotOf(id)).toBeGreaterThanOrEqual(0);
    // Back in view, it is requested and loaded again: nothing is lost for good.
    await step(new Uint32Array([late]));
    expect(streamer.pool.slotOf(late)).toBeGreaterThanOrEqual(0);
    streamer.dispose();
  });

  it('a waiting tile whose page comes back into view uploads without loading again', async () => {
    const source = new ManualTileSource(4, 4);
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 9 }, maxConcurrentLoads: 16 });
    streamer.registerTexture(source, { pinnedMipCount: 2 });
    const wanted = view(0, 0, 2, 2);
    const page = packPageId(0, 0, 3, 3);
    streamer.beginFrame(1);
    streamer.submitFeedback(wanted);
    streamer.update();
    source.settleAll();
    await flush();
    streamer.drainUploads(() => true);
    streamer.beginFrame(2);
    streamer.submitFeedback(new Uint32Array([page]));
    streamer.update();
    source.settleAll();
    await flush();
    streamer.submitFeedback(wanted);
    streamer.submitFeedback(wanted); // two feedbacks without it: unwanted, and the pool is full
    streamer.beginFrame(3);
    expect(streamer.drainUploads(() => true)).toBe(0);
    const calls = source.calls;
    streamer.submitFeedback(new Uint32Array([...wanted, page])); // a jittered feedback sees it again
    streamer.beginFrame(4);
    streamer.update();
    expect(streamer.drainUploads(() => true)).toBe(1);
    expect(streamer.pool.slotOf(page)).toBeGreaterThanOrEqual(0);
    expect(source.calls).toBe(calls);
    streamer.dispose();
  });

  it('a page missed by one feedback only (jitter) still uploads, evicting an idle page', async () => {
    const source = new ManualTileSource(4, 4);
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 9 }, maxConcurrentLoads: 16 });
    streamer.registerTexture(source, { pinnedMipCount: 2 });
    const wanted = view(0, 0, 2, 2);
    const page = packPageId(0, 0, 3, 3);
    streamer.beginFrame(1);
    streamer.submitFeedback(wanted);
    streamer.update();
    source.settleAll();
    await flush();
    streamer.drainUploads(() => true);
    streamer.beginFrame(2);
    streamer.submitFeedback(new Uint32Array([page]));
    streamer.update();
    source.settleAll();
    await flush();
    streamer.submitFeedback(wanted); // one feedback misses it
    streamer.beginFrame(3);
    expect(streamer.drainUploads(() => true)).toBe(1);
    expect(streamer.pool.slotOf(page)).toBeGreaterThanOrEqual(0);
    expect(streamer.stats().evictions).toBe(1);
    streamer.dispose();
  });

  it('when the reserve is full, tiles whose page left the view make room for a wanted load', async () => {
    const source = new ManualTileSource(8, 8);
    const tile = sourceTileBytes(source.info);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 128 },
      maxConcurrentLoads: 16,
      stagingBytes: 2 * tile,
    });
    streamer.registerTexture(source, { pinnedMipCount: 3 });
    streamer.beginFrame(1);
    streamer.update();
    // 21 pinned pages through a reserve of two tiles: nothing is lost, two at a time.
    for (let f = 2; streamer.stats().pinnedPages < 21 && f < 60; f++) {
      streamer.beginFrame(f);
      streamer.update();
      expect(source.pending.length).toBeLessThanOrEqual(2);
      source.settleAll();
      await flush();
      streamer.drainUploads(() => true);
    }
    expect(streamer.stats().pinnedPages).toBe(21);
    const gone = view(0, 0, 2, 1);
    streamer.beginFrame(100);
    streamer.submitFeedback(gone);
    streamer.update();
    source.settleAll();
    await flush(); // both staged, never uploaded (no drain)
    expect(streamer.stats().stagedBytes).toBe(2 * tile);
    const next = packPageId(0, 0, 5, 5);
    streamer.submitFeedback(new Uint32Array([next]));
    streamer.update();
    expect(streamer.scheduler.stateOf(next)).toBe(PageLoadState.Queued); // one feedback: maybe jitter
    streamer.submitFeedback(new Uint32Array([next]));
    streamer.update();
    expect(streamer.scheduler.stateOf(next)).toBe(PageLoadState.Loading);
    expect(streamer.stats().uploadsDropped).toBe(1);
    expect(streamer.stats().stagedBytes).toBe(2 * tile);
    streamer.dispose();
  });

  it('a tile of the wrong size fails with a typed error, frees its bytes, and the rest keeps streaming', async () => {
    const source = new FastTileSource(8, 16, (mip, x, y) => mip === 0 && x === 2 && y === 2);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 64 },
      stagingBytes: 4 * sourceTileBytes(source.info),
      textures: [{ source, pinnedMipCount: 1 }],
    });
    const errors: TesseraError[] = [];
    streamer.on('error', (e) => errors.push(e.error));
    const feedback = view(1, 1, 3, 3);
    for (let f = 1; f <= 40; f++) {
      streamer.beginFrame(f);
      streamer.submitFeedback(feedback);
      streamer.update();
      await flush();
      streamer.drainUploads(() => true);
    }
    expect(errors.length).toBe(1);
    expect(errors[0].code).toBe('tile-failed-permanently');
    expect((errors[0].cause as TileSourceError).code).toBe('wrong-size');
    expect(errors[0].cause).toBeInstanceOf(TileSourceError);
    const s = streamer.stats();
    expect(s.stagedBytes).toBe(0);
    expect(s.failed).toBe(1);
    expect(s.queued + s.inFlight + s.pendingUploads).toBe(0);
    for (const id of feedback) {
      if (id !== packPageId(0, 0, 2, 2)) expect(streamer.pool.slotOf(id)).toBeGreaterThanOrEqual(0);
    }
    streamer.dispose();
  });

  it('refuses a reserve that cannot hold one tile, and a reserve of no bytes', () => {
    const source = new ManualTileSource(4, 4);
    const bytes = sourceTileBytes(source.info);
    const small = new VirtualTextureStreamer({ pool: { slotCount: 64 }, stagingBytes: bytes - 1 });
    expect(() => small.registerTexture(source)).toThrow(TesseraConfigError);
    expect(() => small.registerTexture(source)).toThrow(/does not fit the staging bound/);
    expect(() => small.pageTable(0)).toThrow(); // nothing registered
    expect(() => new VirtualTextureStreamer({ pool: { slotCount: 64 }, stagingBytes: 0 })).toThrow(
      TesseraConfigError,
    );
    expect(
      () => new VirtualTextureStreamer({ pool: { slotCount: 64 }, uploadOrder: 'lifo' as 'arrival' }),
    ).toThrow(/uploadOrder/);
  });
});

describe('the system option stagingBytes', () => {
  it('defaults from the upload rate and the pool layers, capped by the share, and refuses bad values', () => {
    const base = { budgetBytes: 256 << 20 };
    // 16 loads + 2 frames of 16 uploads of one rgba8 128² layer.
    expect(resolveSystemOptions(base).stagingBytes).toBe(48 * 65536);
    const two = resolveSystemOptions({
      ...base,
      maxUploadsPerFrame: 4,
      layers: ['rgba8unorm-srgb', 'rgba8unorm'],
    });
    expect(two.stagingBytes).toBe(24 * 2 * 65536);
    // An eighth of a 24 MiB share: 48 tiles, not the 80 that 32 uploads per frame would ask.
    expect(resolveSystemOptions({ budgetBytes: 24 << 20, maxUploadsPerFrame: 32 }).stagingBytes).toBe(
      48 * 65536,
    );
    expect(resolveSystemOptions({ ...base, stagingBytes: 100_000 }).stagingBytes).toBe(100_000);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => resolveSystemOptions({ ...base, stagingBytes: bad })).toThrow(TesseraConfigError);
    }
  });
});
