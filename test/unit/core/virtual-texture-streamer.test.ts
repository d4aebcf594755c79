import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError, TesseraError } from '../../../src/core/errors';
import { NO_REQUEST, packPageId, pageMip, pageVt, pageX, pageY } from '../../../src/core/vt/page-id';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import { flush, ManualTileSource } from './fake-source';
import { checkFallbackInvariant } from './helpers';

function residentMap(streamer: VirtualTextureStreamer, vt: number): Map<string, number> {
  const m = new Map<string, number>();
  const pages = streamer.pool.slotPages;
  for (let s = 0; s < pages.length; s++) {
    const p = pages[s];
    if (p !== NO_REQUEST && pageVt(p) === vt) m.set(`${pageMip(p)},${pageX(p)},${pageY(p)}`, s);
  }
  return m;
}

describe('VirtualTextureStreamer', () => {
  it('rejects a pool smaller than the pinned levels at construction', () => {
    const src = new ManualTileSource(64, 64);
    try {
      new VirtualTextureStreamer({ pool: { slotCount: 20 }, textures: [{ source: src }] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TesseraConfigError);
      expect((e as TesseraConfigError).code).toBe('pool-too-small');
    }
    const ok = new VirtualTextureStreamer({ pool: { slotCount: 21 }, textures: [{ source: src }] });
    expect(() => ok.registerTexture(new ManualTileSource(4, 4), { pinnedMipCount: 1 })).toThrow(
      TesseraConfigError,
    );
  });

  it('rejects a working-set window longer than the recent-use ring (it would scan every slot)', () => {
    for (const workingSetFrames of [0, 65, 1.5]) {
      try {
        new VirtualTextureStreamer({ pool: { slotCount: 32 }, workingSetFrames });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(TesseraConfigError);
        expect((e as TesseraConfigError).code).toBe('invalid-option');
      }
    }
    expect(() => new VirtualTextureStreamer({ pool: { slotCount: 32 }, workingSetFrames: 64 })).not.toThrow();
  });

  it('loads pinned levels first, then requested pages, and maps them', async () => {
    const src = new ManualTileSource(8, 8);
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 32 }, maxConcurrentLoads: 64 });
    const vt = streamer.registerTexture(src, { pinnedMipCount: 2 });
    const loaded: number[] = [];
    streamer.on('page-loaded', (e) => loaded.push(e.pageId));
    streamer.beginFrame(1);
    const want = packPageId(vt, 0, 5, 6);
    streamer.submitFeedback(new Uint32Array([want, want, NO_REQUEST]));
    streamer.update();
    // Pinned mips 2 and 3 (4 + 1 pages) come before the requested page and its ancestor at mip 1.
    const first = src.pending.slice(0, 5).map((p) => p.mip);
    expect(first.sort()).toEqual([2, 2, 2, 2, 3]);
    src.settleAll();
    await flush();
    const writes: number[] = [];
    expect(streamer.drainUploads((_vt, slot) => void writes.push(slot))).toBe(7);
    expect(new Set(writes).size).toBe(7);
    const table = streamer.pageTable(vt);
    expect(table.isResident(0, 5, 6)).toBe(true);
    expect(loaded).toContain(want);
    expect(streamer.stats().pinnedPages).toBe(5);
    expect(checkFallbackInvariant(table, residentMap(streamer, vt))).toBeNull();
    expect(table.dirtyBytes).toBeGreaterThan(0);
  });

  it('loads a resident page its source improved again and writes it over its slot', async () => {
    const src = new ManualTileSource(8, 8);
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 32 }, maxConcurrentLoads: 64 });
    const vt = streamer.registerTexture(src, { pinnedMipCount: 2 });
    const loaded: number[] = [];
    const refreshed: [number, number][] = [];
    streamer.on('page-loaded', (e) => loaded.push(e.pageId));
    streamer.on('page-refreshed', (e) => refreshed.push([e.pageId, e.slot]));
    const page = packPageId(vt, 0, 5, 6);
    streamer.beginFrame(1);
    streamer.submitFeedback(new Uint32Array([page]));
    streamer.update();
    src.settleAll();
    await flush();
    const slots = new Map<number, number>();
    streamer.drainUploads((_vt, slot, pageId) => void slots.set(pageId, slot));
    const slot = slots.get(page) as number;
    expect(streamer.pageTable(vt).isResident(0, 5, 6)).toBe(true);

    // Resident: loaded again at once. Neither resident nor loading: forgotten, never loaded.
    const calls = src.calls;
    streamer.pageImproved(vt, 0, 5, 6);
    streamer.pageImproved(vt, 0, 1, 1);
    streamer.pageImproved(vt, 9, 0, 0); // no such mip: ignored
    expect(src.calls).toBe(calls + 1);
    expect(src.pending.map((l) => [l.mip, l.x, l.y])).toEqual([[0, 5, 6]]);
    streamer.beginFrame(2);
    streamer.update();
    expect(src.calls).toBe(calls + 1);
    expect(streamer.stats()).toMatchObject({ queued: 0, inFlight: 1 });
    src.settleAll();
    await flush();
    expect(streamer.stats().pendingUploads).toBe(1);
    const written: [number, number][] = [];
    expect(streamer.drainUploads((_vt, s, pageId) => void written.push([pageId, s]))).toBe(1);
    expect(written).toEqual([[page, slot]]);
    expect(refreshed).toEqual([[page, slot]]);
    expect(loaded.filter((id) => id === page)).toHaveLength(1);
    expect(streamer.stats()).toMatchObject({ queued: 0, inFlight: 0, pendingUploads: 0 });

    // Reported while its first load waits for upload: loaded again once it is resident.
    const late = packPageId(vt, 0, 2, 2);
    streamer.beginFrame(3);
    streamer.submitFeedback(new Uint32Array([late]));
    streamer.update();
    src.settleAll();
    await flush();
    streamer.pageImproved(vt, 0, 2, 2);
    expect(streamer.stats().queued).toBe(1);
    streamer.update();
    expect(src.pending).toHaveLength(0);
    streamer.drainUploads(() => true);
    expect(streamer.pageTable(vt).isResident(0, 2, 2)).toBe(true);
    streamer.beginFrame(4);
    streamer.update();
    expect(src.pending.map((l) => [l.mip, l.x, l.y])).toEqual([[0, 2, 2]]);
    streamer.dispose();
    expect(src.pending).toHaveLength(0);
  });

  it('respects the per-frame upload budget in tiles and bytes', async () => {
    const src = new ManualTileSource(4, 4);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 64 },
      maxConcurrentLoads: 32,
      textures: [{ source: src }],
    });
    streamer.beginFrame(1);
    streamer.update();
    src.settleAll();
    await flush();
    expect(streamer.stats().pendingUploads).toBe(21);
    expect(streamer.drainUploads(() => true, 5)).toBe(5);
    expect(streamer.drainUploads(() => true, 100, 8 * 8 * 4 * 2)).toBe(2);
    expect(streamer.stats().pendingUploads).toBe(14);
  });

  it('emits a typed error when a page keeps failing and keeps its fallback', async () => {
    const src = new ManualTileSource(4, 4);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 64 },
      maxAttempts: 2,
      retryBaseFrames: 1,
      textures: [{ source: src, pinnedMipCount: 1 }],
    });
    const errors: TesseraError[] = [];
    streamer.on('error', (e) => errors.push(e.error));
    const bad = packPageId(0, 0, 1, 1);
    for (let f = 1; f < 12; f++) {
      streamer.beginFrame(f);
      streamer.submitFeedback(new Uint32Array([bad]));
      streamer.update();
      src.settleAll((mip) => mip === 0);
      await flush();
      streamer.drainUploads(() => true);
    }
    expect(errors.map((e) => e.code)).toEqual(['tile-failed-permanently']);
    expect(streamer.stats().failed).toBe(1);
    expect(streamer.pageTable(0).entry(0, 1, 1)).not.toBe(NO_REQUEST);
    streamer.dispose();
    expect(() => streamer.submitFeedback(new Uint32Array(1))).toThrow(TesseraError);
  });

  it('dispose aborts loads in flight', () => {
    const src = new ManualTileSource(4, 4);
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 64 }, textures: [{ source: src }] });
    streamer.beginFrame(1);
    streamer.update();
    const signals = src.pending.map((p) => p.signal);
    expect(signals.length).toBeGreaterThan(0);
    streamer.dispose();
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('raises the mip bias when alternating feedback frames need more than the pool together', async () => {
    // Two halves of a view, as successive jittered feedback frames see it: 44 pages each (32 at
    // mip 0 plus ancestors), 86 together, for 60 unpinned slots. Only the working set over several
    // frames shows the oversubscription.
    const half = (rows: number) => {
      const b = new Uint32Array(32);
      for (let i = 0; i < 32; i++) b[i] = packPageId(0, 0, i & 7, rows + (i >> 3));
      return b;
    };
    const frames = [half(0), half(4)];
    const src = new ManualTileSource(32, 32);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 61 },
      maxConcurrentLoads: 128,
      textures: [{ source: src, pinnedMipCount: 1 }],
    });
    for (let f = 1; f <= 40; f++) {
      streamer.beginFrame(f);
      streamer.submitFeedback(frames[f & 1]);
      streamer.update();
      src.settleAll();
      await flush();
      streamer.drainUploads(() => true);
    }
    const stats = streamer.stats();
    // A measure of one frame sees 45 pages (with the pinned root) for 60 slots: 0.75, far under the
    // 0.95 at which the bias rises...
    expect(stats.requestedPages).toBe(45);
    expect(stats.evictions).toBeGreaterThan(20);
    // ...the working set over the jitter cycle sees the pool thrash.
    expect(stats.mipBias).toBeGreaterThan(0);
  });

  it('property: random requests, failures and evictions keep every invariant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 8, max: 24 }),
        fc.array(
          fc.record({
            requests: fc.array(fc.tuple(fc.nat(3), fc.nat(15), fc.nat(15)), { maxLength: 12 }),
            failMask: fc.nat(7),
            settle: fc.boolean(),
            uploads: fc.integer({ min: 0, max: 6 }),
          }),
          { maxLength: 25 },
        ),
        async (slots, frames) => {
          const src = new ManualTileSource(16, 16);
          const streamer = new VirtualTextureStreamer({
            pool: { slotCount: slots },
            maxConcurrentLoads: 4,
            abortAfterFrames: 2,
            maxAttempts: 2,
            retryBaseFrames: 1,
            failedCooldownFrames: 3,
            textures: [{ source: src, pinnedMipCount: 2 }],
          });
          const pinned = new Set<number>();
          streamer.on('page-loaded', (e) => {
            if (pageMip(e.pageId) >= 3) pinned.add(e.pageId);
          });
          streamer.on('page-evicted', (e) => {
            if (pinned.has(e.pageId)) throw new Error('pinned page evicted');
          });
          let frame = 0;
          for (const f of frames) {
            frame++;
            streamer.beginFrame(frame);
            const buf = new Uint32Array(f.requests.map(([m, x, y]) => packPageId(0, m, x >> m, y >> m)));
            streamer.submitFeedback(buf);
            streamer.update();
            if (f.settle) src.settleAll((mip, x, y) => ((mip + x + y) & 7) < (f.failMask & 3));
            await flush();
            streamer.drainUploads(() => true, f.uploads);
            const table = streamer.pageTable(0);
            const resident = residentMap(streamer, 0);
            const err = checkFallbackInvariant(table, resident);
            if (err) throw new Error(err);
            expect(resident.size).toBeLessThanOrEqual(slots);
            expect(table.residentCount).toBe(resident.size);
            expect(streamer.stats().inFlight).toBeLessThanOrEqual(4);
            expect(src.maxRunningPerPage).toBeLessThanOrEqual(1);
          }
          for (const p of pinned) expect(streamer.pool.slotOf(p)).toBeGreaterThanOrEqual(0);
          streamer.dispose();
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('VirtualTextureStreamer upload admission', () => {
  it('stops the upload pass when admission refuses, losing and evicting nothing', async () => {
    const src = new ManualTileSource(4, 4);
    const streamer = new VirtualTextureStreamer({
      pool: { slotCount: 64 },
      maxConcurrentLoads: 32,
      textures: [{ source: src }],
    });
    streamer.beginFrame(1);
    streamer.update();
    src.settleAll();
    await flush();
    expect(streamer.stats().pendingUploads).toBe(21);
    let admitted = 0;
    const admit = (vt: number) => {
      expect(vt).toBe(0);
      return admitted++ < 3;
    };
    expect(streamer.drainUploads(() => true, 100, undefined, admit)).toBe(3);
    expect(streamer.stats().pendingUploads).toBe(18);
    expect(streamer.pool.residentCount).toBe(3);
    expect(
      streamer.drainUploads(
        () => true,
        100,
        undefined,
        () => true,
      ),
    ).toBe(18);
  });
});
