/**
 * Which texel rows an out-of-core bake (finest mip first, `bake-out-of-core.ts`) must read at each
 * mip to produce a shard's pages: the rows its own tiles cut (borders included), and the rows the
 * next mip's needed rows are averaged from. A shard reads those and skips the rest, so it decodes
 * the input only down to its last needed row, and reads and averages only what its pages depend
 * on. With the shard layout (`archive-shard.ts`) that is about `1/n` of the image for most shards,
 * but a shard that owns a coarse page depends on all that page covers: the last shard owns the
 * coarsest page and still reads everything.
 */

import type { MipLayout } from '../archive/archive-format';
import type { ShardRows } from '../archive/archive-shard';

/**
 * Per mip, the contiguous range `[start, end)` of that level's texel rows (level row 0 at the
 * top, the level `pagesHigh · payload` rows tall) a bake must read to write the page rows `own`
 * (a shard's, or every row): the hull of the rows its own tiles cut, `border` rows above and
 * below each page row clamped to the level, and of the rows that average into the next level's
 * needed rows (two per row, or one where the level cannot halve in height). Empty when
 * `start === end`.
 */
export function shardTexelRows(
  layout: MipLayout,
  own: ShardRows,
  payload: number,
  border: number,
): ShardRows {
  const mips = layout.pagesHigh.length;
  const rows: ShardRows = { start: new Int32Array(mips), end: new Int32Array(mips) };
  for (let m = mips - 1; m >= 0; m--) {
    const levelRows = layout.pagesHigh[m] * payload;
    let start = levelRows;
    let end = 0;
    if (own.end[m] > own.start[m]) {
      start = Math.max(0, own.start[m] * payload - border);
      end = Math.min(levelRows, own.end[m] * payload + border);
    }
    if (m + 1 < mips && rows.end[m + 1] > rows.start[m + 1]) {
      const f = layout.pagesHigh[m] / layout.pagesHigh[m + 1];
      start = Math.min(start, rows.start[m + 1] * f);
      end = Math.max(end, rows.end[m + 1] * f);
    }
    rows.start[m] = end > start ? start : 0;
    rows.end[m] = end > start ? end : 0;
  }
  return rows;
}
