import { TesseraConfigError } from '../errors';
import { LhdPolicy } from './lhd-policy';
import { LruPolicy } from './lru-policy';
import type { ReplacementPolicy, ReplacementPolicyFactory, SlotTableView } from './replacement-policy';
import { ShadowPool } from './shadow-pool';

/** Options of {@link AdaptivePolicy}. */
export interface AdaptivePolicyOptions {
  /**
   * Hysteresis, in loads: the pool switches to the other policy only once that policy's shadow
   * needed this many loads fewer than the followed one's, counted from the start. Default
   * {@link ADAPTIVE_HYSTERESIS_PER_SLOT} x slots, at least 1.
   */
  hysteresisLoads?: number;
}

/** Default {@link AdaptivePolicyOptions.hysteresisLoads} per slot (chosen on the tuning paths). */
export const ADAPTIVE_HYSTERESIS_PER_SLOT = 1 / 64;

function checkOptions(options: AdaptivePolicyOptions): void {
  const h = options.hysteresisLoads;
  if (h !== undefined && !(Number.isInteger(h) && h >= 0)) {
    throw new TesseraConfigError(
      'invalid-option',
      `adaptive policy: hysteresisLoads must be a non-negative integer, got ${String(h)}`,
    );
  }
}

/**
 * Lhd where it wins, LRU where it does not: a tournament between the two, in the spirit of set
 * dueling (Qureshi, Jaleel, Patt, Steely & Emer, "Adaptive Insertion Policies for High Performance
 * Caching", ISCA 2007: the misses of two candidate policies, each simulated on its own sample,
 * decide which one the cache follows) and of ARC's shadow directory of tags. A fully associative
 * pool has no sets to dedicate, so both candidates are simulated whole, on tags only: two
 * {@link ShadowPool}s of the same slot count, one with lhd and one with LRU, replay every frame of
 * requests the pool sees and count the loads each policy alone would need.
 *
 * The pool follows the candidate whose shadow has needed fewer loads since the start, switching
 * only when the other leads by {@link AdaptivePolicyOptions.hysteresisLoads}. Both real policies
 * see every hook of the pool, so the one followed after a switch chooses the next victim with its
 * state up to date. So the pool's loads are those of the better policy on the trace plus, per
 * switch, the hysteresis and the transient of one policy taking over the other's pool content
 * (short for LRU, which keeps the most recent pages whatever came before).
 *
 * A frame's requests are buffered (one typed array of one entry per slot) and replayed by the
 * shadows when the next frame begins, hits first, as the replay model serves them. O(1) per hook
 * amortised (each request is served by the two shadows once), nothing allocated after
 * construction; the price is memory and time of two more pools of tags (about 3x the per-request
 * work of lhd alone).
 */
export class AdaptivePolicy implements ReplacementPolicy {
  readonly name = 'adaptive';
  /** The learned policy, on the real pool. */
  readonly lhd: LhdPolicy;
  /** The baseline, on the real pool. */
  readonly lru: LruPolicy;
  /** Lhd alone on the pool's request stream (tags only). */
  readonly lhdShadow: ShadowPool;
  /** LRU alone on the pool's request stream (tags only). */
  readonly lruShadow: ShadowPool;
  /** Switches between the two so far. */
  switches = 0;
  private readonly table: SlotTableView;
  private readonly hysteresis: number;
  private followingLru = false;
  /** Requests of the frame being recorded. */
  private readonly frameRequests: Uint32Array;
  private requestCount = 0;
  private requestFrame = -0x80000000;

  constructor(table: SlotTableView, options: AdaptivePolicyOptions = {}) {
    checkOptions(options);
    const c = table.slotCount;
    this.table = table;
    this.lhd = new LhdPolicy(table);
    this.lru = new LruPolicy(table);
    this.lhdShadow = new ShadowPool(c, (t) => new LhdPolicy(t));
    this.lruShadow = new ShadowPool(c, (t) => new LruPolicy(t));
    this.hysteresis = options.hysteresisLoads ?? Math.max(1, Math.round(ADAPTIVE_HYSTERESIS_PER_SLOT * c));
    this.frameRequests = new Uint32Array(c);
  }

  /** The policy choosing victims now. */
  get following(): 'lhd' | 'lru' {
    return this.followingLru ? 'lru' : 'lhd';
  }

  inserted(slot: number, pageId: number, frame: number): void {
    this.lhd.inserted(slot, pageId, frame);
    this.request(pageId, frame);
  }

  referenced(slot: number, frame: number, lastUse: number): void {
    this.lhd.referenced(slot, frame, lastUse);
    this.request(this.table.slotPages[slot], frame);
  }

  evictable(slot: number, lastUse: number): void {
    this.lhd.evictable(slot, lastUse);
    this.lru.evictable(slot);
  }

  protect(slot: number): void {
    this.lhd.protect(slot);
    this.lru.protect(slot);
  }

  removed(slot: number, pageId: number, lastUse: number, evicted: boolean): void {
    this.lhd.removed(slot, pageId, lastUse, evicted);
    this.lru.removed(slot);
    if (evicted) return;
    // Released by its owner: gone for both candidates too.
    this.lhdShadow.forget(pageId);
    this.lruShadow.forget(pageId);
  }

  victim(frame: number): number {
    if (frame > this.requestFrame) this.replayFrame();
    if (!this.followingLru) return this.lhd.victim(frame);
    this.lhd.evictingAt(frame);
    return this.lru.victim();
  }

  /** Records one request (a page's first use in `frame`) for the shadows. */
  private request(pageId: number, frame: number): void {
    if (frame !== this.requestFrame) {
      if (frame < this.requestFrame) return; // frames never go back; ignore rather than corrupt
      this.replayFrame();
      this.requestFrame = frame;
    }
    // More requests than slots cannot all be resident in one frame; the rest are not counted.
    if (this.requestCount < this.frameRequests.length) this.frameRequests[this.requestCount++] = pageId;
  }

  /** Serves the recorded frame to both shadows and follows the one that needed fewer loads. */
  private replayFrame(): void {
    if (this.requestCount === 0) return;
    const f = this.requestFrame;
    this.lhdShadow.serveFrame(this.frameRequests, this.requestCount, f);
    this.lruShadow.serveFrame(this.frameRequests, this.requestCount, f);
    this.requestCount = 0;
    const lead = this.lhdShadow.loads - this.lruShadow.loads; // > 0: LRU needed fewer
    const switchNow = this.followingLru ? lead < -this.hysteresis : lead > this.hysteresis;
    if (!switchNow) return;
    this.followingLru = !this.followingLru;
    this.switches++;
  }
}

/** A `replacementPolicy` factory building an {@link AdaptivePolicy} with `options` (checked now). */
export function adaptivePolicy(options: AdaptivePolicyOptions = {}): ReplacementPolicyFactory {
  checkOptions(options);
  return (table) => new AdaptivePolicy(table, options);
}
