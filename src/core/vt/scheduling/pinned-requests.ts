import { TesseraConfigError } from '../../errors';
import { packPageId } from '../page-id';
import type { PageTable } from '../page-table/page-table';
import type { ResidencyScheduler } from './residency-scheduler';

/** Fallback distance reported for a page with nothing resident above it (outranks every real one). */
export const NOTHING_RESIDENT_MIPS = 16;

/**
 * Requests every pinned page of texture `vt` (page table `table`) that is not resident, ahead of
 * every page the feedback asks for: pinned mips are what a texture falls back to, so they must
 * load first and be re-requested until they are all in.
 */
export function requestPinnedPages(table: PageTable, vt: number, scheduler: ResidencyScheduler): void {
  const layout = table.layout;
  for (let m = layout.firstPinnedMip; m < layout.mipCount; m++) {
    const w = layout.mipWidths[m];
    const h = layout.mipHeights[m];
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (!table.isResident(m, x, y)) {
          // Coarsest first: a larger mip outranks within the "nothing resident" class.
          scheduler.request(packPageId(vt, m, x, y), NOTHING_RESIDENT_MIPS + m, 0);
        }
      }
    }
  }
}

/** @throws TesseraConfigError('pool-too-small') unless `slotCount` holds every pinned page of `tables` plus `extra`. */
export function assertPinnedFit(
  tables: readonly (PageTable | null)[],
  extra: number,
  slotCount: number,
): void {
  let pinned = extra;
  for (const t of tables) if (t) pinned += t.layout.pinnedPages;
  if (pinned > slotCount) {
    const what = `${pinned} pinned pages of the registered textures`;
    throw new TesseraConfigError('pool-too-small', `a pool of ${slotCount} slots cannot hold the ${what}`);
  }
}
