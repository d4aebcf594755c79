import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraError } from '../../../src/core/errors';
import { PageTable } from '../../../src/core/vt/page-table/page-table';
import { BLOCK_BYTES, pointerBlock, pointerMip } from '../../../src/core/vt/page-table/page-table-blocks';
import { EMPTY_ENTRY, entryMip, entrySlot } from '../../../src/core/vt/page-table/page-table-entry';
import { VirtualTextureLayout } from '../../../src/core/vt/vt-layout';
import { DensePageTable } from '../../../src/sim/dense-page-table';
import { checkFallbackInvariant } from './helpers';

/**
 * What the GPU reads, emulated from the uploaded arrays only (indirection levels and atlas words,
 * exactly the shader's arithmetic): the entry of page (mip, x, y) and the entry of its parent.
 */
function gpuLookup(t: PageTable, mip: number, x: number, y: number): [number, number] {
  const g = t.geometry;
  let pointer: number;
  if (mip >= g.tailMip) pointer = (mip - g.tailMip) | (mip << 20);
  else if (g.dense) {
    // The dense sampler computes the block: no indirection fetch.
    const cellsPerRow = Math.max(g.indirectionWidth >> mip, 1);
    pointer = (g.denseBase[mip] + (y >> 4) * cellsPerRow + (x >> 4)) | (mip << 20);
  } else pointer = t.indirection[mip][(y >> 4) * g.cellWidths[mip] + (x >> 4)];
  const block = pointerBlock(pointer);
  const k = pointerMip(pointer);
  const lx = (x >> (k - mip)) & 15;
  const ly = (y >> (k - mip)) & 15;
  const i = (((block >> 4) * 16 + ly) * 256 + (block & 15) * 16 + lx) * 2;
  const r = t.atlas.words[i];
  return [r, k === mip ? t.atlas.words[i + 1] : r];
}

/** Every page at every mip: the sparse table (CPU and GPU view) equals the dense reference. */
function compare(sparse: PageTable, dense: DensePageTable): string | null {
  const { layout } = dense;
  for (let m = 0; m < layout.mipCount; m++) {
    for (let y = 0; y < layout.mipHeights[m]; y++) {
      for (let x = 0; x < layout.mipWidths[m]; x++) {
        const expected = dense.entry(m, x, y);
        // Trilinear's coarser mip, clamped to the coarsest.
        const parent = m + 1 < layout.mipCount ? dense.entry(m + 1, x >> 1, y >> 1) : expected;
        if (sparse.entry(m, x, y) !== expected) return `cpu mip ${m} (${x},${y})`;
        const [r, coarse] = gpuLookup(sparse, m, x, y);
        if (r !== expected) return `gpu mip ${m} (${x},${y}): ${r} != ${expected}`;
        // The coarser mip's entry (what trilinear blends with), from the same fetch.
        if (coarse !== parent) return `gpu parent mip ${m} (${x},${y})`;
      }
    }
  }
  return null;
}

const layouts = [
  { widthPages: 64, heightPages: 64 },
  { widthPages: 128, heightPages: 32 },
  { widthPages: 8, heightPages: 8 },
  { widthPages: 16, heightPages: 256 },
];

