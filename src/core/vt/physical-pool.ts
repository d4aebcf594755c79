import { TesseraConfigError } from '../errors';
import { IndexedMinHeap } from '../structures/indexed-heap';
import { IntrusiveList } from '../structures/intrusive-list';
import { PageIndexMap } from '../structures/page-index-map';
import { NO_REQUEST } from './page-id';
import { MAX_SLOTS } from './page-table-entry';
import { type PhysicalPoolOptions, slotCountForBudget } from './physical-pool-options';
import { RecencyRanking } from './recency-ranking';
import { ReturnPredictions } from './return-predictions';
import { ReuseHistory } from './reuse-history';

export type { PhysicalPoolOptions } from './physical-pool-options';

const STATE_FREE = 0;
const STATE_ACTIVE = 1;
const STATE_IDLE = 2;
const STATE_PINNED = 3;
const STATE_LOCKED = 4;

/**
 * Fixed set of physical tile slots shared by several virtual textures and by every layer of each.
 *
 * Replacement policy, an online estimate of Belady's "evict the page needed furthest in the future"
 * in frame numbers, with no allocation and O(log n) per eviction:
 * - pages used in the current frame are never candidates; the others are idle, in last-use order;
 * - each page remembers its last two long absences ("reuse gaps", > {@link LEFT_VIEW_FRAMES}) and
 *   its longest short one ("flicker", at most {@link LEFT_VIEW_FRAMES}), also across evictions
 *   through a small 4-way ghost table keyed by page id;
 * - an idle page is "departed" once idle for longer than its own longest flicker + 1 frame (at
 *   least {@link MIN_FLICKER_FRAMES} + 1, at most {@link LEFT_VIEW_FRAMES}); a min-heap keyed by
 *   that frame moves pages there in O(log n). Why: most pages that stop being requested are gone
 *   for long and are the best victims at once (in the orbit simulation, an oracle telling the
 *   true return of pages idle 3..16 frames cuts the excess over optimal from ~21% to ~5%), but
 *   pages at the edge of the view flicker in and out for a few frames; a page's own flicker
 *   history tells the two apart far better than one global threshold (a shorter global one made
 *   orbits worse: the largest predictions were mostly flickers mistaken for departures);
 * - a departed page with a known gap is predicted back at `lastUse + gap` (the gap before the
 *   latest, else the latest) and sits in a max-heap by that frame: on loops (orbits) the page that
 *   just left is the one needed last, which plain LRU gets exactly wrong;
 * - a departed page with no known gap is predicted back {@link NEW_DEPARTURE_FRAMES} after its
 *   last use: among such pages the one that left last goes first (Belady on a first lap: pages
 *   that left first return first), and one that stayed resident past that point is kept as if
 *   due back any moment, like the other overdue predictions: LIRS-like, the pages that stayed
 *   form the set a loop comes back to (orbit benchmark, with the expiry below: 4972 -> 4799
 *   loads, mostly in the first two revolutions, where few pages have a gap yet);
 * - an overdue prediction is kept (the page may be back any moment) until every prediction is
 *   overdue, or until the page has been idle for {@link PREDICTION_EXPIRY_GAPS} typical reuse
 *   gaps (running mean over all pages, tracked by a min-heap on last use); it then falls back to
 *   recency. Before any page has shown a gap, predictions expire at once (pure recency);
 * - other idle pages (no prediction) are ranked by mip-aware recency: among the first
 *   {@link EVICTION_SAMPLE} longest idle (walking at most twice that many), the largest
 *   `idleFrames / MIP_RECENCY_BASE^mip x density²`, where density is the fraction of frames since
 *   its load the page was used (finer pages and pages that stopped after steady use go first;
 *   flickering ones stay);
 * - the victim is whichever estimate of "frames until needed again" is larger; a page chosen by
 *   recency is expected back no sooner than it has been gone beyond two {@link LEFT_VIEW_FRAMES}
 *   (LRU's estimate), so pages left behind long ago (a fly-over's trail) go before pages that come
 *   and go in the current view (the demo thrashed on those while stale pages stayed resident);
 * - a page evicted during a flicker and requested again learns that flicker (it is remembered in
 *   the ghost table), so it is not taken for departed as early the next time (orbit benchmark:
 *   4799 -> 4725 loads).
 *
 * Never evicted: pages used in the current frame, pinned pages, locked pages (upload in flight).
 *
 * Tuning history (weak spots, what was tried without gain): see `eviction-tuning.ts`.
 */
export class PhysicalPool {
  /** Number of slots. */
  readonly slotCount: number;
  /** Page id held by each slot, {@link NO_REQUEST} when free. */
  readonly slotPages: Uint32Array;
  /** Frame each slot's page was last used. */
  readonly slotLastUse: Int32Array;
  /** Frame each slot's page was loaded. */
  readonly slotLoadFrame: Int32Array;
  /** Frames in which each slot's page was used since it was loaded. */
  readonly slotUseFrames: Int32Array;
  /** Pages evicted so far. */
  evictionCount = 0;
  /** Slots handed out by {@link allocate} so far. */
  allocationCount = 0;
  /** Page evicted by the latest {@link allocate}, or {@link NO_REQUEST} when it took a free slot. */
  lastEvictedPage = NO_REQUEST;

