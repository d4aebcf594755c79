import { describe, expect, it } from 'vitest';
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

/** Two 8x8-page textures; texture 0 gets mip-0 pages (5,6) and (1,1) resident, texture 1 (2,2). */
async function twoTextures() {
  const a = new ManualTileSource(8, 8);
  const b = new ManualTileSource(8, 8);
  const streamer = new VirtualTextureStreamer({ pool: { slotCount: 40 }, maxConcurrentLoads: 64 });
  const vtA = streamer.registerTexture(a, { pinnedMipCount: 1 });
  const vtB = streamer.registerTexture(b, { pinnedMipCount: 1 });
  streamer.beginFrame(1);
  streamer.submitFeedback(
    new Uint32Array([packPageId(vtA, 0, 5, 6), packPageId(vtA, 0, 1, 1), packPageId(vtB, 0, 2, 2)]),
  );
  streamer.update();
  a.settleAll();
  b.settleAll();
  await flush();
  streamer.drainUploads(() => true, 64);
  return { streamer, vtA, vtB };
}

describe('VirtualTextureStreamer.releaseTexturePages', () => {
  it('frees only non-pinned pages of the given texture, unmapping them with fallbacks intact', async () => {
    const { streamer, vtA, vtB } = await twoTextures();
    const tableA = streamer.pageTable(vtA);
    expect(tableA.isResident(0, 5, 6)).toBe(true);
    const residentBefore = streamer.pool.residentCount;
    const pinnedBefore = streamer.pool.pinnedCount;
    const evicted: number[] = [];
    streamer.on('page-evicted', (e) => evicted.push(e.pageId));
    streamer.beginFrame(10);
    const freed = streamer.releaseTexturePages(vtA, 1000, 10);
    // Texture A had mip 0 pages and their mip 1/2 ancestors loaded; only its pinned mip 3 stays.
    expect(freed).toBeGreaterThan(0);
    expect(evicted.every((id) => pageVt(id) === vtA)).toBe(true);
    expect(evicted.length).toBe(freed);
    expect(streamer.pool.residentCount).toBe(residentBefore - freed);
    expect(streamer.pool.pinnedCount).toBe(pinnedBefore);
    expect(tableA.isResident(0, 5, 6)).toBe(false);
    expect(tableA.isResident(3, 0, 0)).toBe(true);
    expect(streamer.pageTable(vtB).isResident(0, 2, 2)).toBe(true);
    expect(checkFallbackInvariant(tableA, residentMap(streamer, vtA))).toBeNull();
    expect(checkFallbackInvariant(streamer.pageTable(vtB), residentMap(streamer, vtB))).toBeNull();
    expect(streamer.releaseTexturePages(vtA, 1000, 10)).toBe(0);
  });

  it('keeps pages used at or after usedBefore and stops at maxPages', async () => {
    const { streamer, vtA } = await twoTextures();
    // Pages were loaded and used at frame 1: nothing is older than frame 1.
    expect(streamer.releaseTexturePages(vtA, 1000, 1)).toBe(0);
    expect(streamer.releaseTexturePages(vtA, 2, 2)).toBe(2);
    expect(streamer.releaseTexturePages(vtA, 1000, 2)).toBeGreaterThan(0);
    expect(streamer.releaseTexturePages(15, 1000, 2)).toBe(0);
  });

  it('with maxSlots, examines that many slots per call, resuming where the last call stopped', async () => {
    const all = await twoTextures();
    const expected = all.streamer.releaseTexturePages(all.vtA, 1000, 10);
    const { streamer, vtA } = await twoTextures();
    const pages = streamer.pool.slotPages;
    const calls = Math.ceil(pages.length / 5);
    let freed = 0;
    let before = residentMap(streamer, vtA).size;
    for (let i = 0; i < calls; i++) {
      const n = streamer.releaseTexturePages(vtA, 1000, 10, 5);
      expect(n).toBeLessThanOrEqual(5);
      const after = residentMap(streamer, vtA).size;
      expect(before - after).toBe(n);
      before = after;
      freed += n;
    }
    // One full turn of the cursor frees what one unbounded call frees.
    expect(freed).toBe(expected);
    expect(streamer.releaseTexturePages(vtA, 1000, 10, 5)).toBe(0);
  });
});
