import { DirtyRegions } from './dirty-regions';
import {
  ATLAS_BLOCKS_PER_ROW,
  ATLAS_WIDTH,
  BLOCK_ENTRIES,
  BLOCK_PAGES,
  BLOCK_SHIFT,
} from './page-table-blocks';
import { EMPTY_ENTRY } from './page-table-entry';

/**
 * The stored blocks of a sparse page table, on the CPU exactly as the GPU atlas holds them: an
 * `rg32uint` texture `ATLAS_WIDTH` (256) entries wide, `ATLAS_BLOCKS_PER_ROW` blocks per row,
 * block `b` at entry (`(b % 16) * 16`, `floor(b / 16) * 16`). Each entry is two words: the page's
 * entry (finest resident ancestor) and its parent's entry (what trilinear's coarser mip reads).
 * Blocks come from a free min-heap (lowest index first, so a shrink moves few); metadata per block
 * says which mip and cell it stores and how many of its pages are resident.
 */
export class PageTableAtlas {
  /** Entry pairs, row-major, `ATLAS_WIDTH x 2` words per row; uploadable as-is. */
  words: Uint32Array;
  /** Blocks the atlas holds. */
  capacity = 0;
  /** Blocks in use. */
  used = 0;
  /** Mip stored in each block. */
  blockMip: Uint8Array;
  /** Indirection cell of each block at its mip: the column. */
  blockCellX: Uint16Array;
  /** Indirection cell of each block at its mip: the row. */
  blockCellY: Uint16Array;
  /** Resident pages of each block (at most 256). */
  blockResident: Uint16Array;
  private blockUsed: Uint8Array;
  /** Changed atlas rectangles, in entries (one "mip": the atlas). */
  readonly dirty: DirtyRegions;
  private free: Int32Array;
  private freeCount = 0;

  constructor(capacity: number, maxDirtyRects: number) {
    this.words = new Uint32Array(0);
    this.blockMip = new Uint8Array(0);
    this.blockCellX = new Uint16Array(0);
    this.blockCellY = new Uint16Array(0);
    this.blockResident = new Uint16Array(0);
    this.blockUsed = new Uint8Array(0);
    this.free = new Int32Array(0);
    this.dirty = new DirtyRegions(1, maxDirtyRects);
    this.resize(capacity);
  }

  /** Height of the atlas, in entries. */
  get height(): number {
    return (this.capacity / ATLAS_BLOCKS_PER_ROW) * BLOCK_PAGES;
  }

  /** Free blocks. */
  get freeBlocks(): number {
    return this.freeCount;
  }

  /** Word index of entry (`lx`, `ly`) of block `block` (its parent's entry is the next word). */
  index(block: number, lx: number, ly: number): number {
    const x = ((block % ATLAS_BLOCKS_PER_ROW) << BLOCK_SHIFT) + lx;
    const y = (Math.floor(block / ATLAS_BLOCKS_PER_ROW) << BLOCK_SHIFT) + ly;
    return (y * ATLAS_WIDTH + x) * 2;
  }

  /** Takes the lowest free block for cell (`cx`, `cy`) of `mip`; -1 when none is free. */
  allocate(mip: number, cx: number, cy: number): number {
    if (this.freeCount === 0) return -1;
    const b = this.popFree();
    this.blockUsed[b] = 1;
    this.blockMip[b] = mip;
    this.blockCellX[b] = cx;
    this.blockCellY[b] = cy;
    this.blockResident[b] = 0;
    this.used++;
    return b;
  }

  /** Returns `block` to the free list (its words are left as they are: nothing points at it). */
  release(block: number): void {
    this.blockUsed[block] = 0;
    this.used--;
    this.pushFree(block);
  }

  /** Marks rectangle [lx, lx + w) x [ly, ly + h) of `block` changed. */
  markDirty(block: number, lx: number, ly: number, w: number, h: number): void {
    const x = ((block % ATLAS_BLOCKS_PER_ROW) << BLOCK_SHIFT) + lx;
    const y = (Math.floor(block / ATLAS_BLOCKS_PER_ROW) << BLOCK_SHIFT) + ly;
    this.dirty.add(0, x, y, w, h);
  }

  /** Marks every entry changed (after the GPU texture was recreated). */
  markAllDirty(): void {
    this.dirty.clear();
    this.dirty.add(0, 0, 0, ATLAS_WIDTH, this.height);
  }

  /**
   * Copies used block `from` into free block `to` (words and metadata) and frees `from`; the caller
   * repoints the indirection and then calls {@link rebuildFreeList}. For shrinking only.
   */
  move(from: number, to: number): void {
    for (let ly = 0; ly < BLOCK_PAGES; ly++) {
      const src = this.index(from, 0, ly);
      this.words.copyWithin(this.index(to, 0, ly), src, src + BLOCK_PAGES * 2);
    }
    this.blockUsed[to] = 1;
    this.blockUsed[from] = 0;
    this.blockMip[to] = this.blockMip[from];
    this.blockCellX[to] = this.blockCellX[from];
    this.blockCellY[to] = this.blockCellY[from];
    this.blockResident[to] = this.blockResident[from];
  }

  /** True when `block` is in use. */
  isUsed(block: number): boolean {
    return this.blockUsed[block] === 1;
  }

  /**
   * Gives the atlas `capacity` blocks (whole rows). Growing keeps every block where it is; shrinking
   * requires every used block below `capacity` (the caller moves them first).
   */
  resize(capacity: number): void {
    const words = new Uint32Array(capacity * BLOCK_ENTRIES * 2).fill(EMPTY_ENTRY);
    words.set(this.words.subarray(0, Math.min(this.words.length, words.length)));
    this.words = words;
    const keep = Math.min(this.capacity, capacity);
    this.blockUsed = grow(this.blockUsed, new Uint8Array(capacity), keep);
    this.blockMip = grow(this.blockMip, new Uint8Array(capacity), keep);
    this.blockCellX = grow(this.blockCellX, new Uint16Array(capacity), keep);
    this.blockCellY = grow(this.blockCellY, new Uint16Array(capacity), keep);
    this.blockResident = grow(this.blockResident, new Uint16Array(capacity), keep);
    this.free = new Int32Array(capacity);
    this.capacity = capacity;
    this.rebuildFreeList();
  }

  /** Rebuilds the free heap from the used flags (after moves or a resize; O(capacity)). */
  rebuildFreeList(): void {
    let n = 0;
    // Ascending order is already a valid min-heap.
    for (let b = 0; b < this.capacity; b++) if (this.blockUsed[b] === 0) this.free[n++] = b;
    this.freeCount = n;
  }

  // A binary min-heap of free block indices: the lowest is reused first, so a later shrink has
  // few blocks to move; O(log n) per allocation, nothing allocated.
  private pushFree(block: number): void {
    const heap = this.free;
    let i = this.freeCount++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent] <= block) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = block;
  }

  private popFree(): number {
    const heap = this.free;
    const top = heap[0];
    const last = heap[--this.freeCount];
    const n = this.freeCount;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && heap[l + 1] < heap[l] ? l + 1 : l;
      if (heap[c] >= last) break;
      heap[i] = heap[c];
      i = c;
    }
    if (n > 0) heap[i] = last;
    return top;
  }
}

function grow<T extends Uint8Array | Uint16Array>(old: T, next: T, keep: number): T {
  next.set(old.subarray(0, keep));
  return next;
}
