import type { PageTable } from '../../../src/core/vt/page-table/page-table';
import { EMPTY_ENTRY, packEntry } from '../../../src/core/vt/page-table/page-table-entry';
import type { DensePageTable } from '../../../src/sim/dense-page-table';

/** Brute force: recomputes every entry from `resident` (key `mip,x,y` -> slot) and compares. */
export function checkFallbackInvariant(
  table: PageTable | DensePageTable,
  resident: Map<string, number>,
): string | null {
  const { layout } = table;
  for (let m = 0; m < layout.mipCount; m++) {
    for (let y = 0; y < layout.mipHeights[m]; y++) {
      for (let x = 0; x < layout.mipWidths[m]; x++) {
        let expected = EMPTY_ENTRY;
        for (let a = m; a < layout.mipCount; a++) {
          const slot = resident.get(`${a},${x >> (a - m)},${y >> (a - m)}`);
          if (slot !== undefined) {
            expected = packEntry(slot, a);
            break;
          }
        }
        const actual = table.entry(m, x, y);
        if (actual !== expected) return `mip ${m} (${x},${y}): expected ${expected}, got ${actual}`;
      }
    }
  }
  return null;
}
