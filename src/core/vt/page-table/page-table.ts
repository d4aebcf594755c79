import { TesseraError } from '../../errors';
import type { VirtualTextureLayout } from '../vt-layout';
import { DirtyRegions } from './dirty-regions';
import { PageTableAtlas } from './page-table-atlas';
import {
  BLOCK_PAGES,
  BLOCK_SHIFT,
  PageTableGeometry,
  type PageTableStorage,
  packPointer,
  prefersDensePageTable,
  roundToAtlasRows,
} from './page-table-blocks';
import { EMPTY_ENTRY, packEntry } from './page-table-entry';
import { replacePointersUnder } from './page-table-pointers';

/** Default bound on dirty rectangles kept per indirection level (and for the atlas) before merging. */
export const DEFAULT_MAX_DIRTY_RECTS_PER_MIP = 64;

const LOCAL_MASK = BLOCK_PAGES - 1;

/**
 * CPU mirror of one virtual texture's sparse page table (docs/page-tables.md).
 *
 * Logically it is the dense table: per page an entry (format in `page-table-entry.ts`) naming the
 * finest resident page among itself and its ancestors, or {@link EMPTY_ENTRY}; a page is resident
 * exactly when its entry names its own mip. Stored, each mip is cut into 16 x 16-page blocks and
 * only blocks holding a resident page are kept (in {@link atlas}); a block not stored has no
 * resident page, so each of its entries equals its parent's, found in the finest stored block
 * above it. {@link indirection} holds, per block of each mip below the tail, a pointer to that
 * block (block index and mip). Each stored entry also carries its parent's entry, so trilinear
 * reads both mips in one fetch.
 *
 * {@link map} / {@link unmap} rewrite only stored entries whose value changes, allocate a block
 * when its first page becomes resident and free it after its last, and record dirty rectangles of
 * the atlas and the indirection. Blocks come from a capacity the owner sets
 * ({@link setBlockCapacity}); {@link canMap} says whether a page can be mapped without a block the
 * table does not have. Allocates nothing per call in steady state.
 */
export class PageTable {
  /** Geometry of the virtual texture. */
  readonly layout: VirtualTextureLayout;
  /** Block geometry (tail mip, indirection size). */
  readonly geometry: PageTableGeometry;
  /** The stored blocks (entries and their parents' entries), uploadable to an rg32uint texture. */
  readonly atlas: PageTableAtlas;
  /** Per indirection level (= mip below the tail) the packed pointers, row-major, uploadable as-is. */
  readonly indirection: readonly Uint32Array[];
  /** Rectangles of {@link indirection} changed since the last {@link clearDirty}, per level. */
  readonly indirectionDirty: DirtyRegions;
  /** Number of resident pages. */
  residentCount = 0;
  /**
   * When true (the default), a map that needs a block beyond the capacity doubles it (up to what the
   * texture could ever need). A GPU owner turns it off and sets the capacity itself, within its budget.
   */
  autoGrow = true;
  // Stored block of each indirection cell, -1 when none.
  private readonly cellBlock: Int32Array[];
  private readonly maxBlocks: number;
  // Block found by the latest locate().
  private lastBlock = 0;

  /**
   * `storage`: `'sparse'` (default) stores blocks as pages need them; `'dense'` stores every block
   * for good (see `PageTableGeometry.dense`), so the sampler skips the indirection fetch;
   * `'auto'` is dense when `prefersDensePageTable` says so (small tables).
   */
  constructor(
    layout: VirtualTextureLayout,
    maxDirtyRectsPerMip = DEFAULT_MAX_DIRTY_RECTS_PER_MIP,
    storage: PageTableStorage = 'sparse',
  ) {
    this.layout = layout;
    const dense = storage === 'dense' || (storage === 'auto' && prefersDensePageTable(layout));
    const g = new PageTableGeometry(layout, dense);
    this.geometry = g;
    const indirection: Uint32Array[] = [];
    const cellBlock: Int32Array[] = [];
    for (let m = 0; m < g.tailMip; m++) {
      indirection.push(new Uint32Array(g.cellWidths[m] * g.cellHeights[m]));
      cellBlock.push(new Int32Array(g.cellWidths[m] * g.cellHeights[m]).fill(-1));
    }
    this.indirection = indirection;
    this.cellBlock = cellBlock;
    this.indirectionDirty = new DirtyRegions(g.indirectionLevels, maxDirtyRectsPerMip);
    let cells = 0;
    for (let m = 0; m < g.tailMip; m++) cells += g.cellWidths[m] * g.cellHeights[m];
    this.maxBlocks = roundToAtlasRows(cells + g.tailBlocks);
    this.atlas = new PageTableAtlas(g.minBlockCapacity, maxDirtyRectsPerMip);
    // The tail's blocks are always stored: blocks 0.. in mip order (a fresh heap gives them so).
    for (let m = g.tailMip; m < layout.mipCount; m++) this.atlas.allocate(m, 0, 0);
    // Every cell below the tail points at the tail's first block until blocks are stored.
    for (let m = 0; m < g.tailMip; m++) indirection[m].fill(packPointer(0, g.tailMip));
    // Dense: every other block, in the order denseBase gives (the heap hands out the lowest first).
    for (let m = 0; dense && m < g.tailMip; m++) {
      for (let cell = 0; cell < g.cellWidths[m] * g.cellHeights[m]; cell++) {
        this.storeBlock(m, cell % g.cellWidths[m], Math.floor(cell / g.cellWidths[m]), cell);
      }
    }
  }

