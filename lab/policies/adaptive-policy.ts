import { TesseraConfigError } from '../../src/core/errors';
import { FEEDBACK_JITTER_PERIOD } from '../../src/core/vt/feedback/feedback-jitter';
import { LruPolicy } from '../../src/core/vt/residency/lru-policy';
import type {
  ReplacementPolicy,
  ReplacementPolicyFactory,
  SlotTableView,
} from '../../src/core/vt/residency/replacement-policy';
import type { CoverageAwarePolicy, CoverageFeed } from './coverage-feed';
import { CoverageLhdPolicy, checkCoverageCuts } from './coverage-lhd-policy';
import { PredictivePolicy } from './predictive-policy';
import { ShadowPool } from './shadow-pool';

/** Options of {@link AdaptivePolicy}. */
export interface AdaptivePolicyOptions {
  /**
   * How long the policy not followed must lead before the pool follows it, in frames of
   * feedback: its shadow must have needed fewer loads (by more than
   * {@link hysteresisLoads}) at every frame of that span. Default
   * {@link ADAPTIVE_PERSIST_FRAMES}.
   */
  persistFrames?: number;
  /** Lead, in loads, that counts as leading for {@link persistFrames}. Default 0. */
  hysteresisLoads?: number;
  /**
   * The policy lhd duels with: `predictive` (default: per-page reuse gaps, strongest on long loops,
   * where lhd is weakest) or `lru` (the baseline, for a pool that must stay close to LRU's loads).
   */
  partner?: AdaptivePartner;
  /**
   * Coverage levels in the classes of lhd and of its shadow (see
   * `CoverageLhdPolicyOptions.coverageCuts`; `[]` for none). Default {@link ADAPTIVE_COVERAGE_CUTS}.
   */
  coverageCuts?: readonly number[];
  /**
   * Coverage of the request each pool call serves ({@link CoverageFeed}: set by a lab replay; the
   * product pool passes none). Default: coverage 0.
   */
  feed?: CoverageFeed;
}

/**
 * Default {@link AdaptivePolicyOptions.coverageCuts}: 4 levels, fallback ancestor only, 1 pixel,
 * 2-4 pixels, more. Chosen on the tuning paths against no levels, `[0]`, `[0, 4]` and `[0, 2]`
 * (best in worst case and in mean; `lab/replacement-policies.md`, "Coverage in `adaptive`").
 */
export const ADAPTIVE_COVERAGE_CUTS: readonly number[] = [0, 1, 4];

/** Policies {@link AdaptivePolicy} can duel lhd with. */
export type AdaptivePartner = 'lru' | 'predictive';

/**
 * Default {@link AdaptivePolicyOptions.persistFrames}: four jitter cycles. Chosen on the tuning
 * paths with the LRU partner (total loads / Belady over the set at 16, 32, 64, 128, 256 frames:
 * 1.1739, 1.1690, 1.1662, 1.1681, 1.1681, lhd alone 1.1681; 32 to 128, 48 and 96 included, share
 * lhd's worst case, 1.268, and 16 does not) and checked with the predictor (mean case ratio at 32,
 * 64, 128 frames: 1.1599, 1.1584, 1.1621, the same worst case). Without it (0 frames), the
 * pool switches on every short lead: on a loop, lhd falls behind LRU while it keeps pages that
 * pay off a revolution later, and following LRU then throws those pages away (figure8_small:
 * 0.95 of LRU's loads instead of lhd's 0.90).
 */
export const ADAPTIVE_PERSIST_FRAMES = 4 * FEEDBACK_JITTER_PERIOD;

function checkOptions(options: AdaptivePolicyOptions): void {
  const partner = options.partner;
  if (partner !== undefined && partner !== 'lru' && partner !== 'predictive') {
    throw new TesseraConfigError(
      'invalid-option',
      `adaptive policy: partner must be 'predictive' or 'lru', got ${String(partner)}`,
    );
  }
  if (options.coverageCuts !== undefined) checkCoverageCuts(options.coverageCuts);
  for (const key of ['persistFrames', 'hysteresisLoads'] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) {
      throw new TesseraConfigError(
        'invalid-option',
        `adaptive policy: ${key} must be a non-negative integer, got ${String(v)}`,
      );
    }
  }
}

