import type { DirtyRegions } from './dirty-regions';
import { type PageTableGeometry, pointerMip } from './page-table-blocks';

/**
 * In every indirection cell at the mips below `mip` covered by cell (`cx`, `cy`) of `mip`, writes
 * `to` where the pointer equals `from` or points at a mip above `aboveMip` (a block stored or
 * freed at `mip` changes exactly those); marks the bounding box of each level's changed cells in
 * `dirty`. Cost: the cells under one cell, 4^(mip - m) at mip m.
 */
export function replacePointersUnder(
  indirection: readonly Uint32Array[],
  g: PageTableGeometry,
  dirty: DirtyRegions,
  mip: number,
  cx: number,
  cy: number,
  from: number,
  aboveMip: number,
  to: number,
): void {
  for (let m = mip - 1; m >= 0; m--) {
    const s = mip - m;
    const w = g.cellWidths[m];
    const level = indirection[m];
    const x0 = cx << s;
    const y0 = cy << s;
    const x1 = Math.min(x0 + (1 << s), w);
    const y1 = Math.min(y0 + (1 << s), g.cellHeights[m]);
    let changed = false;
    for (let y = y0; y < y1; y++) {
      for (let i = y * w + x0, end = y * w + x1; i < end; i++) {
        const p = level[i];
        if (p === from || pointerMip(p) > aboveMip) {
          level[i] = to;
          changed = true;
        }
      }
    }
    if (changed) dirty.add(m, x0, y0, x1 - x0, y1 - y0);
  }
}