  /** Entry of page (`mip`, `x`, `y`) (coordinates in pages at that mip). */
  entry(mip: number, x: number, y: number): number {
    return this.atlas.words[this.locate(mip, x, y)];
  }

  /** True when page (`mip`, `x`, `y`) itself is resident (not merely served by an ancestor). */
  isResident(mip: number, x: number, y: number): boolean {
    const e = this.entry(mip, x, y);
    return e !== EMPTY_ENTRY && ((e >>> 16) & 0xf) === mip;
  }

  /** Slot holding page (`mip`, `x`, `y`), or -1 when it is not resident. */
  slotOf(mip: number, x: number, y: number): number {
    const e = this.entry(mip, x, y);
    return e !== EMPTY_ENTRY && ((e >>> 16) & 0xf) === mip ? e & 0xffff : -1;
  }

  /** Blocks the atlas holds now. */
  get blockCapacity(): number {
    return this.atlas.capacity;
  }

  /** Blocks stored now (the tail's included). */
  get usedBlocks(): number {
    return this.atlas.used;
  }

  /** GPU bytes of the indirection plus the atlas at its current capacity. */
  get gpuBytes(): number {
    return this.geometry.bytesFor(this.atlas.capacity);
  }

  /** True while some rectangle awaits upload. */
  get hasDirty(): boolean {
    return this.atlas.dirty.counts[0] > 0 || this.indirectionDirty.entryCount() > 0;
  }

  /** Bytes the GPU binding must upload for the current dirty rectangles. */
  get dirtyBytes(): number {
    return this.atlas.dirty.entryCount() * 8 + this.indirectionDirty.entryCount() * 4;
  }

  /** Forgets the dirty rectangles (call after uploading them). */
  clearDirty(): void {
    this.atlas.dirty.clear();
    this.indirectionDirty.clear();
  }

  /** Marks everything dirty (e.g. after the GPU textures were recreated). */
  markAllDirty(): void {
    this.atlas.markAllDirty();
    const g = this.geometry;
    this.indirectionDirty.clear();
    for (let m = 0; m < g.tailMip; m++) this.indirectionDirty.add(m, 0, 0, g.cellWidths[m], g.cellHeights[m]);
  }

  /**
   * True when page (`mip`, `x`, `y`) can be mapped now: it is resident, its block is stored, a block
   * is free, or {@link autoGrow} may add one.
   */
  canMap(mip: number, x: number, y: number): boolean {
    if (mip >= this.geometry.tailMip) return true;
    const cells = this.geometry.cellWidths[mip];
    if (this.cellBlock[mip][(y >> BLOCK_SHIFT) * cells + (x >> BLOCK_SHIFT)] >= 0) return true;
    return this.atlas.freeBlocks > 0 || (this.autoGrow && this.atlas.capacity < this.maxBlocks);
  }

  /**
   * Makes page (`mip`, `x`, `y`) resident in `slot` and points its non-overridden descendants at it.
   * Mapping an already resident page just moves it to `slot`.
   * @throws TesseraError('over-budget') when {@link canMap} is false (no block for it).
   */
  map(mip: number, x: number, y: number, slot: number): void {
    const i = this.storedIndex(mip, x, y);
    const b = this.lastBlock;
    const e = this.atlas.words[i];
    if (e === EMPTY_ENTRY || ((e >>> 16) & 0xf) !== mip) {
      this.residentCount++;
      this.atlas.blockResident[b]++;
    }
    this.rewrite(mip, x, y, i, b, packEntry(slot, mip));
  }

  /** The coarsest page has no parent: its parent word repeats its entry (trilinear clamps there). */
  private topParent(mip: number, i: number): void {
    if (mip === this.layout.mipCount - 1) this.atlas.words[i + 1] = this.atlas.words[i];
  }

