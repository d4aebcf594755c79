import type { VirtualTextureLayout } from '../vt-layout';

/**
 * Geometry of a sparse page table (see `page-table.ts` and docs/page-tables.md): each mip of the
 * dense table is cut into blocks of {@link BLOCK_PAGES}² entries; a block is stored (in the block
 * atlas) only while one of its pages is resident. A coarse indirection, one cell per block, points
 * each cell at the finest stored block covering it.
 */

/** Side of one page-table block, in pages (entries). */
export const BLOCK_PAGES = 16;
/** log2 of {@link BLOCK_PAGES}. */
export const BLOCK_SHIFT = 4;
/** Entries in one block. */
export const BLOCK_ENTRIES = BLOCK_PAGES * BLOCK_PAGES;
/** Blocks per row of the block atlas (its width is fixed; it grows in rows). */
export const ATLAS_BLOCKS_PER_ROW = 16;
/** Width of the block atlas, in entries (texels). */
export const ATLAS_WIDTH = ATLAS_BLOCKS_PER_ROW * BLOCK_PAGES;
/** Bytes of one atlas entry on the GPU (`rg32uint`: the entry and its parent's entry). */
export const ATLAS_ENTRY_BYTES = 8;
/** Bytes of one stored block on the GPU. */
export const BLOCK_BYTES = BLOCK_ENTRIES * ATLAS_ENTRY_BYTES;
/** Bytes of one indirection cell on the GPU (`r32uint`). */
export const INDIRECTION_CELL_BYTES = 4;

/**
 * Packs an indirection pointer: block `block` of the atlas, which holds entries of mip `mip`
 * (`mip` >= the cell's own mip when the cell's own block is not stored).
 */
export function packPointer(block: number, mip: number): number {
  return (block | (mip << 20)) >>> 0;
}

/** Block of a pointer. */
export function pointerBlock(pointer: number): number {
  return pointer & 0xfffff;
}

/** Mip of a pointer's block. */
export function pointerMip(pointer: number): number {
  return pointer >>> 20;
}

/**
 * Largest page table stored densely by default, in GPU bytes of every block plus the indirection
 * (256 KiB: up to 128 x 128 pages). Such a table costs less than one rgba8 tile row of a pool and
 * lets the sampler skip the indirection fetch; beyond it, sparse storage keeps the table following
 * the view (see docs/page-tables.md).
 */
export const DENSE_PAGE_TABLE_MAX_BYTES = 256 * 1024;

/** How a page table stores its blocks (see `PageTable`'s constructor). */
export type PageTableStorage = 'sparse' | 'dense' | 'auto';

/** GPU bytes of `layout`'s page table stored densely (every block, and the indirection). */
export function densePageTableBytes(layout: VirtualTextureLayout): number {
  const g = new PageTableGeometry(layout, true);
  return g.bytesFor(g.minBlockCapacity);
}

/** True when `layout`'s fully stored page table fits {@link DENSE_PAGE_TABLE_MAX_BYTES}. */
export function prefersDensePageTable(layout: VirtualTextureLayout): boolean {
  return densePageTableBytes(layout) <= DENSE_PAGE_TABLE_MAX_BYTES;
}

/** Block geometry of one layout (pure numbers, computed once per texture). */
export class PageTableGeometry {
  /**
   * First mip that fits in one block (both sides <= {@link BLOCK_PAGES}). Mips from here up (the
   * tail) each own one block that is always stored, block `mip - tailMip`; mips below it go
   * through the indirection.
   */
  readonly tailMip: number;
  /** Blocks of the tail (always stored, first in the atlas). */
  readonly tailBlocks: number;
  /** Indirection cells per row at each mip below {@link tailMip}. */
  readonly cellWidths: Int32Array;
  /** Indirection rows at each mip below {@link tailMip}. */
  readonly cellHeights: Int32Array;
  /** Indirection texture level 0 size, in cells (its level m is `max(1, size >> m)`). */
  readonly indirectionWidth: number;
  readonly indirectionHeight: number;
  /** Levels of the indirection texture (at least 1: a 1 x 1 placeholder when the tail is all). */
  readonly indirectionLevels: number;
  /** GPU bytes of the indirection texture. */
  readonly indirectionBytes: number;
  /**
   * True when every block is stored for good: block `denseBase[m] + cy * cellWidths[m] + cx` holds
   * cell (cx, cy) of mip m below the tail, so the sampler computes it without the indirection.
   */
  readonly dense: boolean;
  /** First block of each mip below the tail in a {@link dense} table (after the tail's blocks). */
  readonly denseBase: Int32Array;
  /** Blocks of every mip below the tail and of the tail: all a table can ever store. */
  readonly allBlocks: number;

  constructor(layout: VirtualTextureLayout, dense = false) {
    let tail = 0;
    while (layout.mipWidths[tail] > BLOCK_PAGES || layout.mipHeights[tail] > BLOCK_PAGES) tail++;
    this.tailMip = tail;
    this.tailBlocks = layout.mipCount - tail;
    // Page counts are powers of two, so the level-m grid of a mip-mapped texture of
    // (pages / 16) cells is exactly the blocks of mip m.
    this.indirectionWidth = Math.max(1, layout.widthPages >> BLOCK_SHIFT);
    this.indirectionHeight = Math.max(1, layout.heightPages >> BLOCK_SHIFT);
    this.indirectionLevels = Math.max(1, tail);
    this.cellWidths = new Int32Array(tail);
    this.cellHeights = new Int32Array(tail);
    let bytes = 0;
    for (let m = 0; m < this.indirectionLevels; m++) {
      const w = Math.max(1, this.indirectionWidth >> m);
      const h = Math.max(1, this.indirectionHeight >> m);
      if (m < tail) {
        this.cellWidths[m] = w;
        this.cellHeights[m] = h;
      }
      bytes += w * h * INDIRECTION_CELL_BYTES;
    }
    this.indirectionBytes = bytes;
    this.dense = dense;
    this.denseBase = new Int32Array(tail);
    let blocks = this.tailBlocks;
    for (let m = 0; m < tail; m++) {
      this.denseBase[m] = blocks;
      blocks += this.cellWidths[m] * this.cellHeights[m];
    }
    this.allBlocks = blocks;
  }

  /**
   * Smallest block capacity accepted, rounded up to whole atlas rows: the tail's blocks, or every
   * block when {@link dense}.
   */
  get minBlockCapacity(): number {
    return roundToAtlasRows(this.dense ? this.allBlocks : this.tailBlocks);
  }

  /** GPU bytes of the indirection plus an atlas of `blockCapacity` blocks. */
  bytesFor(blockCapacity: number): number {
    return this.indirectionBytes + blockCapacity * BLOCK_BYTES;
  }
}

/** `blocks` rounded up to whole atlas rows of {@link ATLAS_BLOCKS_PER_ROW}. */
export function roundToAtlasRows(blocks: number): number {
  return Math.max(1, Math.ceil(blocks / ATLAS_BLOCKS_PER_ROW)) * ATLAS_BLOCKS_PER_ROW;
}
