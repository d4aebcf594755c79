/**
 * Bounded per-mip lists of dirty rectangles (in entries) of a page table, stored in one
 * `Int32Array` so a GPU binding can iterate them without allocating.
 *
 * Layout of {@link DirtyRegions.rects}: rectangle `i` of mip `m` starts at
 * `(m * maxRectsPerMip + i) * 4` and holds `[x, y, width, height]` in entries (= pages) at that mip.
 * When a mip's list is full, a new rectangle is merged into the one whose bounding box grows the
 * least, so the list stays bounded while bytes still grow with the changes in the common case.
 */
export class DirtyRegions {
  /** Rectangles, `[x, y, width, height]` per rectangle, `maxRectsPerMip` per mip. */
  readonly rects: Int32Array;
  /** Number of rectangles in use per mip. */
  readonly counts: Uint16Array;
  /** Most rectangles kept per mip before merging. */
  readonly maxRectsPerMip: number;

  constructor(mipCount: number, maxRectsPerMip: number) {
    this.maxRectsPerMip = maxRectsPerMip;
    this.rects = new Int32Array(mipCount * maxRectsPerMip * 4);
    this.counts = new Uint16Array(mipCount);
  }

  /** Adds the rectangle [x, x + w) x [y, y + h) of `mip`, merging where that costs no extra area. */
  add(mip: number, x: number, y: number, w: number, h: number): void {
    const r = this.rects;
    const base = mip * this.maxRectsPerMip * 4;
    const n = this.counts[mip];
    const area = w * h;
    let best = -1;
    let bestGrowth = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const o = base + i * 4;
      const rx = r[o];
      const ry = r[o + 1];
      const rw = r[o + 2];
      const rh = r[o + 3];
      const ux0 = Math.min(rx, x);
      const uy0 = Math.min(ry, y);
      const ux1 = Math.max(rx + rw, x + w);
      const uy1 = Math.max(ry + rh, y + h);
      const unionArea = (ux1 - ux0) * (uy1 - uy0);
      // Growth beyond the two areas: <= 0 means containment or an exact adjacency, merge for free.
      const growth = unionArea - rw * rh - area;
      if (growth <= 0) {
        r[o] = ux0;
        r[o + 1] = uy0;
        r[o + 2] = ux1 - ux0;
        r[o + 3] = uy1 - uy0;
        return;
      }
      if (growth < bestGrowth) {
        bestGrowth = growth;
        best = i;
      }
    }
    if (n < this.maxRectsPerMip) {
      const o = base + n * 4;
      r[o] = x;
      r[o + 1] = y;
      r[o + 2] = w;
      r[o + 3] = h;
      this.counts[mip] = n + 1;
      return;
    }
    const o = base + best * 4;
    const ux0 = Math.min(r[o], x);
    const uy0 = Math.min(r[o + 1], y);
    r[o + 2] = Math.max(r[o] + r[o + 2], x + w) - ux0;
    r[o + 3] = Math.max(r[o + 1] + r[o + 3], y + h) - uy0;
    r[o] = ux0;
    r[o + 1] = uy0;
  }

  /** Entries covered by all rectangles (an upper bound of changed entries; rectangles may overlap). */
  entryCount(): number {
    let total = 0;
    const r = this.rects;
    for (let m = 0; m < this.counts.length; m++) {
      const base = m * this.maxRectsPerMip * 4;
      for (let i = 0; i < this.counts[m]; i++) total += r[base + i * 4 + 2] * r[base + i * 4 + 3];
    }
    return total;
  }

  /** Forgets every rectangle. */
  clear(): void {
    this.counts.fill(0);
  }
}