  /**
   * Makes page (`mip`, `x`, `y`) non-resident; it and the descendants that used it fall back to the
   * parent's entry (or {@link EMPTY_ENTRY} at the coarsest mip); its block is freed when it held
   * the block's last resident page. No-op when not resident.
   */
  unmap(mip: number, x: number, y: number): void {
    const i = this.locate(mip, x, y);
    const b = this.lastBlock;
    const e = this.atlas.words[i];
    if (e === EMPTY_ENTRY || ((e >>> 16) & 0xf) !== mip) return;
    this.residentCount--;
    const fallback = mip + 1 < this.layout.mipCount ? this.entry(mip + 1, x >> 1, y >> 1) : EMPTY_ENTRY;
    this.rewrite(mip, x, y, i, b, fallback);
    const g = this.geometry;
    if (--this.atlas.blockResident[b] === 0 && mip < g.tailMip && !g.dense) this.freeBlock(b);
  }

  /**
   * Sets the atlas capacity to `blocks` (rounded up to whole rows, at least the tail's). Shrinking
   * moves stored blocks from above the new capacity into free ones below it.
   * @throws TesseraError('over-budget') when more blocks are stored than `blocks`.
   */
  setBlockCapacity(blocks: number): void {
    const capacity = Math.max(this.geometry.minBlockCapacity, roundToAtlasRows(blocks));
    const atlas = this.atlas;
    if (capacity < atlas.used) {
      throw new TesseraError('over-budget', `${atlas.used} page-table blocks do not fit in ${capacity}`);
    }
    if (capacity < atlas.capacity) {
      let to = 0;
      for (let from = capacity; from < atlas.capacity; from++) {
        if (!atlas.isUsed(from)) continue;
        while (atlas.isUsed(to)) to++;
        atlas.move(from, to);
        const m = atlas.blockMip[to];
        this.cellBlock[m][atlas.blockCellY[to] * this.geometry.cellWidths[m] + atlas.blockCellX[to]] = to;
        this.repoint(m, atlas.blockCellX[to], atlas.blockCellY[to], packPointer(from, m), packPointer(to, m));
      }
    }
    if (capacity !== atlas.capacity) atlas.resize(capacity);
    else {
      atlas.rebuildFreeList();
    }
  }

  /** Word index in the atlas of the entry serving page (`mip`, `x`, `y`); sets lastBlock. */
  private locate(mip: number, x: number, y: number): number {
    const g = this.geometry;
    let m = mip;
    let px = x;
    let py = y;
    while (m < g.tailMip) {
      const b = this.cellBlock[m][(py >> BLOCK_SHIFT) * g.cellWidths[m] + (px >> BLOCK_SHIFT)];
      if (b >= 0) {
        this.lastBlock = b;
        return this.atlas.index(b, px & LOCAL_MASK, py & LOCAL_MASK);
      }
      px >>= 1;
      py >>= 1;
      m++;
    }
    this.lastBlock = m - g.tailMip;
    return this.atlas.index(m - g.tailMip, px, py);
  }

  /** Word index of page (`mip`, `x`, `y`)'s own stored entry, storing its block first if needed. */
  private storedIndex(mip: number, x: number, y: number): number {
    const g = this.geometry;
    if (mip >= g.tailMip) {
      this.lastBlock = mip - g.tailMip;
      return this.atlas.index(this.lastBlock, x, y);
    }
    const cx = x >> BLOCK_SHIFT;
    const cy = y >> BLOCK_SHIFT;
    const cell = cy * g.cellWidths[mip] + cx;
    let b = this.cellBlock[mip][cell];
    if (b < 0) b = this.storeBlock(mip, cx, cy, cell);
    this.lastBlock = b;
    return this.atlas.index(b, x & LOCAL_MASK, y & LOCAL_MASK);
  }

  /** Stores the block of cell (`cx`, `cy`) of `mip`: every entry its parent's, pointers updated. */
  private storeBlock(mip: number, cx: number, cy: number, cell: number): number {
    const atlas = this.atlas;
    if (atlas.freeBlocks === 0 && this.autoGrow && atlas.capacity < this.maxBlocks) {
      this.setBlockCapacity(Math.min(this.maxBlocks, atlas.capacity * 2));
    }
    const b = atlas.allocate(mip, cx, cy);
    if (b < 0) {
      throw new TesseraError('over-budget', `no page-table block free for mip ${mip} cell ${cx},${cy}`);
    }
    const w = this.layout.mipWidths[mip];
    const h = this.layout.mipHeights[mip];
    const x0 = cx << BLOCK_SHIFT;
    const y0 = cy << BLOCK_SHIFT;
    for (let ly = 0; ly < BLOCK_PAGES && y0 + ly < h; ly++) {
      for (let lx = 0; lx < BLOCK_PAGES && x0 + lx < w; lx++) {
        // Nothing in a new block is resident: each entry, and its parent's, is the parent's entry.
        const parent = this.entry(mip + 1, (x0 + lx) >> 1, (y0 + ly) >> 1);
        const i = atlas.index(b, lx, ly);
        atlas.words[i] = parent;
        atlas.words[i + 1] = parent;
      }
    }
    atlas.markDirty(b, 0, 0, BLOCK_PAGES, BLOCK_PAGES);
    this.cellBlock[mip][cell] = b;
    const own = packPointer(b, mip);
    this.indirection[mip][cell] = own;
    this.indirectionDirty.add(mip, cx, cy, 1, 1);
    // Finer cells under it that pointed past `mip` now stop here.
    replacePointersUnder(this.indirection, this.geometry, this.indirectionDirty, mip, cx, cy, -1, mip, own);
    return b;
  }

