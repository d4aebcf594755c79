import { DirtyRegions } from '../core/vt/page-table/dirty-regions';
import { EMPTY_ENTRY, packEntry } from '../core/vt/page-table/page-table-entry';
import type { VirtualTextureLayout } from '../core/vt/vt-layout';

/** Default bound on dirty rectangles kept per mip before they are merged. */
const DEFAULT_MAX_DIRTY_RECTS_PER_MIP = 64;

/** Bytes of one page-table entry on the GPU (`r32uint`). */
const ENTRY_BYTES = 4;

/**
 * The dense page table (what Tessera used before the sparse one, kept as the reference the sparse
 * table is tested against and as the baseline of `vt.page_table_bytes`): per mip a `Uint32Array` of entries (format in
 * `page-table-entry.ts`), row-major, `layout.mipWidths[m]` entries per row.
 *
 * Invariant: every entry names the finest resident page among itself and its ancestors, or is
 * {@link EMPTY_ENTRY} when none is resident. A page is resident exactly when its own entry names
 * its own mip, so residency and the page -> slot lookup need no other storage.
 *
 * {@link map} / {@link unmap} rewrite only the entries whose value changes (a depth-first walk of
 * the sub-tree that stops under finer resident pages) and record dirty rectangles per mip for the
 * GPU upload, readable through {@link dirty}.
 */
export class DensePageTable {
  /** Geometry of the virtual texture. */
  readonly layout: VirtualTextureLayout;
  /** Entries per mip (index = mip), uploadable as-is to an r32uint texture mip. */
  readonly entries: readonly Uint32Array[];
  /** Rectangles changed since the last {@link clearDirty}, per mip. */
  readonly dirty: DirtyRegions;
  /** Number of resident pages. */
  residentCount = 0;

  // Depth-first work stack of (mip, x, y) triples; a walk holds at most 3 siblings per level + 1.
  private readonly stack: Int32Array;
  // Per-mip bounding box of the entries changed by the current map/unmap call.
  private readonly boxMinX: Int32Array;
  private readonly boxMinY: Int32Array;
  private readonly boxMaxX: Int32Array;
  private readonly boxMaxY: Int32Array;

  constructor(layout: VirtualTextureLayout, maxDirtyRectsPerMip = DEFAULT_MAX_DIRTY_RECTS_PER_MIP) {
    this.layout = layout;
    const entries: Uint32Array[] = [];
    for (let m = 0; m < layout.mipCount; m++) {
      entries.push(new Uint32Array(layout.mipWidths[m] * layout.mipHeights[m]).fill(EMPTY_ENTRY));
    }
    this.entries = entries;
    this.dirty = new DirtyRegions(layout.mipCount, maxDirtyRectsPerMip);
    this.stack = new Int32Array((layout.mipCount * 4 + 4) * 3);
    this.boxMinX = new Int32Array(layout.mipCount);
    this.boxMinY = new Int32Array(layout.mipCount);
    this.boxMaxX = new Int32Array(layout.mipCount);
    this.boxMaxY = new Int32Array(layout.mipCount);
  }

  /** Entry of page (`mip`, `x`, `y`) (coordinates in pages at that mip). */
  entry(mip: number, x: number, y: number): number {
    return this.entries[mip][y * this.layout.mipWidths[mip] + x];
  }

  /** True when page (`mip`, `x`, `y`) itself is resident (not merely served by an ancestor). */
  isResident(mip: number, x: number, y: number): boolean {
    const e = this.entries[mip][y * this.layout.mipWidths[mip] + x];
    return e !== EMPTY_ENTRY && ((e >>> 16) & 0xf) === mip;
  }

  /** Slot holding page (`mip`, `x`, `y`), or -1 when it is not resident. */
  slotOf(mip: number, x: number, y: number): number {
    const e = this.entries[mip][y * this.layout.mipWidths[mip] + x];
    return e !== EMPTY_ENTRY && ((e >>> 16) & 0xf) === mip ? e & 0xffff : -1;
  }

