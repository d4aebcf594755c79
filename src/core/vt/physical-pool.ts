import { TesseraConfigError } from '../errors';
import { IndexedMaxHeap, IndexedMinHeap } from '../structures/indexed-heap';
import { IntrusiveList } from '../structures/intrusive-list';
import { PageIndexMap } from '../structures/page-index-map';
import { NO_REQUEST } from './page-id';
import { MAX_SLOTS } from './page-table-entry';

/** Options of a {@link PhysicalPool}: either `slotCount`, or `budgetBytes` with the tile format. */
export interface PhysicalPoolOptions {
  /** Number of slots (1..65536). Takes precedence over `budgetBytes`. */
  slotCount?: number;
  /** Byte budget of the pool texture(s), all layers together, in bytes. */
  budgetBytes?: number;
  /** Tile side including border, in texels. Default 128. */
  tileSize?: number;
  /** Bytes per texel of the pool format (4 for rgba8). Default 4. */
  bytesPerTexel?: number;
  /** Layers stored per slot (a slot holds the same page in every layer). Default 1. */
  layers?: number;
}

/**
 * Idle pages examined per eviction, longest idle first. A bounded sample keeps eviction O(1) while
 * letting the mip weight reorder the oldest candidates.
 */
export const EVICTION_SAMPLE = 16;

/**
 * Longest absence that can count as flicker, in frames: a page idle for longer has certainly left
 * the view, and only absences longer than this are remembered as reuse gaps. Shorter absences are
 * feedback flicker (sparse sampling, jitter at mip boundaries) and predict nothing.
 */
export const LEFT_VIEW_FRAMES = 16;

/**
 * Weight base of the mip-aware recency: a page at mip `m` idle for `t` frames ranks as if idle for
 * `t / MIP_RECENCY_BASE^m`. Coarse pages cover more ground, stay in view longer and return sooner
 * after the camera turns, so an equally idle fine page is the better victim.
 */
export const MIP_RECENCY_BASE = 1.5;

/**
 * Absences of up to this many frames are assumed to be flicker for every page, in frames: sparse
 * feedback sampling and the rotating jitter routinely drop a visible page for 2 frames. A page
 * counts as departed once idle for more than its own longest flicker (at least this) + 1 frame.
 */
export const MIN_FLICKER_FRAMES = 2;

/**
 * Frames after its last use at which a departed page with no known reuse gap is predicted back, in
 * frames. Such a page is the cheapest to give up right after it leaves (most recently departed
 * first, what Belady's policy does on loops, where plain LRU evicts exactly the page needed next);
 * once it has stayed resident past this point it is treated like a page due back any moment, kept
 * with the pages that have stayed (the stable set a loop returns to, as in LIRS), until its
 * prediction expires (see {@link PREDICTION_EXPIRY_GAPS}).
 */
export const NEW_DEPARTURE_FRAMES = 2 * LEFT_VIEW_FRAMES;

/**
 * A predicted return is dropped (the page falls back to recency) once the page has been idle for
 * this many typical reuse gaps, the running mean of the gaps observed on every page: a page gone
 * for that long has left the loop (a fly-over's trail), whatever its own history said.
 */
export const PREDICTION_EXPIRY_GAPS = 2;

