import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
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

/** Two 8x8-page textures (pinned mip 3) with mip-0 pages requested at frames 1..4, one per frame. */
async function loaded() {
  const a = new ManualTileSource(8, 8);
  const b = new ManualTileSource(8, 8);
  const streamer = new VirtualTextureStreamer({ pool: { slotCount: 40 }, maxConcurrentLoads: 64 });
  const vtA = streamer.registerTexture(a, { pinnedMipCount: 1 });
  const vtB = streamer.registerTexture(b, { pinnedMipCount: 1 });
  const requests = [
    packPageId(vtA, 0, 5, 6),
    packPageId(vtA, 0, 1, 1),
    packPageId(vtB, 0, 2, 2),
    packPageId(vtA, 0, 7, 7),
  ];
  for (let f = 1; f <= requests.length; f++) {
    streamer.beginFrame(f);
    streamer.submitFeedback(new Uint32Array([requests[f - 1]]));
    streamer.update();
    a.settleAll();
    b.settleAll();
    await flush();
    streamer.drainUploads(() => true, 64);
  }
  return { streamer, vtA, vtB, requests, a };
}

describe('VirtualTextureStreamer.resizePool', () => {
  it('shrinking keeps the pinned pages and the most recent others, with fallbacks intact', async () => {
    const { streamer, vtA, vtB, requests } = await loaded();
    const before = streamer.pool.residentCount;
    const pinned = streamer.pool.pinnedCount;
    expect(pinned).toBe(2);
    const evicted: number[] = [];
    streamer.on('page-evicted', (e) => evicted.push(e.pageId));
    const oldPages = Uint32Array.from(streamer.pool.slotPages);
    const newSlotOf = streamer.resizePool(6);
    expect(streamer.pool.slotCount).toBe(6);
    expect(streamer.pool.residentCount).toBe(6);
    expect(streamer.pool.pinnedCount).toBe(pinned);
    expect(evicted.length).toBe(before - 6);
    expect(streamer.stats().poolSlots).toBe(6);
    // Every kept page sits in its new slot, every dropped one is gone.
    for (let s = 0; s < oldPages.length; s++) {
      if (oldPages[s] === NO_REQUEST) continue;
      if (newSlotOf[s] >= 0) expect(streamer.pool.slotPages[newSlotOf[s]]).toBe(oldPages[s]);
      else expect(evicted).toContain(oldPages[s]);
    }
    // The latest request (frame 4) survives at mip 0, the first one (frame 1) does not.
    const last = requests[3];
    expect(streamer.pageTable(vtA).isResident(0, pageX(last), pageY(last))).toBe(true);
    expect(streamer.pageTable(vtA).isResident(0, 5, 6)).toBe(false);
    expect(streamer.pageTable(vtA).isResident(3, 0, 0)).toBe(true);
    expect(streamer.pageTable(vtB).isResident(3, 0, 0)).toBe(true);
    expect(checkFallbackInvariant(streamer.pageTable(vtA), residentMap(streamer, vtA))).toBeNull();
    expect(checkFallbackInvariant(streamer.pageTable(vtB), residentMap(streamer, vtB))).toBeNull();
  });

  it('growing keeps every page and the new slots take new pages', async () => {
    const { streamer, vtA, a } = await loaded();
    const before = streamer.pool.residentCount;
    streamer.resizePool(64);
    expect(streamer.pool.slotCount).toBe(64);
    expect(streamer.pool.residentCount).toBe(before);
    expect(streamer.pool.freeCount).toBe(64 - before);
    expect(checkFallbackInvariant(streamer.pageTable(vtA), residentMap(streamer, vtA))).toBeNull();
    // Still streams: a new page lands in the grown pool.
    streamer.beginFrame(5);
    streamer.submitFeedback(new Uint32Array([packPageId(vtA, 0, 3, 3)]));
    streamer.update();
    a.settleAll();
    await flush();
    expect(streamer.drainUploads(() => true, 64)).toBeGreaterThan(0);
    expect(streamer.pageTable(vtA).isResident(0, 3, 3)).toBe(true);
    expect(streamer.pool.residentCount).toBeGreaterThan(before);
    expect(checkFallbackInvariant(streamer.pageTable(vtA), residentMap(streamer, vtA))).toBeNull();
  });

  it('keep = pinned drops every other page', async () => {
    const { streamer, vtA } = await loaded();
    streamer.resizePool(10, 0);
    expect(streamer.pool.residentCount).toBe(2);
    expect(streamer.pageTable(vtA).residentCount).toBe(1);
    expect(checkFallbackInvariant(streamer.pageTable(vtA), residentMap(streamer, vtA))).toBeNull();
  });

  it('refuses a pool smaller than the pinned pages and changes nothing', async () => {
    const { streamer } = await loaded();
    const pool = streamer.pool;
    expect(() => streamer.resizePool(1)).toThrow(TesseraConfigError);
    try {
      streamer.resizePool(1);
    } catch (e) {
      expect((e as TesseraConfigError).code).toBe('pool-too-small');
    }
    expect(streamer.pool).toBe(pool);
  });
});
