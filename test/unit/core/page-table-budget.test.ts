import { describe, expect, it } from 'vitest';
import { NO_REQUEST, packPageId, pageMip, pageVt, pageX, pageY } from '../../../src/core/vt/page-id';
import { REFUSED_PAGE_HOLD_FRAMES } from '../../../src/core/vt/page-table-pressure';
import { VirtualTextureStreamer } from '../../../src/core/vt/virtual-texture-streamer';
import { flush, ManualTileSource } from './fake-source';
import { checkFallbackInvariant } from './helpers';

/**
 * A page table out of blocks within its budget: the streamer drops the uploads it cannot map
 * (nothing thrown, nothing lost: every other page keeps streaming, the fallback invariant holds)
 * and the mip bias rises instead, and does not fall again while refusals continue.
 */
describe('page-table budget', () => {
  it('refuses maps beyond the block capacity, keeps streaming the rest and raises the mip bias', async () => {
    const src = new ManualTileSource(256, 256);
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 512 }, maxConcurrentLoads: 1024 });
    const vt = streamer.registerTexture(src);
    const table = streamer.pageTable(vt);
    // What a GPU owner does when its share is spent: a fixed capacity (one row: the tail + 11 blocks).
    table.autoGrow = false;
    const free = table.blockCapacity - table.usedBlocks;
    // 64 pages at mip 0, each in its own 16 x 16-page block: more blocks than the table has.
    const want = new Uint32Array(64 * 4);
    for (let i = 0; i < want.length; i++) {
      const b = i >> 2;
      want[i] = packPageId(vt, 0, (b % 16) * 16, Math.floor(b / 16) * 16);
    }
    let bias = 0;
    for (let frame = 1; frame <= 12; frame++) {
      streamer.beginFrame(frame);
      streamer.submitFeedback(want);
      streamer.update();
      src.settleAll();
      await flush();
      streamer.drainUploads(() => true, 64);
      expect(streamer.mipBias).toBeGreaterThanOrEqual(bias);
      bias = streamer.mipBias;
    }
    expect(streamer.tablePressure.refusals).toBeGreaterThan(0);
    expect(streamer.mipBias).toBeGreaterThan(1);
    expect(table.usedBlocks).toBe(table.blockCapacity);
    // Every block the table had went to a wanted page, and the pinned mips are all in.
    let residentAtMip0 = 0;
    for (let b = 0; b < 64; b++)
      if (table.isResident(0, (b % 16) * 16, Math.floor(b / 16) * 16)) residentAtMip0++;
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
    const streamer = new VirtualTextureStreamer({ pool: { slotCount: 512 }, maxConcurrentLoads: 1024 });
    const vt = streamer.registerTexture(src);
    const table = streamer.pageTable(vt);
    table.autoGrow = false;
    // 64 mip-0 pages in 64 blocks, asked for every frame (a feedback that ignores the raised bias).
    const want = new Uint32Array(64);
    for (let b = 0; b < 64; b++) want[b] = packPageId(vt, 0, (b % 16) * 16, Math.floor(b / 16) * 16);
    const refusedLoads = () => {
      const counts: number[] = [];
      for (let b = 0; b < 64; b++) {
        if (!table.isResident(0, (b % 16) * 16, Math.floor(b / 16) * 16))
          counts.push(loadsOf.get(`0,${(b % 16) * 16},${Math.floor(b / 16) * 16}`) ?? 0);
      }
      return counts;
    };
    const run = async (from: number, to: number) => {
      for (let frame = from; frame <= to; frame++) {
        streamer.beginFrame(frame);
        streamer.submitFeedback(want);
        streamer.update();
        src.settleAll();
        await flush();
        streamer.drainUploads(() => true, 64);
      }
    };
    await run(1, REFUSED_PAGE_HOLD_FRAMES - 2);
    const held = refusedLoads();
    expect(streamer.tablePressure.refusals).toBeGreaterThan(0);
    expect(held.length).toBeGreaterThan(0);
    // Loaded once, refused, then held: no second load while the hold lasts.
    expect(Math.max(...held)).toBe(1);
    // After the hold a page still asked for is tried again (the table may have room by then).
    await run(REFUSED_PAGE_HOLD_FRAMES - 1, 3 * REFUSED_PAGE_HOLD_FRAMES);
    expect(Math.max(...refusedLoads())).toBeGreaterThan(1);
    expect(Math.max(...refusedLoads())).toBeLessThanOrEqual(4);
  });
});
