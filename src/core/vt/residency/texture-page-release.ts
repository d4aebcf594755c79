import { NO_REQUEST, pageMip, pageVt, pageX, pageY } from '../page-id';
import type { PageTable } from '../page-table/page-table';
import type { PhysicalPool } from './physical-pool';

/**
 * Frees one texture's idle pages a bounded number of slots at a time (a scene leaving: its pages
 * become the first victims). Keeps a cursor across calls, so a caller running every frame bounds
 * its cost per frame whatever the pool size and still reaches every slot over successive calls.
 */
export class TexturePageRelease {
  /** Slot where the next {@link release} starts examining. */
  private cursor = 0;

  /**
   * Frees up to `maxPages` resident, non-pinned, unlocked pages of texture `vt` whose last use was
   * before frame `usedBefore`, examining at most `maxSlots` slots from the cursor: each is unmapped
   * from `table` (which falls back to a coarser resident mip), its slot returned to the free list
   * and `freed(page, slot)` called. Allocates nothing. Returns the pages freed.
   */
  release(
    pool: PhysicalPool,
    table: PageTable,
    vt: number,
    maxPages: number,
    usedBefore: number,
    maxSlots: number,
    freed: ((page: number, slot: number) => void) | null,
  ): number {
    const pages = pool.slotPages;
    const lastUse = pool.slotLastUse;
    const count = pages.length;
    const scan = Math.min(count, maxSlots);
    let s = this.cursor < count ? this.cursor : 0;
    let released = 0;
    for (let examined = 0; examined < scan && released < maxPages; examined++) {
      const page = pages[s];
      if (
        page !== NO_REQUEST &&
        pageVt(page) === vt &&
        lastUse[s] < usedBefore &&
        !pool.isPinned(s) &&
        !pool.isLocked(s)
      ) {
        table.unmap(pageMip(page), pageX(page), pageY(page));
        pool.release(s);
        released++;
        freed?.(page, s);
      }
      if (++s === count) s = 0;
    }
    this.cursor = s;
    return released;
  }
}
