import { IntrusiveList } from '../../src/core/structures/intrusive-list';
import { VISIT_GAP_FRAMES } from '../../src/core/vt/residency/lhd-policy';
import { RecentUseCounter } from '../../src/core/vt/residency/recent-use-counter';
import type { ReplacementPolicy, SlotTableView } from '../../src/core/vt/residency/replacement-policy';
import { LirsStack } from './lirs-stack';

/**
 * Share of the slots LIRS keeps for HIR pages (resident pages of weak locality), a fraction of the
 * pool: the paper's 1%. Unitless, so independent of pool size and frame rate.
 */
export const LIRS_HIR_FRACTION = 0.01;

/** Non-resident entries LIRS's stack may hold, as a multiple of the slot count. */
export const LIRS_GHOSTS_PER_SLOT = 2;

const LIR = 1;
const HIR = 2;

/**
 * LIRS (Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy to
 * Improve Buffer Cache Performance", SIGMETRICS 2002) adapted to frames. LIRS ranks pages by
 * inter-reference recency (how long a page stayed away before its latest return) rather than by
 * recency alone, so a loop larger than the pool keeps a stable part of itself resident where LRU
 * evicts each page just before it is needed again.
 *
 * Frames: a "reference" that can change a page's status is a visit, the first use after an
 * absence of more than {@link VISIT_GAP_FRAMES} (one feedback jitter cycle), as in the ARC
 * adaptation; every use still refreshes the page's recency in the stack S. S orders pages (and
 * ghosts of evicted ones) by last use; its bottom is always a LIR page (pruning). A HIR page that
 * starts a visit while still in S (its absence was shorter than the recency of the oldest LIR
 * page) becomes LIR and the bottom LIR page is demoted to HIR; a miss on a ghost in S does the
 * same. The victim is the evictable HIR page idle longest once it has been idle for more than a
 * jitter cycle (it has left the view); else the LIR page idle longest if it has left the view;
 * else the longer idle of the two (a page idle for less than a cycle may be flickering in view).
 * Plain LIRS never evicts a LIR page; here it must when the view's HIR pages fill the pool.
 *
 * In frames the pages of the current view must all be resident, so the LIR set may only hold what
 * the HIR pages in view leave: its capacity is the pool minus the HIR reserve minus the HIR pages
 * used within a jitter cycle, and LIR pages are demoted from the bottom of S when it shrinks.
 *
 * Constants: {@link LIRS_HIR_FRACTION} and {@link LIRS_GHOSTS_PER_SLOT} (fractions of the pool),
 * and the jitter cycle. O(1) per hook (pruning amortised), no allocation.
 *
 * Measured, not the default: worst ratio to Belady 1.46 on the held-out paths and up to 5% worse
 * than LRU (lookaround). On an orbit the LIR pages kept resident are those that left longest ago,
 * so S spans a revolution, every returning page is found in S and promoted, and each promotion
 * demotes the bottom LIR page, the next to return (`lab/replacement-policies.md`).
 */
export class LirsPolicy implements ReplacementPolicy {
  readonly name = 'lirs';
  private readonly status: Uint8Array;
  private readonly stack: LirsStack;
  private readonly idleLir: IntrusiveList;
  private readonly idleHir: IntrusiveList;
  private readonly table: SlotTableView;
  /** HIR pages by last-use frame, to count those still in view (used within a jitter cycle). */
  private readonly hirRecent = new RecentUseCounter();
  /** Slots always left to HIR pages, in pages. */
  private readonly hirReserve: number;
  private lirCount = 0;
  private frame = -0x80000000;

  constructor(table: SlotTableView) {
    const c = table.slotCount;
    this.table = table;
    this.status = new Uint8Array(c);
    this.stack = new LirsStack(c, Math.max(1, Math.ceil(LIRS_GHOSTS_PER_SLOT * c)));
    this.idleLir = new IntrusiveList(c);
    this.idleHir = new IntrusiveList(c);
    this.hirReserve = Math.max(1, Math.round(LIRS_HIR_FRACTION * c));
  }

  /** Pages with LIR status (strong locality), in pages. */
  get lirSize(): number {
    return this.lirCount;
  }

  /** Non-resident pages LIRS still remembers, in pages. */
  get ghostCount(): number {
    return this.stack.ghostCount;
  }