  private readonly state: Uint8Array;
  private readonly lockCount: Uint16Array;
  private readonly pageToSlot: PageIndexMap;
  private readonly free: IntrusiveList;
  private readonly active: IntrusiveList;
  private readonly idleOrder: IntrusiveList;
  private readonly idleOld: IntrusiveList;
  /** Idle slots by the frame they count as departed (see {@link ReuseHistory.departureFrame}). */
  private readonly byDeparture: IndexedMinHeap;
  private readonly predictions: ReturnPredictions;
  private readonly history: ReuseHistory;
  private readonly recency: RecencyRanking;
  private pinned = 0;
  private locked = 0;

  constructor(options: PhysicalPoolOptions) {
    const count = options.slotCount ?? slotCountForBudget(options);
    if (!Number.isInteger(count) || count < 1 || count > MAX_SLOTS) {
      throw new TesseraConfigError(
        'invalid-option',
        `slotCount must be an integer in 1..${MAX_SLOTS}, got ${count}`,
      );
    }
    this.slotCount = count;
    this.slotPages = new Uint32Array(count).fill(NO_REQUEST);
    this.slotLastUse = new Int32Array(count);
    this.slotLoadFrame = new Int32Array(count);
    this.slotUseFrames = new Int32Array(count);
    this.state = new Uint8Array(count);
    this.lockCount = new Uint16Array(count);
    this.pageToSlot = new PageIndexMap(count);
    this.free = new IntrusiveList(count);
    this.active = new IntrusiveList(count);
    this.idleOrder = new IntrusiveList(count);
    this.idleOld = new IntrusiveList(count);
    this.byDeparture = new IndexedMinHeap(count);
    this.predictions = new ReturnPredictions(count);
    this.history = new ReuseHistory(count);
    this.recency = new RecencyRanking(
      this.slotPages,
      this.slotLastUse,
      this.slotLoadFrame,
      this.slotUseFrames,
    );
    for (let s = 0; s < count; s++) this.free.pushBack(s);
  }

  /**
   * Slots that fit `budgetBytes` at the given tile format, capped at 65536. Throws
   * {@link TesseraConfigError} `budget-too-small` when not even one tile fits.
   */
  static slotCountForBudget(options: PhysicalPoolOptions): number {
    return slotCountForBudget(options);
  }

  /** Slots holding no page. */
  get freeCount(): number {
    return this.free.size;
  }
  /** Slots holding a page. */
  get residentCount(): number {
    return this.slotCount - this.free.size;
  }
  /** Slots holding a pinned page. */
  get pinnedCount(): number {
    return this.pinned;
  }
  /** Slots locked by an upload in flight. */
  get lockedCount(): number {
    return this.locked;
  }

  /**
   * Unpinned slots whose page was used at or after `sinceFrame`: the resident part of the working
   * set over a window of frames. O(slots), allocates nothing.
   */
  usedSinceCount(sinceFrame: number): number {
    const state = this.state;
    const lastUse = this.slotLastUse;
    let count = 0;
    for (let s = 0; s < this.slotCount; s++) {
      if (lastUse[s] >= sinceFrame && state[s] !== STATE_FREE && state[s] !== STATE_PINNED) count++;
    }
    return count;
  }

  /** Slot holding `pageId`, or -1. */
  slotOf(pageId: number): number {
    return this.pageToSlot.get(pageId);
  }

  /** True when `slot` holds a pinned page. */
  isPinned(slot: number): boolean {
    return this.state[slot] === STATE_PINNED;
  }

  /** True when `slot` is locked by an upload in flight. */
  isLocked(slot: number): boolean {
    return this.state[slot] === STATE_LOCKED;
  }

  /**
   * Gives `pageId` a slot at `frame`: a free one, else the victim of the replacement policy (its
   * page id left in {@link lastEvictedPage}; the caller unmaps it). Returns -1 when every slot is
   * pinned, locked or used in `frame`. A page already resident keeps its slot (and is touched).
   */
  allocate(pageId: number, frame: number, pinned = false): number {
    this.lastEvictedPage = NO_REQUEST;
    const existing = this.pageToSlot.get(pageId);
    if (existing >= 0) {
      if (pinned) this.setPinned(existing, true);
      this.touch(existing, frame);
      return existing;
    }
    let slot = this.free.popFront();
    if (slot < 0) {
      slot = this.selectVictim(frame);
      if (slot < 0) return -1;
      this.lastEvictedPage = this.slotPages[slot];
      this.evictionCount++;
      this.vacate(slot);
      this.free.remove(slot);
    }
    this.allocationCount++;
    this.slotPages[slot] = pageId;
    this.pageToSlot.set(pageId, slot);
    this.slotLastUse[slot] = frame;
    this.history.recall(slot, pageId, frame);
    this.slotLoadFrame[slot] = frame;
    this.slotUseFrames[slot] = 1;
    if (pinned) {
      this.state[slot] = STATE_PINNED;
      this.pinned++;
    } else {
      this.state[slot] = STATE_ACTIVE;
      this.active.pushBack(slot);
    }
    return slot;
  }