/**
 * Lhd where it wins, its partner where it does not: a tournament between the two, in the spirit of
 * set dueling (Qureshi, Jaleel, Patt, Steely & Emer, "Adaptive Insertion Policies for High
 * Performance Caching", ISCA 2007: the misses of two candidate policies, each simulated on its own
 * sample, decide which one the cache follows) and of ARC's shadow directory of tags. A fully
 * associative pool has no sets to dedicate, so both candidates are simulated whole, on tags only:
 * two {@link ShadowPool}s of the same slot count, one with lhd and one with the partner, replay
 * every frame of requests the pool sees and count the loads each policy alone would have needed
 * since the start.
 *
 * The partner is the reuse-gap predictor by default: lhd is weakest on roomy pools with loops,
 * where pages return after longer than its ghosts remember, and the predictor is strongest there
 * (held-out worst loads / Belady 1.25 against lhd's 1.28, LRU partner 1.31, before coverage
 * classes; `lab/replacement-policies.md`). With `partner: 'lru'` the duel bounds the loads by
 * LRU's.
 *
 * Its lhd, real and shadow, also classes pages by their feedback coverage at their last use
 * ({@link ADAPTIVE_COVERAGE_CUTS}): alone, lhd lost with it on loops, where the duel hands over to
 * the predictor, and won on the tight cases the predictor cannot help (held-out worst 1.251 ->
 * 1.196, tuning 1.264 -> 1.255; with lhd's parent-in-use scaling since, 1.195 and 1.263).
 *
 * The pool follows lhd until the partner's shadow has led (needed fewer loads in total, by more
 * than `hysteresisLoads`) for `persistFrames` consecutive frames, then the partner until lhd has
 * led as long. Both real policies see every hook of the pool, so the one followed after a switch
 * chooses the next victim with its state up to date. The pool's loads are those of the better
 * policy plus, per switch, the lead it waited for and the transient of one policy taking over the
 * other's content: the better of the two by a bounded margin, not exactly (measured: 1.0006 of
 * LRU's loads on the worst held-out trace).
 *
 * A frame's requests and their coverage are buffered (two typed arrays of one entry per slot)
 * and replayed by the shadows when the next frame begins, hits first, as the replay model serves
 * them, so each shadow's count is exactly that policy's alone on the same stream (a test checks
 * it). O(1) per hook amortised (each request is served once by each shadow; the predictor's hooks
 * are O(log n)), nothing allocated after construction; the price is two more pools of tags:
 * 12-19x lhd's time per page use and 4-7x its memory (`pool.*.adaptive`).
 *
 * Approximations in the streamer (not in replays): the shadows see the requests the pool serves
 * (uses of resident pages and loads), not requests still waiting for an upload; a page released by
 * its owner is forgotten by the shadows too, unless it was requested in the frame still being
 * recorded (it then reaches both shadows, alike); pinned pages take shadow slots as well.
 */
export class AdaptivePolicy implements ReplacementPolicy {
  readonly name = 'adaptive';
  /** The learned policy, on the real pool. */
  readonly lhd: CoverageLhdPolicy;
  /** The other candidate ({@link AdaptivePolicyOptions.partner}), on the real pool. */
  readonly partner: CoverageAwarePolicy;
  /** Lhd alone on the pool's request stream (tags only). */
  readonly lhdShadow: ShadowPool;
  /** The partner alone on the pool's request stream (tags only). */
  readonly partnerShadow: ShadowPool;
  /** Switches between the two so far. */
  switches = 0;
  private readonly table: SlotTableView;
  private readonly persistFrames: number;
  private readonly hysteresis: number;
  private followingPartner = false;
  /** Latest frame at which the policy not followed did not lead. */
  private notLeadingAt = 0;
  /** Requests of the frame being recorded, and their feedback coverage (pixels). */
  private readonly frameRequests: Uint32Array;
  private readonly frameCoverage: Uint32Array;
  private requestCount = 0;
  private requestFrame = -0x80000000;
  private readonly feed: CoverageFeed | undefined;

  constructor(table: SlotTableView, options: AdaptivePolicyOptions = {}) {
    checkOptions(options);
    const c = table.slotCount;
    this.table = table;
    this.feed = options.feed;
    const createPartner =
      options.partner === 'lru'
        ? (t: SlotTableView) => new LruPolicy(t)
        : (t: SlotTableView) => new PredictivePolicy(t);
    const lhdOptions = { coverageCuts: options.coverageCuts ?? ADAPTIVE_COVERAGE_CUTS };
    this.lhd = new CoverageLhdPolicy(table, lhdOptions);
    this.partner = createPartner(table);
    this.lhdShadow = new ShadowPool(c, (t) => new CoverageLhdPolicy(t, lhdOptions));
    this.partnerShadow = new ShadowPool(c, createPartner);
    this.persistFrames = options.persistFrames ?? ADAPTIVE_PERSIST_FRAMES;
    this.hysteresis = options.hysteresisLoads ?? 0;
    this.frameRequests = new Uint32Array(c);
    this.frameCoverage = new Uint32Array(c);
  }