  /**
   * Most LIR pages at the current frame, in pages: the slots not taken by the reserve and by HIR
   * pages still in view. Plain LIRS has a fixed split; in frames the pages of the current view
   * must all be resident, so the LIR set shrinks while many HIR pages are in view.
   */
  lirCapacity(): number {
    const inView = this.hirRecent.countSince(this.frame - VISIT_GAP_FRAMES, this.frame);
    return Math.max(1, this.table.slotCount - this.hirReserve - inView);
  }

  inserted(slot: number, pageId: number, frame: number): void {
    if (frame > this.frame) this.frame = frame;
    const stack = this.stack;
    const ghost = stack.ghostOf(pageId);
    if (ghost >= 0) {
      // Back sooner than the oldest LIR page was last used: strong locality.
      stack.revive(ghost, slot);
      stack.moveToTop(slot);
      this.status[slot] = LIR;
      this.lirCount++;
      this.prune();
      return;
    }
    stack.moveToTop(slot);
    // While the LIR set is not full, every referenced page is LIR (as in the paper).
    if (this.lirCount < this.lirCapacity()) {
      this.status[slot] = LIR;
      this.lirCount++;
    } else {
      this.status[slot] = HIR;
      this.hirRecent.add(frame);
    }
  }

  referenced(slot: number, frame: number, lastUse: number): void {
    if (frame > this.frame) this.frame = frame;
    const stack = this.stack;
    if (this.status[slot] === HIR) {
      this.hirRecent.remove(lastUse);
      const visit = frame - lastUse > VISIT_GAP_FRAMES;
      if (visit && (stack.has(slot) || this.lirCount < this.lirCapacity())) {
        this.status[slot] = LIR;
        this.lirCount++;
      } else {
        this.hirRecent.add(frame);
      }
    }
    stack.moveToTop(slot);
    this.prune();
  }

  evictable(slot: number): void {
    (this.status[slot] === LIR ? this.idleLir : this.idleHir).pushBack(slot);
  }

  protect(slot: number): void {
    this.idleLir.remove(slot);
    this.idleHir.remove(slot);
  }

  removed(slot: number, pageId: number, lastUse: number, evicted: boolean): void {
    this.protect(slot);
    const stack = this.stack;
    const st = this.status[slot];
    if (st === LIR) this.lirCount--;
    else this.hirRecent.remove(lastUse);
    if (evicted && st === HIR && stack.has(slot)) stack.leaveGhost(slot, pageId);
    else stack.remove(slot);
    this.status[slot] = 0;
    this.prune();
  }

  victim(frame: number): number {
    if (frame > this.frame) this.frame = frame;
    this.shrinkLir();
    const hir = this.idleHir.head;
    const lir = this.idleLir.head;
    if (hir < 0) return lir;
    if (lir < 0) return hir;
    const lastUse = this.table.slotLastUse;
    // A page idle for less than a jitter cycle may still be in view: departed pages go first.
    if (frame - lastUse[hir] > VISIT_GAP_FRAMES) return hir;
    if (frame - lastUse[lir] > VISIT_GAP_FRAMES) return lir;
    return lastUse[lir] < lastUse[hir] ? lir : hir;
  }

  /** Demotes LIR pages from the bottom of S (least recently used first) while over capacity. */
  private shrinkLir(): void {
    const stack = this.stack;
    const lastUse = this.table.slotLastUse;
    let capacity = this.lirCapacity();
    while (this.lirCount > capacity) {
      const b = stack.bottom; // a LIR slot: pruning keeps the bottom LIR
      this.status[b] = HIR;
      this.lirCount--;
      this.hirRecent.add(lastUse[b]);
      stack.remove(b);
      if (this.idleLir.has(b)) {
        this.idleLir.remove(b);
        this.idleHir.pushFront(b); // the least recently used LIR page: older than idle HIR ones
      }
      this.prune();
      capacity = this.lirCapacity();
    }
  }

  /** Removes HIR entries (resident or ghost) from the bottom of S until a LIR page is there. */
  private prune(): void {
    const stack = this.stack;
    for (let b = stack.bottom; b >= 0; b = stack.bottom) {
      if (!stack.isGhost(b) && this.status[b] === LIR) return;
      stack.remove(b);
    }
  }
}
