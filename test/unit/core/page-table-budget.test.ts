import { describe, expect, it } from 'vitest';
import { REFUSED_PAGE_HOLD_FRAMES } from '../../../src/core/vt/feedback/page-table-pressure';
import { NO_REQUEST, packPageId, pageMip, pageVt, pageX, pageY } from '../../../src/core/vt/page-id';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import { flush, ManualTileSource } from './fake-source';
import { checkFallbackInvariant } from './helpers';

/**
 * A page table out of blocks within its budget: the streamer drops the uploads it cannot map
 * (nothing thrown, nothing lost: every other page keeps streaming, the fallback invariant holds)
 * and the mip bias rises instead, and does not fall again while refusals continue.
 */
/** Page (`x`, `y`) at mip 0 of block `b` of a 16-block-wide grid of 16 x 16-page blocks. */
const blockCorner = (b: number): [number, number] => [(b % 16) * 16, Math.floor(b / 16) * 16];

/**
 * A 256²-page texture whose page table cannot grow (what a GPU owner does when its share is spent:
 * a fixed capacity, one row: the tail + 11 blocks), and a frame loop feeding it `want` every frame.
 */
function refusingTable(src = new ManualTileSource(256, 256)) {
  const streamer = new VirtualTextureStreamer({ pool: { slotCount: 512 }, maxConcurrentLoads: 1024 });
  const vt = streamer.registerTexture(src);
  const table = streamer.pageTable(vt);
  table.autoGrow = false;
  const frames = async (want: Uint32Array, from: number, to: number, after?: () => void) => {
    for (let frame = from; frame <= to; frame++) {
      streamer.beginFrame(frame);
      streamer.submitFeedback(want);
      streamer.update();
      src.settleAll();
      await flush();
      streamer.drainUploads(() => true, 64);
      after?.();
    }
  };
  return { streamer, vt, table, frames };
}

describe('page-table budget', () => {
  it('refuses maps beyond the block capacity, keeps streaming the rest and raises the mip bias', async () => {
    const { streamer, vt, table, frames } = refusingTable();
    const free = table.blockCapacity - table.usedBlocks;
    // 64 pages at mip 0, each in its own 16 x 16-page block: more blocks than the table has.
    const want = new Uint32Array(64 * 4);
    for (let i = 0; i < want.length; i++) want[i] = packPageId(vt, 0, ...blockCorner(i >> 2));
    let bias = 0;
    await frames(want, 1, 12, () => {
      expect(streamer.mipBias).toBeGreaterThanOrEqual(bias);
      bias = streamer.mipBias;
    });
    expect(streamer.tablePressure.refusals).toBeGreaterThan(0);
    expect(streamer.mipBias).toBeGreaterThan(1);
    expect(table.usedBlocks).toBe(table.blockCapacity);
    // Every block the table had went to a wanted page, and the pinned mips are all in.
    let residentAtMip0 = 0;
    for (let b = 0; b < 64; b++) if (table.isResident(0, ...blockCorner(b))) residentAtMip0++;
    expect(residentAtMip0).toBe(free);
    expect(table.isResident(table.layout.mipCount - 1, 0, 0)).toBe(true);
    const resident = new Map<string, number>();
    const pages = streamer.pool.slotPages;
    for (let s = 0; s < pages.length; s++) {
      const p = pages[s];
      if (p !== NO_REQUEST && pageVt(p) === vt) resident.set(`${pageMip(p)},${pageX(p)},${pageY(p)}`, s);
    }
    expect(checkFallbackInvariant(table, resident)).toBeNull();
  });

  it('does not load a refused page again until its hold ends, while the feedback still asks for it', async () => {
    const src = new ManualTileSource(256, 256);
    const loadsOf = new Map<string, number>();
    const load = src.load.bind(src);
    src.load = (mip, x, y, signal) => {
      loadsOf.set(`${mip},${x},${y}`, (loadsOf.get(`${mip},${x},${y}`) ?? 0) + 1);
      return load(mip, x, y, signal);
    };
    const { streamer, vt, table, frames } = refusingTable(src);
    // 64 mip-0 pages in 64 blocks, asked for every frame (a feedback that ignores the raised bias).
    const want = new Uint32Array(64);
    for (let b = 0; b < 64; b++) want[b] = packPageId(vt, 0, ...blockCorner(b));
    const refusedLoads = () => {
      const counts: number[] = [];
      for (let b = 0; b < 64; b++) {
        const [x, y] = blockCorner(b);
        if (!table.isResident(0, x, y)) counts.push(loadsOf.get(`0,${x},${y}`) ?? 0);
      }
      return counts;
    };
    await frames(want, 1, REFUSED_PAGE_HOLD_FRAMES - 2);
    const held = refusedLoads();
    expect(streamer.tablePressure.refusals).toBeGreaterThan(0);
    expect(held.length).toBeGreaterThan(0);
    // Loaded once, refused, then held: no second load while the hold lasts.
    expect(Math.max(...held)).toBe(1);
    // After the hold a page still asked for is tried again (the table may have room by then).
    await frames(want, REFUSED_PAGE_HOLD_FRAMES - 1, 3 * REFUSED_PAGE_HOLD_FRAMES);
    expect(Math.max(...refusedLoads())).toBeGreaterThan(1);
    expect(Math.max(...refusedLoads())).toBeLessThanOrEqual(4);
  });
});