  /** Name of the policy choosing victims now: `lhd` or the partner's. */
  get following(): string {
    return this.followingPartner ? this.partner.name : 'lhd';
  }

  inserted(slot: number, pageId: number, frame: number, coverage = this.feed?.coverage ?? 0): void {
    this.lhd.inserted(slot, pageId, frame, coverage);
    this.partner.inserted(slot, pageId, frame, coverage);
    this.request(pageId, frame, coverage);
  }

  referenced(slot: number, frame: number, lastUse: number, coverage = this.feed?.coverage ?? 0): void {
    this.lhd.referenced(slot, frame, lastUse, coverage);
    this.partner.referenced(slot, frame, lastUse, coverage);
    this.request(this.table.slotPages[slot], frame, coverage);
  }

  evictable(slot: number, lastUse: number): void {
    this.lhd.evictable(slot, lastUse);
    this.partner.evictable(slot, lastUse);
  }

  protect(slot: number): void {
    this.lhd.protect(slot);
    this.partner.protect(slot);
  }

  removed(slot: number, pageId: number, lastUse: number, evicted: boolean): void {
    this.lhd.removed(slot, pageId, lastUse, evicted);
    this.partner.removed(slot, pageId, lastUse, evicted);
    if (evicted) return;
    // Released by its owner: gone for both candidates too.
    this.lhdShadow.forget(pageId);
    this.partnerShadow.forget(pageId);
  }

  /**
   * After a resize: lhd adopts what the previous pool's lhd learned (see `LhdPolicy.adopt`); the
   * shadows and the duel start afresh, their tags being per slot count.
   */
  adopt(
    previous: ReplacementPolicy,
    previousTable: SlotTableView,
    newSlotOf: Int32Array,
    frame: number,
  ): void {
    if (previous instanceof AdaptivePolicy) this.lhd.adopt(previous.lhd, previousTable, newSlotOf, frame);
  }

  victim(frame: number): number {
    if (frame > this.requestFrame) this.replayFrame();
    if (!this.followingPartner) return this.lhd.victim(frame);
    this.lhd.evictingAt(frame);
    return this.partner.victim(frame);
  }

  /** Records one request (a page's first use in `frame`, with its coverage) for the shadows. */
  private request(pageId: number, frame: number, coverage: number): void {
    if (frame !== this.requestFrame) {
      if (frame < this.requestFrame) return; // frames never go back; ignore rather than corrupt
      this.replayFrame();
      this.requestFrame = frame;
    }
    // More requests than slots cannot all be resident in one frame; the rest are not counted.
    const i = this.requestCount;
    if (i === this.frameRequests.length) return;
    this.frameRequests[i] = pageId;
    this.frameCoverage[i] = coverage;
    this.requestCount = i + 1;
  }

  /** Serves the recorded frame to both shadows, then follows the one that has led long enough. */
  private replayFrame(): void {
    if (this.requestCount === 0) return;
    const f = this.requestFrame;
    this.lhdShadow.serveFrame(this.frameRequests, this.frameCoverage, this.requestCount, f);
    this.partnerShadow.serveFrame(this.frameRequests, this.frameCoverage, this.requestCount, f);
    this.requestCount = 0;
    const lead = this.lhdShadow.loads - this.partnerShadow.loads; // > 0: the partner needed fewer
    const otherLeads = this.followingPartner ? lead < -this.hysteresis : lead > this.hysteresis;
    if (!otherLeads) {
      this.notLeadingAt = f;
      return;
    }
    if (f - this.notLeadingAt < this.persistFrames) return;
    this.followingPartner = !this.followingPartner;
    this.switches++;
    this.notLeadingAt = f;
  }
}

/** A `replacementPolicy` factory building an {@link AdaptivePolicy} with `options` (checked now). */
export function adaptivePolicy(options: AdaptivePolicyOptions = {}): ReplacementPolicyFactory {
  checkOptions(options);
  return (table) => new AdaptivePolicy(table, options);
}