  /** Frees stored block `b` (no resident page left): its cells point where its parent's cell does. */
  private freeBlock(b: number): void {
    const atlas = this.atlas;
    const g = this.geometry;
    const mip = atlas.blockMip[b];
    const cx = atlas.blockCellX[b];
    const cy = atlas.blockCellY[b];
    const up =
      mip + 1 < g.tailMip
        ? this.indirection[mip + 1][(cy >> 1) * g.cellWidths[mip + 1] + (cx >> 1)]
        : packPointer(mip + 1 - g.tailMip, mip + 1);
    this.cellBlock[mip][cy * g.cellWidths[mip] + cx] = -1;
    this.repoint(mip, cx, cy, packPointer(b, mip), up);
    atlas.release(b);
  }

  /** Replaces pointer `from` by `to` in cell (`cx`, `cy`) of `mip` and every finer cell under it. */
  private repoint(mip: number, cx: number, cy: number, from: number, to: number): void {
    this.indirection[mip][cy * this.geometry.cellWidths[mip] + cx] = to;
    this.indirectionDirty.add(mip, cx, cy, 1, 1);
    replacePointersUnder(this.indirection, this.geometry, this.indirectionDirty, mip, cx, cy, from, 15, to);
  }

  /**
   * Writes `value` at page (`mip`, `x`, `y`) (word `i`, block `b`) and into every stored entry (and
   * parent entry) under it that was served by it or a coarser page (resident mip >= `mip`).
   */
  private rewrite(mip: number, x: number, y: number, i: number, b: number, value: number): void {
    const atlas = this.atlas;
    const words = atlas.words;
    const g = this.geometry;
    words[i] = value;
    this.topParent(mip, i);
    atlas.markDirty(b, x & LOCAL_MASK, y & LOCAL_MASK, 1, 1);
    for (let m = mip - 1; m >= 0; m--) {
      const s = mip - m;
      const px0 = x << s;
      const py0 = y << s;
      const px1 = Math.min(px0 + (1 << s), this.layout.mipWidths[m]);
      const py1 = Math.min(py0 + (1 << s), this.layout.mipHeights[m]);
      if (m >= g.tailMip) {
        this.rewriteIn(m - g.tailMip, px0, py0, px1, py1, 0, 0, mip, value);
        continue;
      }
      const w = g.cellWidths[m];
      const blocks = this.cellBlock[m];
      for (let cy = py0 >> BLOCK_SHIFT; cy <= (py1 - 1) >> BLOCK_SHIFT; cy++) {
        for (let cx = px0 >> BLOCK_SHIFT; cx <= (px1 - 1) >> BLOCK_SHIFT; cx++) {
          const cb = blocks[cy * w + cx];
          if (cb >= 0) {
            this.rewriteIn(cb, px0, py0, px1, py1, cx << BLOCK_SHIFT, cy << BLOCK_SHIFT, mip, value);
          }
        }
      }
    }
  }

  /** {@link rewrite} inside block `b` whose first page is (`bx`, `by`), pages [px0, px1) x [py0, py1). */
  private rewriteIn(
    b: number,
    px0: number,
    py0: number,
    px1: number,
    py1: number,
    bx: number,
    by: number,
    mip: number,
    value: number,
  ): void {
    const words = this.atlas.words;
    const lx0 = Math.max(px0, bx) - bx;
    const ly0 = Math.max(py0, by) - by;
    const lx1 = Math.min(px1, bx + BLOCK_PAGES) - bx;
    const ly1 = Math.min(py1, by + BLOCK_PAGES) - by;
    for (let ly = ly0; ly < ly1; ly++) {
      let i = this.atlas.index(b, lx0, ly);
      for (let lx = lx0; lx < lx1; lx++, i += 2) {
        // EMPTY_ENTRY's mip field reads 15: it is always replaced.
        if (((words[i] >>> 16) & 0xf) >= mip) words[i] = value;
        if (((words[i + 1] >>> 16) & 0xf) >= mip) words[i + 1] = value;
      }
    }
    this.atlas.markDirty(b, lx0, ly0, lx1 - lx0, ly1 - ly0);
  }
}