  /** Bytes the GPU binding must upload for the current dirty rectangles (4 bytes per entry). */
  get dirtyBytes(): number {
    return this.dirty.entryCount() * ENTRY_BYTES;
  }

  /** Forgets the dirty rectangles (call after uploading them). */
  clearDirty(): void {
    this.dirty.clear();
  }

  /** Marks every entry of every mip dirty (e.g. after the GPU texture was recreated). */
  markAllDirty(): void {
    this.dirty.clear();
    for (let m = 0; m < this.layout.mipCount; m++) {
      this.dirty.add(m, 0, 0, this.layout.mipWidths[m], this.layout.mipHeights[m]);
    }
  }

  /**
   * Makes page (`mip`, `x`, `y`) resident in `slot` and points its non-overridden descendants at it.
   * Mapping an already resident page just moves it to `slot`.
   */
  map(mip: number, x: number, y: number, slot: number): void {
    if (!this.isResident(mip, x, y)) this.residentCount++;
    this.propagate(mip, x, y, packEntry(slot, mip));
  }

  /**
   * Makes page (`mip`, `x`, `y`) non-resident; it and the descendants that used it fall back to the
   * parent's entry (or {@link EMPTY_ENTRY} at the coarsest mip). No-op when not resident.
   */
  unmap(mip: number, x: number, y: number): void {
    if (!this.isResident(mip, x, y)) return;
    this.residentCount--;
    const fallback =
      mip + 1 < this.layout.mipCount
        ? this.entries[mip + 1][(y >> 1) * this.layout.mipWidths[mip + 1] + (x >> 1)]
        : EMPTY_ENTRY;
    this.propagate(mip, x, y, fallback);
  }

  /** Writes `value` at (mip, x, y) and down every child that is not itself resident. */
  private propagate(mip: number, x: number, y: number, value: number): void {
    const { mipWidths, mipHeights } = this.layout;
    const entries = this.entries;
    const stack = this.stack;
    const minX = this.boxMinX;
    const minY = this.boxMinY;
    const maxX = this.boxMaxX;
    const maxY = this.boxMaxY;
    for (let m = 0; m <= mip; m++) {
      minX[m] = 0x7fffffff;
      minY[m] = 0x7fffffff;
      maxX[m] = -1;
      maxY[m] = -1;
    }
    entries[mip][y * mipWidths[mip] + x] = value;
    minX[mip] = maxX[mip] = x;
    minY[mip] = maxY[mip] = y;
    let sp = 0;
    if (mip > 0) {
      stack[sp++] = mip;
      stack[sp++] = x;
      stack[sp++] = y;
    }
    while (sp > 0) {
      const py = stack[--sp];
      const px = stack[--sp];
      const cm = stack[--sp] - 1;
      const w = mipWidths[cm];
      const h = mipHeights[cm];
      const level = entries[cm];
      // A non-square texture's coarse mips are one page thick: children may fall outside.
      const x0 = px << 1;
      const y0 = py << 1;
      const x1 = x0 + 1 < w ? x0 + 1 : x0;
      const y1 = y0 + 1 < h ? y0 + 1 : y0;
      for (let cy = y0; cy <= y1; cy++) {
        for (let cx = x0; cx <= x1; cx++) {
          const i = cy * w + cx;
          const e = level[i];
          // A resident child overrides this sub-tree: nothing below it changes.
          if (e !== 0xffffffff && ((e >>> 16) & 0xf) === cm) continue;
          level[i] = value;
          if (cx < minX[cm]) minX[cm] = cx;
          if (cx > maxX[cm]) maxX[cm] = cx;
          if (cy < minY[cm]) minY[cm] = cy;
          if (cy > maxY[cm]) maxY[cm] = cy;
          if (cm > 0) {
            stack[sp++] = cm;
            stack[sp++] = cx;
            stack[sp++] = cy;
          }
        }
      }
    }
    for (let m = 0; m <= mip; m++) {
      if (maxX[m] >= 0) this.dirty.add(m, minX[m], minY[m], maxX[m] - minX[m] + 1, maxY[m] - minY[m] + 1);
    }
  }
}