/** Gaps averaged by the typical reuse gap: a running mean over about this many recent gaps. */
export const TYPICAL_GAP_WINDOW = 64;

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
 * Known weak spots (orbit, 4 revolutions: 4725 loads vs Belady 4177): the first revolution, where
 * gaps are unknown; pages seen twice per revolution (near, then far) whose single known gap in
 * the first revolution predicts the wrong half of the rhythm; absences of 17..30 frames (jitter)
 * taken for reuse gaps. In a zero-latency replay (4733 loads), an oracle giving the true return
 * of pages with a known gap reaches 4593, one for pages without a gap 4572.
 * Tried without gain: most- vs least-recently-departed order for pages with no gap (alone), a
 * typical gap per mip, a typical gap per visit length (a table learned online is biased short
 * in the first revolution: only short gaps have ended yet), a learned "next gap after gap g"
 * table, the running mean gap as the prediction for pages without one (orbit 1.18), predicting
 * them with the longest gap seen, expiring overdue predictions at once (orbit 1.20: pages due
 * back any moment were then ranked by LRU), ignoring gaps under 32 or 48 frames when choosing
 * between the last two (orbit worse: short gaps are real).
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
  private readonly byReturn: IndexedMaxHeap;
  private readonly byDeparture: IndexedMinHeap;
  private readonly predictedByLastUse: IndexedMinHeap;
  private readonly slotFlicker: Uint8Array;
  private readonly slotGap: Int32Array;
  private readonly slotGapBefore: Int32Array;
  private readonly ghostKeys: Uint32Array;
  private readonly ghostLast: Int32Array;
  private readonly ghostGap: Int32Array;
  private readonly ghostGapBefore: Int32Array;
  private readonly ghostFlicker: Uint8Array;
  private readonly ghostMask: number;
  private readonly mipWeight = new Float64Array(16).map((_, m) => MIP_RECENCY_BASE ** -m);
  private pinned = 0;
  private locked = 0;
  /** Running mean of the reuse gaps observed on every page, in frames (0 before the first). */
  private typicalGap = 0;
  private typicalGapSamples = 0;

  constructor(options: PhysicalPoolOptions) {
    const count = options.slotCount ?? PhysicalPool.slotCountForBudget(options);
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
    this.byReturn = new IndexedMaxHeap(count);
    this.byDeparture = new IndexedMinHeap(count);
    this.predictedByLastUse = new IndexedMinHeap(count);
    this.slotFlicker = new Uint8Array(count);
    this.slotGap = new Int32Array(count);
    this.slotGapBefore = new Int32Array(count);
    let ghostSets = 16;
    while (ghostSets < count) ghostSets <<= 1;
    this.ghostKeys = new Uint32Array(ghostSets * 4).fill(NO_REQUEST);
    this.ghostLast = new Int32Array(ghostSets * 4);
    this.ghostGap = new Int32Array(ghostSets * 4);
    this.ghostGapBefore = new Int32Array(ghostSets * 4);
    this.ghostFlicker = new Uint8Array(ghostSets * 4);
    this.ghostMask = ghostSets - 1;
    for (let s = 0; s < count; s++) this.free.pushBack(s);
  }

  /**
   * Slots that fit `budgetBytes` at the given tile format, capped at 65536. Throws
   * {@link TesseraConfigError} `budget-too-small` when not even one tile fits.
   */
  static slotCountForBudget(options: PhysicalPoolOptions): number {
    const { budgetBytes } = options;
    const tileSize = options.tileSize ?? 128;
    const bpt = options.bytesPerTexel ?? 4;
    const layers = options.layers ?? 1;
    if (budgetBytes === undefined || !(budgetBytes >= 0)) {
      throw new TesseraConfigError(
        'invalid-option',
        'PhysicalPool needs slotCount or a non-negative budgetBytes',
      );
    }
    if (!(tileSize > 0 && bpt > 0 && layers > 0)) {
      throw new TesseraConfigError('invalid-tile', 'tileSize, bytesPerTexel and layers must be positive');
    }
    const slots = Math.floor(budgetBytes / (tileSize * tileSize * bpt * layers));
    if (slots < 1) {
      throw new TesseraConfigError('budget-too-small', `budget of ${budgetBytes} bytes holds no tile`);
    }
    return Math.min(slots, MAX_SLOTS);
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
    this.recallGaps(slot, pageId, frame);
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
    const gap = frame - this.slotLastUse[slot];
    if (gap > LEFT_VIEW_FRAMES) {
      this.slotGapBefore[slot] = this.slotGap[slot];
      this.slotGap[slot] = gap;
      this.noteGap(gap);
    } else if (gap > 1 && gap > this.slotFlicker[slot]) {
      this.slotFlicker[slot] = gap;
    }
    if (st === STATE_IDLE) {
      this.idleOrder.remove(slot);
      this.idleOld.remove(slot);
      this.unpredict(slot);
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
        this.byDeparture.set(s, this.departureFrame(s));
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
    const heap = this.byReturn;
    // Pages idle for longer than they ever flickered have left the view: predict their return.
    const departing = this.byDeparture;
    while (departing.size > 0 && departing.peekKey() <= frame) {
      const s = departing.pop();
      young.remove(s);
      old.pushBack(s);
      // The gap before the latest one: exact for loops (equal gaps) and for views that alternate
      // between two rhythms (ping-pong, an orbit seeing a place near then far).
      let gap = this.slotGapBefore[s] > 0 ? this.slotGapBefore[s] : this.slotGap[s];
      if (gap === 0) gap = NEW_DEPARTURE_FRAMES;
      if (this.slotLastUse[s] + gap > frame) {
        heap.set(s, this.slotLastUse[s] + gap);
        this.predictedByLastUse.set(s, this.slotLastUse[s]);
      }
    }
    // A page overdue by more than a few typical gaps is not coming back on any rhythm seen so far.
    const byLastUse = this.predictedByLastUse;
    const expired = frame - PREDICTION_EXPIRY_GAPS * this.typicalGap;
    while (byLastUse.size > 0 && byLastUse.peekKey() < expired) heap.delete(byLastUse.pop());
    // Overdue predictions stay (the page may be back any moment) until every prediction is overdue.
    while (heap.size > 0 && heap.key(heap.peek()) <= frame) byLastUse.delete(heap.pop());
    let best = this.sampleByRecency(old, frame);
    if (best < 0) best = this.sampleByRecency(young, frame);
    const top = heap.peek();
    if (top >= 0 && (best < 0 || heap.key(top) - frame > this.staleness(best, frame))) return top;
    return best;
  }

  /**
   * First frame at which an idle page counts as having left the view: idle for longer than the
   * longest flicker (short absence) it has shown, plus one frame, and at most
   * {@link LEFT_VIEW_FRAMES}.
   */
  private departureFrame(s: number): number {
    const wait = Math.min(LEFT_VIEW_FRAMES, Math.max(MIN_FLICKER_FRAMES, this.slotFlicker[s]) + 1);
    return this.slotLastUse[s] + wait + 1;
  }

  /**
   * Frames until `s` (chosen by recency) is expected back, to weigh against a predicted return: at
   * least how long it has been gone since it left the view (LRU's own estimate), so pages left
   * behind long ago go before pages that come and go in the current view; the mip-aware score
   * orders pages idle for a similar time.
   */
  private staleness(s: number, frame: number): number {
    return Math.max(this.recencyScore(s, frame), frame - this.slotLastUse[s] - 2 * LEFT_VIEW_FRAMES);
  }

  private recencyScore(s: number, frame: number): number {
    const last = this.slotLastUse[s];
    const mip = (this.slotPages[s] >>> 24) & 0xf;
    const density = this.slotUseFrames[s] / (last - this.slotLoadFrame[s] + 1);
    return (frame - last) * this.mipWeight[mip] * density * density;
  }

  /**
   * Best recency victim among the first {@link EVICTION_SAMPLE} unpredicted pages of `list`,
   * walking at most twice that many entries (pages with a prediction are skipped but counted, so
   * the walk stays O(1)); -1 when none is found.
   */
  private sampleByRecency(list: IntrusiveList, frame: number): number {
    let best = -1;
    let bestScore = -1;
    let s = list.head;
    for (
      let k = 0, walked = 0;
      k < EVICTION_SAMPLE && walked < 2 * EVICTION_SAMPLE && s >= 0;
      s = list.next(s)
    ) {
      walked++;
      if (this.byReturn.has(s)) continue;
      k++;
      const score = this.recencyScore(s, frame);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
  }

  /** Drops `s`'s predicted return, if any. */
  private unpredict(s: number): void {
    this.byReturn.delete(s);
    this.predictedByLastUse.delete(s);
  }

  /** Adds a reuse gap (frames) to the running mean over about {@link TYPICAL_GAP_WINDOW} gaps. */
  private noteGap(gap: number): void {
    if (this.typicalGapSamples < TYPICAL_GAP_WINDOW) this.typicalGapSamples++;
    this.typicalGap += (gap - this.typicalGap) / this.typicalGapSamples;
  }

  private ghostBase(pageId: number): number {
    return ((Math.imul(pageId, 0x85ebca6b) >>> 9) & this.ghostMask) * 4;
  }

  private remember(pageId: number, lastUse: number, gap: number, gapBefore: number, flicker: number): void {
    const b = this.ghostBase(pageId);
    let t = b;
    for (let i = b; i < b + 4; i++) {
      if (this.ghostKeys[i] === pageId || this.ghostKeys[i] === NO_REQUEST) {
        t = i;
        break;
      }
      if (this.ghostLast[i] < this.ghostLast[t]) t = i;
    }
    this.ghostKeys[t] = pageId;
    this.ghostLast[t] = lastUse;
    this.ghostGap[t] = gap;
    this.ghostGapBefore[t] = gapBefore;
    this.ghostFlicker[t] = flicker;
  }

  /** Restores an evicted page's reuse gaps from the ghost table, adding the absence just ended. */
  private recallGaps(slot: number, pageId: number, frame: number): void {
    this.slotGap[slot] = 0;
    this.slotGapBefore[slot] = 0;
    this.slotFlicker[slot] = 0;
    const b = this.ghostBase(pageId);
    for (let i = b; i < b + 4; i++) {
      if (this.ghostKeys[i] !== pageId) continue;
      const gap = frame - this.ghostLast[i];
      this.slotFlicker[slot] = this.ghostFlicker[i];
      if (gap > LEFT_VIEW_FRAMES) {
        this.slotGap[slot] = gap;
        this.slotGapBefore[slot] = this.ghostGap[i];
        this.noteGap(gap);
      } else {
        this.slotGap[slot] = this.ghostGap[i];
        this.slotGapBefore[slot] = this.ghostGapBefore[i];
        // Evicted during a flicker: it was longer than any seen before, so wait longer next time.
        if (gap > this.slotFlicker[slot]) this.slotFlicker[slot] = gap;
      }
      return;
    }
  }

  private detach(slot: number): void {
    const st = this.state[slot];
    if (st === STATE_ACTIVE) this.active.remove(slot);
    else if (st === STATE_IDLE) {
      this.idleOrder.remove(slot);
      this.idleOld.remove(slot);
      this.unpredict(slot);
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
    this.remember(
      page,
      this.slotLastUse[slot],
      this.slotGap[slot],
      this.slotGapBefore[slot],
      this.slotFlicker[slot],
    );
    this.pageToSlot.delete(page);
    this.slotPages[slot] = NO_REQUEST;
    this.state[slot] = STATE_FREE;
    this.free.pushBack(slot);
  }
}
