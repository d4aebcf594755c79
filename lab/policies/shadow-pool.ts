import { IntrusiveList } from '../../src/core/structures/intrusive-list';
import { PageIndexMap } from '../../src/core/structures/page-index-map';
import { NO_REQUEST } from '../../src/core/vt/page-id';
import type { ReplacementPolicy, SlotTableView } from '../../src/core/vt/residency/replacement-policy';
import type { CoverageAwarePolicy } from './coverage-feed';

/**
 * A pool of tags (page ids, no data) replaying whole frames of requests with a policy of its own,
 * in the model of the pool's replay: a frame's resident pages are used first, then its misses
 * loaded, and a page used in the current frame is never a victim. It counts the loads that
 * policy would need on the stream the real pool sees (the other side of `AdaptivePolicy`'s
 * duel). The same slot table rules as `PhysicalPool` without pins or locks; O(1) amortised per
 * request plus the policy's own cost, nothing allocated after construction.
 */
export class ShadowPool implements SlotTableView {
  readonly slotCount: number;
  readonly slotPages: Uint32Array;
  readonly slotLastUse: Int32Array;
  readonly slotLoadFrame: Int32Array;
  readonly slotUseFrames: Int32Array;
  /** Loads so far (requests for pages it did not hold), cold start included. */
  loads = 0;
  private readonly policy: CoverageAwarePolicy;
  private readonly pageToSlot: PageIndexMap;
  private readonly free: IntrusiveList;
  /** Slots not yet offered to the policy, in last-use order (the rest are its candidates). */
  private readonly active: IntrusiveList;

  /** `slotCount` slots (at least 1) ordered by the policy `createPolicy` builds on this table. */
  constructor(slotCount: number, createPolicy: (table: SlotTableView) => ReplacementPolicy) {
    const n = Math.max(1, slotCount);
    this.slotCount = n;
    this.slotPages = new Uint32Array(n).fill(NO_REQUEST);
    this.slotLastUse = new Int32Array(n);
    this.slotLoadFrame = new Int32Array(n);
    this.slotUseFrames = new Int32Array(n);
    this.pageToSlot = new PageIndexMap(n);
    this.free = new IntrusiveList(n);
    this.active = new IntrusiveList(n);
    for (let s = 0; s < n; s++) this.free.pushBack(s);
    this.policy = createPolicy(this);
  }

  /**
   * Serves the requests of one frame, `pages[0..count)` (distinct page ids) with their feedback
   * coverage `coverages[0..count)` (pixels), at `frame` (later than the previous call's): hits
   * first, then misses. Returns the loads it needed.
   */
  serveFrame(pages: Uint32Array, coverages: Uint32Array, count: number, frame: number): number {
    for (let i = 0; i < count; i++) {
      const s = this.pageToSlot.get(pages[i]);
      if (s >= 0) this.use(s, frame, coverages[i]);
    }
    let loads = 0;
    for (let i = 0; i < count; i++) {
      if (this.pageToSlot.get(pages[i]) >= 0) continue;
      if (this.load(pages[i], frame, coverages[i])) loads++;
    }
    this.loads += loads;
    return loads;
  }

  /** Slot holding `pageId`, or -1 (`SlotTableView.slotOf`, read by lhd for a page's parent). */
  slotOf(pageId: number): number {
    return this.pageToSlot.get(pageId);
  }

  /** True when the shadow holds `pageId`. */
  holds(pageId: number): boolean {
    return this.slotOf(pageId) >= 0;
  }

  /** Forgets `pageId` without counting an eviction (its owner released it). */
  forget(pageId: number): void {
    const s = this.pageToSlot.get(pageId);
    if (s >= 0) this.vacate(s, false);
  }

  private use(s: number, frame: number, coverage: number): void {
    const last = this.slotLastUse[s];
    if (last >= frame) return;
    if (!this.active.has(s)) this.policy.protect(s);
    this.active.pushBack(s);
    this.policy.referenced(s, frame, last, coverage);
    this.slotLastUse[s] = frame;
    this.slotUseFrames[s]++;
  }

  private load(pageId: number, frame: number, coverage: number): boolean {
    let s = this.free.popFront();
    if (s < 0) {
      // Swept only when a victim is needed, as the real pool does: the same hook order, so the
      // same victims.
      this.sweep(frame);
      s = this.policy.victim(frame);
      if (s < 0) return false; // every slot is in use in this frame: the frame is too large
      this.vacate(s, true);
      this.free.remove(s);
    }
    this.slotPages[s] = pageId;
    this.pageToSlot.set(pageId, s);
    this.slotLastUse[s] = frame;
    this.slotLoadFrame[s] = frame;
    this.slotUseFrames[s] = 1;
    this.policy.inserted(s, pageId, frame, coverage);
    this.active.pushBack(s);
    return true;
  }

  /** Pages not used in `frame` become candidates, oldest first. */
  private sweep(frame: number): void {
    const active = this.active;
    for (let s = active.head; s >= 0 && this.slotLastUse[s] < frame; s = active.head) {
      active.remove(s);
      this.policy.evictable(s, this.slotLastUse[s]);
    }
  }

  private vacate(s: number, evicted: boolean): void {
    const page = this.slotPages[s];
    if (this.active.has(s)) this.active.remove(s);
    else this.policy.protect(s);
    this.policy.removed(s, page, this.slotLastUse[s], evicted);
    this.pageToSlot.delete(page);
    this.slotPages[s] = NO_REQUEST;
    this.free.pushBack(s);
  }
}