  /** Records that `slot`'s page is used in `frame` (protects it from eviction during that frame). */
  touch(slot: number, frame: number): void {
    const st = this.state[slot];
    if (st === STATE_FREE) return;
    // Absences are measured whatever the state: without evictions no sweep marks pages idle.
    this.history.noteAbsence(slot, frame - this.slotLastUse[slot]);
    if (st === STATE_IDLE) {
      this.idleOrder.remove(slot);
      this.idleOld.remove(slot);
      this.predictions.drop(slot);
      this.byDeparture.delete(slot);
      this.state[slot] = STATE_ACTIVE;
      this.active.pushBack(slot);
    }
    if (frame > this.slotLastUse[slot]) {
      this.slotLastUse[slot] = frame;
      this.slotUseFrames[slot]++;
    }
  }

  /** Pins or unpins `slot` (pinned pages are never evicted). */
  setPinned(slot: number, pinned: boolean): void {
    const st = this.state[slot];
    if (st === STATE_FREE || st === STATE_LOCKED) return;
    if (pinned && st !== STATE_PINNED) {
      this.detach(slot);
      this.state[slot] = STATE_PINNED;
      this.pinned++;
    } else if (!pinned && st === STATE_PINNED) {
      this.pinned--;
      this.state[slot] = STATE_ACTIVE;
      this.active.pushBack(slot);
    }
  }

  /** Protects `slot` from eviction while an upload into it is in flight (nestable). */
  lock(slot: number): void {
    if (this.state[slot] === STATE_FREE) return;
    if (this.lockCount[slot]++ === 0) {
      if (this.state[slot] === STATE_PINNED) return; // pinned already protects it
      this.detach(slot);
      this.state[slot] = STATE_LOCKED;
      this.locked++;
    }
  }

  /** Ends one {@link lock}. */
  unlock(slot: number): void {
    if (this.lockCount[slot] === 0) return;
    if (--this.lockCount[slot] === 0 && this.state[slot] === STATE_LOCKED) {
      this.locked--;
      this.state[slot] = STATE_ACTIVE;
      this.active.pushBack(slot);
    }
  }

  /** Frees `slot` without counting an eviction (its page is forgotten by the pool). No-op if free. */
  release(slot: number): void {
    if (this.state[slot] === STATE_FREE) return;
    this.vacate(slot);
  }

  /** Moves pages not used in `frame` from the active set to the eviction candidates. O(active). */
  sweep(frame: number): void {
    let s = this.active.head;
    while (s >= 0) {
      const next = this.active.next(s);
      if (this.slotLastUse[s] < frame) {
        this.active.remove(s);
        this.state[s] = STATE_IDLE;
        this.idleOrder.pushBack(s);
        this.byDeparture.set(s, this.history.departureFrame(s, this.slotLastUse[s]));
      }
      s = next;
    }
  }

  /** Slots that could be evicted at `frame` right now (idle, plus active ones not used in `frame`). */
  evictableCount(frame: number): number {
    this.sweep(frame);
    return this.idleOrder.size + this.idleOld.size;
  }

  private selectVictim(frame: number): number {
    this.sweep(frame);
    const young = this.idleOrder;
    const old = this.idleOld;
    const predictions = this.predictions;
    // Pages idle for longer than they ever flickered have left the view: predict their return.
    const departing = this.byDeparture;
    while (departing.size > 0 && departing.peekKey() <= frame) {
      const s = departing.pop();
      young.remove(s);
      old.pushBack(s);
      const returnFrame = this.slotLastUse[s] + this.history.expectedGap(s);
      if (returnFrame > frame) predictions.predict(s, this.slotLastUse[s], returnFrame);
    }
    predictions.expire(frame, this.history.typicalGap);
    let best = this.recency.sample(old, frame, predictions);
    if (best < 0) best = this.recency.sample(young, frame, predictions);
    const top = predictions.latest();
    if (
      top >= 0 &&
      (best < 0 || predictions.returnFrame(top) - frame > this.recency.staleness(best, frame))
    ) {
      return top;
    }
    return best;
  }

  private detach(slot: number): void {
    const st = this.state[slot];
    if (st === STATE_ACTIVE) this.active.remove(slot);
    else if (st === STATE_IDLE) {
      this.idleOrder.remove(slot);
      this.idleOld.remove(slot);
      this.predictions.drop(slot);
      this.byDeparture.delete(slot);
    }
  }

  private vacate(slot: number): void {
    const st = this.state[slot];
    this.detach(slot);
    if (st === STATE_PINNED) this.pinned--;
    if (st === STATE_LOCKED) this.locked--;
    this.lockCount[slot] = 0;
    const page = this.slotPages[slot];
    this.history.remember(slot, page, this.slotLastUse[slot]);
    this.pageToSlot.delete(page);
    this.slotPages[slot] = NO_REQUEST;
    this.state[slot] = STATE_FREE;
    this.free.pushBack(slot);
  }
}