describe('PageTable (sparse)', () => {
  it('starts empty, falls back to the finest resident ancestor and stores blocks only where pages are resident', () => {
    const t = new PageTable(new VirtualTextureLayout({ widthPages: 256, heightPages: 256 }));
    const tail = t.geometry.tailBlocks;
    expect(t.geometry.tailMip).toBe(4);
    expect(t.usedBlocks).toBe(tail);
    expect(t.entry(0, 3, 3)).toBe(EMPTY_ENTRY);
    t.map(8, 0, 0, 7);
    expect(entrySlot(t.entry(0, 200, 100))).toBe(7);
    t.map(0, 200, 100, 9);
    expect(t.usedBlocks).toBe(tail + 1);
    expect(t.slotOf(0, 200, 100)).toBe(9);
    expect(entrySlot(t.entry(0, 201, 100))).toBe(7);
    t.map(1, 100, 50, 3);
    expect(entryMip(t.entry(0, 201, 100))).toBe(1);
    expect(t.slotOf(0, 200, 100)).toBe(9);
    t.unmap(0, 200, 100);
    t.unmap(1, 100, 50);
    expect(t.usedBlocks).toBe(tail);
    expect(entrySlot(t.entry(0, 200, 100))).toBe(7);
    expect(t.residentCount).toBe(1);
  });

  it('property: lookups (CPU and the GPU arrays, entry and parent) equal the dense reference under random map/unmap, sparse or dense storage', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...layouts),
        fc.array(fc.tuple(fc.nat(9), fc.nat(10), fc.nat(255), fc.nat(255), fc.nat(500)), { maxLength: 120 }),
        fc.boolean(),
        fc.constantFrom('sparse', 'dense') as fc.Arbitrary<'sparse' | 'dense'>,
        (size, ops, shrinkAtEnd, storage) => {
          const layout = new VirtualTextureLayout(size);
          const sparse = new PageTable(layout, undefined, storage);
          const dense = new DensePageTable(layout);
          for (const [kind, m0, x0, y0, slot] of ops) {
            const m = m0 % layout.mipCount;
            const x = x0 % layout.mipWidths[m];
            const y = y0 % layout.mipHeights[m];
            // Mostly fine mips (where blocks come and go), both maps and unmaps.
            const mip = kind < 3 ? 0 : kind < 5 ? Math.min(1, layout.mipCount - 1) : m;
            const mx = mip === m ? x : x0 % layout.mipWidths[mip];
            const my = mip === m ? y : y0 % layout.mipHeights[mip];
            if (kind % 3 === 2) {
              sparse.unmap(mip, mx, my);
              dense.unmap(mip, mx, my);
            } else {
              sparse.map(mip, mx, my, slot);
              dense.map(mip, mx, my, slot);
            }
            expect(sparse.residentCount).toBe(dense.residentCount);
          }
          if (shrinkAtEnd) sparse.setBlockCapacity(sparse.usedBlocks);
          const diff = compare(sparse, dense);
          if (diff) throw new Error(diff);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('dense storage keeps every block at its computed place for good; auto picks it for small tables only', () => {
    const layout = new VirtualTextureLayout({ widthPages: 128, heightPages: 64 });
    const t = new PageTable(layout, undefined, 'dense');
    const g = t.geometry;
    expect(g.dense).toBe(true);
    // 8 x 4 + 4 x 2 + 2 x 1 cells below the tail (mips 0-2), 5 tail blocks (mips 3-7).
    expect(g.allBlocks).toBe(5 + 32 + 8 + 2);
    expect(t.usedBlocks).toBe(g.allBlocks);
    expect(Array.from(g.denseBase)).toEqual([5, 37, 45]);
    t.map(0, 100, 50, 3);
    t.unmap(0, 100, 50);
    expect(t.usedBlocks).toBe(g.allBlocks);
    t.setBlockCapacity(1);
    expect(t.blockCapacity).toBe(g.minBlockCapacity);
    expect(t.gpuBytes).toBe(g.bytesFor(48));
    expect(new PageTable(layout, undefined, 'auto').geometry.dense).toBe(true);
    expect(
      new PageTable(new VirtualTextureLayout({ widthPages: 128, heightPages: 128 }), undefined, 'auto')
        .geometry.dense,
    ).toBe(true);
    expect(
      new PageTable(new VirtualTextureLayout({ widthPages: 256, heightPages: 128 }), undefined, 'auto')
        .geometry.dense,
    ).toBe(false);
    expect(new PageTable(layout).geometry.dense).toBe(false);
  });

  it('frees a block with its last resident page and reuses it', () => {
    const t = new PageTable(new VirtualTextureLayout({ widthPages: 64, heightPages: 64 }));
    const base = t.usedBlocks;
    for (let i = 0; i < 40; i++) t.map(0, (i * 7) % 64, (i * 13) % 64, i);
    const peak = t.usedBlocks;
    expect(peak).toBeLessThanOrEqual(base + 16);
    for (let i = 0; i < 40; i++) t.unmap(0, (i * 7) % 64, (i * 13) % 64);
    expect(t.usedBlocks).toBe(base);
    expect(t.residentCount).toBe(0);
  });

  it('refuses a block beyond a fixed capacity (canMap false, map throws) and keeps every other page', () => {
    const layout = new VirtualTextureLayout({ widthPages: 512, heightPages: 512 });
    const t = new PageTable(layout);
    t.autoGrow = false;
    t.map(layout.mipCount - 1, 0, 0, 0);
    const free = t.blockCapacity - t.usedBlocks;
    for (let i = 0; i < free; i++) t.map(0, i * 16, 0, i + 1);
    expect(t.canMap(0, 0, 16)).toBe(false);
    expect(t.canMap(0, 1, 0)).toBe(true); // its block is stored
    expect(() => t.map(0, 0, 16, 99)).toThrow(TesseraError);
    const resident = new Map<string, number>([[`${layout.mipCount - 1},0,0`, 0]]);
    for (let i = 0; i < free; i++) resident.set(`0,${i * 16},0`, i + 1);
    expect(t.residentCount).toBe(resident.size);
    // The failed map changed nothing: every lookup still finds the finest resident ancestor.
    expect(checkFallbackInvariant(t, resident)).toBeNull();
  });

  it('grows and shrinks its atlas: bytes follow the stored blocks, not the virtual size', () => {
    const layout = new VirtualTextureLayout({ widthPages: 4096, heightPages: 4096 });
    const t = new PageTable(layout);
    const dense = new DensePageTable(layout);
    const denseBytes = 4 * dense.entries.reduce((a, e) => a + e.length, 0);
    expect(denseBytes).toBeGreaterThan(89_000_000);
    t.map(layout.mipCount - 1, 0, 0, 0);
    for (let i = 0; i < 500; i++) t.map(0, (i * 97) % 4096, (i * 389) % 4096, i + 1);
    expect(t.usedBlocks).toBeLessThanOrEqual(t.geometry.tailBlocks + 500);
    expect(t.gpuBytes).toBe(t.geometry.indirectionBytes + t.blockCapacity * BLOCK_BYTES);
    expect(t.gpuBytes).toBeLessThan(4 << 20);
    for (let i = 0; i < 500; i++) t.unmap(0, (i * 97) % 4096, (i * 389) % 4096);
    t.setBlockCapacity(0);
    expect(t.blockCapacity).toBe(t.geometry.minBlockCapacity);
    expect(t.gpuBytes).toBeLessThan(400_000);
    expect(entrySlot(t.entry(0, 4000, 4000))).toBe(0);
  });

  it('records dirty rectangles that grow with the changes, not the table', () => {
    const t = new PageTable(new VirtualTextureLayout({ widthPages: 1024, heightPages: 1024 }));
    t.map(10, 0, 0, 0);
    t.clearDirty();
    t.map(0, 500, 300, 1);
    // One new block (its 256 entries written once) and one indirection cell per level below it.
    expect(t.dirtyBytes).toBeLessThanOrEqual(256 * 8 + 6 * 4 * 4);
    t.clearDirty();
    t.map(0, 501, 300, 2);
    expect(t.dirtyBytes).toBe(8);
    t.clearDirty();
    expect(t.hasDirty).toBe(false);
  });
});
