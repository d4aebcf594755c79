import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { NO_REQUEST, packPageId } from '../../../src/core/vt/page-id';
import { pagesOverlappingRect, tileUvRect, type UvRect } from '../../../src/core/vt/page-rect';
import { PageRefreshQueue } from '../../../src/core/vt/scheduling/page-refresh-queue';
import { sourceTileBytes, tileMatchesInfo } from '../../../src/core/vt/tile-bytes';
import { VirtualTextureLayout } from '../../../src/core/vt/vt-layout';

const layout = new VirtualTextureLayout({ widthPages: 16, heightPages: 8, tileSize: 128, border: 4 });
const rect = (minU: number, minV: number, maxU: number, maxV: number): UvRect => ({ minU, minV, maxU, maxV });
const range = () => ({ x0: 0, y0: 0, x1: -1, y1: -1 });

/** The reference: every page whose tile (border included) overlaps `r` with positive area, by brute force. */
function bruteForce(l: VirtualTextureLayout, mip: number, r: UvRect): string[] {
  const out: string[] = [];
  const t = rect(0, 0, 0, 0);
  for (let y = 0; y < l.mipHeights[mip]; y++) {
    for (let x = 0; x < l.mipWidths[mip]; x++) {
      tileUvRect(l, mip, x, y, t);
      const overlaps = t.minU < r.maxU && t.maxU > r.minU && t.minV < r.maxV && t.maxV > r.minV;
      if (overlaps && r.maxU > r.minU && r.maxV > r.minV) out.push(`${x},${y}`);
    }
  }
  return out;
}

function listed(l: VirtualTextureLayout, mip: number, r: UvRect): string[] {
  const p = pagesOverlappingRect(l, mip, r, range());
  const out: string[] = [];
  for (let y = p.y0; y <= p.y1; y++) for (let x = p.x0; x <= p.x1; x++) out.push(`${x},${y}`);
  return out;
}

describe('pagesOverlappingRect (rect -> pages at every mip)', () => {
  it('finds the page under a small rect and its neighbours only when their borders reach it', () => {
    // Centre of page (5, 3) at mip 0: 1/16 x 1/8 of uv per page.
    expect(listed(layout, 0, rect(5.4 / 16, 3.4 / 8, 5.6 / 16, 3.6 / 8))).toEqual(['5,3']);
    // Just inside page 5's left edge: page 4's right border (4 of 120 texels) covers it.
    expect(listed(layout, 0, rect(5.01 / 16, 3.4 / 8, 5.02 / 16, 3.6 / 8))).toEqual(['4,3', '5,3']);
    // Coarser mips: the same rect lies in one page each, down to the single page of the last mip.
    expect(listed(layout, 1, rect(5.4 / 16, 3.4 / 8, 5.6 / 16, 3.6 / 8))).toEqual(['2,1']);
    expect(listed(layout, layout.mipCount - 1, rect(0.3, 0.4, 0.31, 0.41))).toEqual(['0,0']);
  });

  it('clamps to the texture and is empty outside it or for a rect of no area', () => {
    expect(listed(layout, 0, rect(-1, -1, 2, 2)).length).toBe(16 * 8);
    expect(listed(layout, 0, rect(1.2, 0, 1.5, 1))).toEqual([]);
    expect(listed(layout, 0, rect(-0.5, 0, -0.2, 1))).toEqual([]);
    expect(listed(layout, 0, rect(0.5, 0.5, 0.5, 0.7))).toEqual([]);
  });

  it('agrees with a brute-force overlap test at every mip (property)', () => {
    const layouts = [
      layout,
      new VirtualTextureLayout({ widthPages: 4, heightPages: 32, tileSize: 64, border: 2 }),
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1 }),
        fc.double({ min: -0.2, max: 1.2, noNaN: true }),
        fc.double({ min: -0.2, max: 1.2, noNaN: true }),
        fc.double({ min: 0, max: 0.6, noNaN: true }),
        fc.double({ min: 0, max: 0.6, noNaN: true }),
        (which, u, v, w, h) => {
          const l = layouts[which];
          const r = rect(u, v, u + w, v + h);
          for (let mip = 0; mip < l.mipCount; mip++) expect(listed(l, mip, r)).toEqual(bruteForce(l, mip, r));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects malformed rects and mips with a typed error', () => {
    const bad = [rect(Number.NaN, 0, 1, 1), rect(0, 0, Number.POSITIVE_INFINITY, 1), rect(0.5, 0, 0.4, 1)];
    for (const r of bad)
      expect(() => pagesOverlappingRect(layout, 0, r, range())).toThrow(TesseraConfigError);
    expect(() => pagesOverlappingRect(layout, layout.mipCount, rect(0, 0, 1, 1), range())).toThrow(
      TesseraConfigError,
    );
  });
});

describe('PageRefreshQueue', () => {
  it('keeps marking order, holds each page once and grows past its capacity', () => {
    const q = new PageRefreshQueue(8);
    const ids = Array.from({ length: 40 }, (_, i) => packPageId(i % 3, i % 5, i, 7));
    for (const id of ids) expect(q.add(id)).toBe(true);
    for (const id of ids) expect(q.add(id)).toBe(false);
    expect(q.size).toBe(40);
    const taken: number[] = [];
    for (let id = q.take(); id !== NO_REQUEST; id = q.take()) taken.push(id);
    expect(taken).toEqual(ids);
    expect(q.has(ids[0])).toBe(false);
  });

  it('forgets the pages of one texture and keeps the others in order', () => {
    const q = new PageRefreshQueue(4);
    const a = [
      packPageId(1, 0, 1, 1),
      packPageId(2, 0, 1, 1),
      packPageId(1, 1, 0, 0),
      packPageId(3, 0, 0, 0),
    ];
    for (const id of a) q.add(id);
    q.clear(1);
    expect([q.take(), q.take(), q.take()]).toEqual([a[1], a[3], NO_REQUEST]);
  });
});

describe('rendered sources in the tile check', () => {
  const info = {
    widthPages: 4,
    heightPages: 4,
    tileSize: 16,
    border: 2,
    layers: [{ name: 'albedo', format: 'rgba8unorm-srgb' as const }],
  };
  it('stages no bytes for a rendered source and accepts only its empty token', () => {
    expect(sourceTileBytes(info)).toBe(16 * 16 * 4);
    expect(sourceTileBytes({ ...info, rendered: true })).toBe(0);
    expect(tileMatchesInfo({ layers: [] }, { ...info, rendered: true })).toBe(true);
    expect(tileMatchesInfo({ layers: [new Uint8Array(16 * 16 * 4)] }, { ...info, rendered: true })).toBe(
      false,
    );
    expect(tileMatchesInfo({ layers: [] }, info)).toBe(false);
  });
});
