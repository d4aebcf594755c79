import { TesseraConfigError } from '../../errors';
import { NO_REQUEST, pageMip, pageVt, pageX, pageY } from '../page-id';
import type { PageTable } from '../page-table/page-table';
import type { PhysicalPoolOptions } from './physical-pool';
import { PhysicalPool } from './physical-pool';

/** What {@link compactPool} did: the new pool and where each old slot's page went. */
export interface PoolCompaction {
  /** The new slot table, holding the survivors in slots 0..kept-1. */
  readonly pool: PhysicalPool;
  /** New slot of each old slot's page (index = old slot), -1 when the page was dropped or free. */
  readonly newSlotOf: Int32Array;
  /** Pages kept (pinned ones first). */
  readonly kept: number;
  /** Page ids dropped (unmapped from their page tables), in no particular order. */
  readonly dropped: Uint32Array;
}

/**
 * Moves the resident pages of `pool` into a new pool of `slotCount` slots: every pinned page,
 * then the most recently used others, at most `keep` pages in all; the rest are unmapped from
 * their page tables (which fall back to coarser resident mips, so nothing goes black while the
 * pinned mips stay). Survivors are remapped to their new slots in `tables`. Recency, load frame
 * and use counts carry over; so does what the replacement policy learned, when it can adopt it
 * (`ReplacementPolicy.adopt`: lhd does), the dropped pages counting as its evictions.
 *
 * For a pool resize, not per frame: it sorts the resident pages once (O(n log n)) and allocates
 * the new slot table. No slot may be locked (no upload in flight), which holds between frames.
 * @param frame the current frame (pages not used in it become idle in the new pool).
 * @throws TesseraConfigError('pool-too-small') when `slotCount` cannot hold the pinned pages.
 */
export function compactPool(
  pool: PhysicalPool,
  tables: readonly (PageTable | null)[],
  slotCount: number,
  keep: number,
  frame: number,
  policy: PhysicalPoolOptions['replacementPolicy'],
): PoolCompaction {
  const old = pool.slotCount;
  const pinned: number[] = [];
  const others: number[] = [];
  for (let s = 0; s < old; s++) {
    if (pool.slotPages[s] === NO_REQUEST) continue;
    if (pool.isPinned(s)) pinned.push(s);
    else {
      others.push(s);
    }
  }
  if (pinned.length > slotCount) {
    throw new TesseraConfigError(
      'pool-too-small',
      `a pool of ${slotCount} slots cannot hold the ${pinned.length} pinned pages`,
    );
  }
  const lastUse = pool.slotLastUse;
  // Most recently used first; ties by slot, so the choice is deterministic.
  others.sort((a, b) => lastUse[b] - lastUse[a] || a - b);
  const room = Math.max(0, Math.min(slotCount, keep) - pinned.length);
  const keptOthers = others.slice(0, room);
  const droppedSlots = others.slice(room);
  const next = new PhysicalPool({ slotCount, replacementPolicy: policy });
  const newSlotOf = new Int32Array(old).fill(-1);
  const dropped = new Uint32Array(droppedSlots.length);
  // Unmap first: a dropped page's sub-tree then falls back to an ancestor, which a survivor's
  // remapping below rewrites with its new slot.
  for (let i = 0; i < droppedSlots.length; i++) {
    const page = pool.slotPages[droppedSlots[i]];
    dropped[i] = page;
    tables[pageVt(page)]?.unmap(pageMip(page), pageX(page), pageY(page));
  }
  const move = (s: number, isPinned: boolean, useFrame: number): void => {
    const page = pool.slotPages[s];
    const slot = next.allocate(page, useFrame, isPinned);
    next.slotLoadFrame[slot] = pool.slotLoadFrame[s];
    next.slotUseFrames[slot] = pool.slotUseFrames[s];
    newSlotOf[s] = slot;
    tables[pageVt(page)]?.map(pageMip(page), pageX(page), pageY(page), slot);
  };
  for (const s of pinned) move(s, true, Math.min(lastUse[s], frame));
  // Oldest first, so the new pool's active list stays in last-use order.
  for (let i = keptOthers.length - 1; i >= 0; i--) {
    const s = keptOthers[i];
    move(s, false, Math.min(lastUse[s], frame));
  }
  next.policy.adopt?.(pool.policy, pool, newSlotOf, frame);
  next.sweep(frame);
  return { pool: next, newSlotOf, kept: pinned.length + keptOthers.length, dropped };
}
