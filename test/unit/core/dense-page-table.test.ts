import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_ENTRY, entryMip, entrySlot } from '../../../src/core/vt/page-table/page-table-entry';
import { VirtualTextureLayout } from '../../../src/core/vt/vt-layout';
import { DensePageTable as PageTable } from '../../../src/sim/dense-page-table';
import { checkFallbackInvariant } from './helpers';

describe('DensePageTable (the reference)', () => {
  it('starts empty and falls back to the finest resident ancestor', () => {
    const t = new PageTable(new VirtualTextureLayout({ widthPages: 8, heightPages: 8 }));
    expect(t.entry(0, 3, 3)).toBe(EMPTY_ENTRY);
    t.map(3, 0, 0, 7);
    expect(entrySlot(t.entry(0, 5, 6))).toBe(7);
    expect(entryMip(t.entry(0, 5, 6))).toBe(3);
    t.map(1, 2, 3, 9);
    expect(t.isResident(1, 2, 3)).toBe(true);
    expect(t.slotOf(1, 2, 3)).toBe(9);
    expect(t.slotOf(0, 5, 6)).toBe(-1);
    expect(entrySlot(t.entry(0, 5, 6))).toBe(9);
    expect(entrySlot(t.entry(0, 0, 0))).toBe(7);
    t.unmap(1, 2, 3);
    expect(entrySlot(t.entry(0, 5, 6))).toBe(7);
    expect(t.residentCount).toBe(1);
    t.unmap(3, 0, 0);
    expect(t.entry(0, 5, 6)).toBe(EMPTY_ENTRY);
  });

  it('stops descending under a finer resident page', () => {
    const t = new PageTable(new VirtualTextureLayout({ widthPages: 8, heightPages: 8 }));
    t.map(1, 0, 0, 1);
    t.clearDirty();
    t.map(2, 0, 0, 2);
    // mip 1 (0,0) overrides its sub-tree: its entry and its children at mip 0 are untouched.
    expect(entrySlot(t.entry(0, 0, 0))).toBe(1);
    expect(entrySlot(t.entry(0, 2, 0))).toBe(2);
    // Changed: 1 at mip 2, 3 at mip 1, 12 at mip 0 (bounding boxes 1 + 4 + 16 entries).
    expect(t.dirtyBytes).toBe((1 + 4 + 16) * 4);
  });

  it('records dirty rectangles that grow with the changes, not the table', () => {
    const t = new PageTable(new VirtualTextureLayout({ widthPages: 1024, heightPages: 1024 }));
    t.map(10, 0, 0, 0);
    t.clearDirty();
    for (let i = 0; i < 16; i++) t.map(0, i * 50, i * 37, i + 1);
    expect(t.dirtyBytes).toBe(16 * 4);
    expect(t.dirty.counts[0]).toBe(16);
    const r = t.dirty.rects;
    expect([r[0], r[1], r[2], r[3]]).toEqual([0, 0, 1, 1]);
    t.clearDirty();
    expect(t.dirtyBytes).toBe(0);
  });

  it('merges rectangles past the per-mip bound into bounding boxes', () => {
    const t = new PageTable(new VirtualTextureLayout({ widthPages: 64, heightPages: 64 }), 4);
    for (let i = 0; i < 10; i++) t.map(0, i * 3, 0, i);
    expect(t.dirty.counts[0]).toBe(4);
    // Every changed entry is covered by some rectangle.
    for (let i = 0; i < 10; i++) {
      let covered = false;
      for (let k = 0; k < 4; k++) {
        const [x, y, w, h] = t.dirty.rects.subarray(k * 4, k * 4 + 4);
        if (i * 3 >= x && i * 3 < x + w && y === 0 && h >= 1) covered = true;
      }
      expect(covered).toBe(true);
    }
  });

  it('property: the fallback invariant holds after any map/unmap sequence (brute force)', () => {
    const sizes = fc.constantFrom([8, 8], [16, 4], [2, 16], [1, 1], [4, 1]);
    fc.assert(
      fc.property(
        sizes,
        fc.array(fc.tuple(fc.boolean(), fc.nat(8), fc.nat(31), fc.nat(31), fc.nat(65535)), { maxLength: 60 }),
        ([w, h], ops) => {
          const layout = new VirtualTextureLayout({ widthPages: w, heightPages: h, pinnedMipCount: 1 });
          const t = new PageTable(layout, 3);
          const resident = new Map<string, number>();
          for (const [isMap, m0, x0, y0, slot] of ops) {
            const m = m0 % layout.mipCount;
            const x = x0 % layout.mipWidths[m];
            const y = y0 % layout.mipHeights[m];
            if (isMap) {
              t.map(m, x, y, slot);
              resident.set(`${m},${x},${y}`, slot);
            } else {
              t.unmap(m, x, y);
              resident.delete(`${m},${x},${y}`);
            }
            const err = checkFallbackInvariant(t, resident);
            if (err) throw new Error(err);
            expect(t.residentCount).toBe(resident.size);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('property: every entry changed since clearDirty lies in a dirty rectangle', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(4), fc.nat(15), fc.nat(15)), { maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        (ops, maxRects) => {
          const layout = new VirtualTextureLayout({ widthPages: 16, heightPages: 16 });
          const t = new PageTable(layout, maxRects);
          const before = t.entries.map((e) => e.slice());
          for (const [isMap, m, x0, y0] of ops) {
            const x = x0 % layout.mipWidths[m];
            const y = y0 % layout.mipHeights[m];
            if (isMap) t.map(m, x, y, x + y * 16);
            else t.unmap(m, x, y);
          }
          for (let m = 0; m < layout.mipCount; m++) {
            const w = layout.mipWidths[m];
            for (let i = 0; i < t.entries[m].length; i++) {
              if (t.entries[m][i] === before[m][i]) continue;
              const x = i % w;
              const y = Math.floor(i / w);
              let covered = false;
              for (let k = 0; k < t.dirty.counts[m]; k++) {
                const o = (m * maxRects + k) * 4;
                const r = t.dirty.rects;
                if (x >= r[o] && x < r[o] + r[o + 2] && y >= r[o + 1] && y < r[o + 1] + r[o + 3])
                  covered = true;
              }
              if (!covered) throw new Error(`mip ${m} (${x},${y}) changed outside dirty rects`);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
