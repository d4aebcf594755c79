import { TesseraConfigError } from '../../src/core/errors';
import { FEEDBACK_JITTER_PERIOD } from '../../src/core/vt/feedback/feedback-jitter';
import { MAX_MIP, NO_REQUEST, pageMip, parentPageId } from '../../src/core/vt/page-id';
import { HitDensityTable } from '../../src/core/vt/residency/hit-density-table';
import { LhdGhosts } from '../../src/core/vt/residency/lhd-ghosts';
import {
  LHD_DENSITY_TOLERANCE,
  LHD_GHOSTS_PER_SLOT,
  LHD_RECONFIGURE_EVICTIONS,
  LHD_SAMPLE,
  VISIT_GAP_FRAMES,
} from '../../src/core/vt/residency/lhd-policy';
import type { ReplacementPolicy, SlotTableView } from '../../src/core/vt/residency/replacement-policy';
import { ReturnRateRatio } from '../../src/core/vt/residency/return-rate-ratio';
import type { CoverageFeed } from './coverage-feed';

/**
 * Frames of use history before a page's last use that choose its class (bits of presence): a
 * quarter of the jitter cycle: each 4 consecutive offsets of the Bayer order visit the 4 cells of
 * a 2x2 grid, so a page on a feedback-pixel boundary tends to repeat its pattern every 4 frames.
 */
const PATTERN_FRAMES = FEEDBACK_JITTER_PERIOD / 4;
/** Ints per candidate record (slot, last use, class, padding: four records per 64-byte line). */
const RECORD = 4;
/**
 * Consecutive records read per random draw: two cache lines, read in order. 4 and 8 did equally
 * well on the tuning paths (16 lost to LRU more often); 8 halves the random memory accesses.
 */
const GROUP = 8;

/** Class bit of a page seen in more than one visit since it was loaded. */
const REVISITED = 1 << PATTERN_FRAMES;
/** Frames of presence history kept per slot (more than {@link PATTERN_FRAMES} + 1 needs). */
const PRESENCE_BITS = 16;
const PRESENCE_MASK = (1 << PRESENCE_BITS) - 1;
/** History bit of a page seen in more than one visit. */
const REVISITED_BIT = 1 << PRESENCE_BITS;
/** Class bit of a page coarser than mip 0. */
const COARSE = 2 * REVISITED;
/** History bit of a page coarser than mip 0 (fixed at its load). */
const COARSE_BIT = 2 * REVISITED_BIT;
/** Classes without coverage levels: every presence pattern, once or revisited, mip 0 or coarser. */
const BASE_CLASSES = 2 * COARSE;
/** First history bit of the page's coverage level at its last use (2 bits: up to 4 levels). */
const COVERAGE_SHIFT = PRESENCE_BITS + 2;
/** Most coverage cuts: the levels fit {@link COVERAGE_SHIFT}'s 2 bits. */
const MAX_COVERAGE_CUTS = 3;
/** Tag on a ghost's class: the page was evicted while its parent page was in use. */
const PARENT_IN_USE = 0x8000;

/** Options of {@link CoverageLhdPolicy}. */
export interface CoverageLhdPolicyOptions {
  /**
   * Coverage levels in the page's class: ascending feedback-pixel counts (at most 3, integers
   * >= 0); a page's level is the number of cuts its coverage at its last use exceeds. `[0, 1, 4]`
   * gives 4 levels: fallback ancestor only, 1 pixel, 2-4 pixels, more. Each level multiplies the
   * classes (and the table's memory and reconfiguration work) by one more. Default none (then it
   * chooses as the product's `LhdPolicy`): alone, lhd measured worse with them on the tuning
   * paths; `AdaptivePolicy` uses `ADAPTIVE_COVERAGE_CUTS` (`lab/replacement-policies.md`).
   */
  coverageCuts?: readonly number[];
  /**
   * Where coverage comes from when a hook is called without it (a `PhysicalPool`, which no longer
   * passes coverage): a lab replay sets it before each pool call. Default: coverage 0.
   */
  feed?: CoverageFeed;
}

/** Throws `TesseraConfigError` `invalid-option` unless `cuts` are valid {@link CoverageLhdPolicyOptions.coverageCuts}. */
export function checkCoverageCuts(cuts: readonly number[]): void {
  const ok =
    Array.isArray(cuts) &&
    cuts.length <= MAX_COVERAGE_CUTS &&
    cuts.every((c, i) => Number.isInteger(c) && c >= 0 && (i === 0 || c > cuts[i - 1]));
  if (!ok) {
    throw new TesseraConfigError(
      'invalid-option',
      `lhd policy: coverageCuts must be at most ${MAX_COVERAGE_CUTS} ascending integers >= 0, got ${JSON.stringify(cuts)}`,
    );
  }
}

/**
 * The lab's copy of the product's `LhdPolicy` (`src/core/vt/residency/lhd-policy.ts`) with one more part to
 * a page's class: its feedback coverage at its last use ({@link CoverageLhdPolicyOptions}). The
 * product pool does not see coverage (no default policy used it); this copy serves
 * `AdaptivePolicy`, which measured better with it. Keep the rest in step with the product's.
 *
 * LHD, least hit density (Beckmann, Chen & Cidon, "LHD: Improving Cache Hit Rate by Maximizing
 * Hit Density", NSDI 2018), adapted to frames. Each evictable page has an idle age (frames since
 * its last use) and a class; the {@link HitDensityTable} learns, per class and age, how many hits
 * a page still brings per slot-frame it occupies, and the victim is the sampled page with the
 * lowest density. Nothing is fitted to a path: the distributions are learned from the stream.
 *
 * What a class is, in frames: the page's presence in the {@link PATTERN_FRAMES} frames before its
 * last use (feedback jitter and mip boundaries make visible pages flicker in patterns such as
 * two frames in, two out, and the pattern predicts the next return), and whether it has been seen
 * in more than one visit (an absence longer than {@link VISIT_GAP_FRAMES}) since it was loaded,
 * which separates pages that loop back from pages seen once, and whether the page is coarser than
 * mip 0 (a coarse page covers more ground, so it returns after absences a mip-0 page never comes
 * back from: a camera teleporting between places meets the same coarse pages again), and, with
 * {@link CoverageLhdPolicyOptions.coverageCuts}, how many feedback pixels asked for the page at its last
 * use (a page only the fallback of finer ones, or at a pixel of the view's edge, returns otherwise
 * than one covering much of the screen). Ages are frames, so the learned shape (flicker returns
 * within a jitter cycle, loops returning after their period, trails never) follows the stream,
 * whatever its frame rate.
 *
 * What a class cannot say, since it is fixed while the page is idle: whether the view still covers
 * the page's neighbourhood now. A candidate whose parent page (one mip coarser) is in use in the
 * latest frame of use lies next to what the view shows (a sibling, or the same ground a mip
 * coarser, is on screen: a page at the view's edge or at a mip boundary that the motion or the
 * jitter moved by a pixel); one whose parent is idle too has left the view. The first kind comes
 * back more often, by a factor the policy learns ({@link ReturnRateRatio}: the return rates of
 * evicted pages of each kind, through the ghosts) and multiplies such a candidate's density by.
 *
 * Victim choice: {@link LHD_SAMPLE} evictable pages, in groups of consecutive records of a dense
 * candidate array drawn by a seeded generator (every page when there are fewer), the lowest
 * density winning and near ties ({@link LHD_DENSITY_TOLERANCE}) going to the older page (as
 * LRU); the parent's use is looked up (one page-map probe) only for a candidate it could make
 * the winner. That is O(1) per eviction and reads the same few cache lines whatever the pool
 * size; the table is recomputed every {@link LHD_RECONFIGURE_EVICTIONS} evictions, O(classes x
 * age buckets), amortised O(1). Allocates nothing after construction.
 *
 * Measured (`lab/replacement-policies.md`): worst loads / Belady 1.25 on the held-out paths (LRU
 * 1.40; 1.28 without the parent's use), never more loads than LRU there, a third to a half of the
 * way from LRU to Belady where the pool barely holds the view; weaker than the tuned predictor on
 * long loops, since it learns returns only through a ghost list of {@link LHD_GHOSTS_PER_SLOT} x
 * slots.
 */
export class CoverageLhdPolicy implements ReplacementPolicy {
  readonly name = 'lhd';
  /**
   * Per slot, bits 0-15: bit i set when the page was used `i` frames before its last use; bit
   * {@link REVISITED_BIT}: seen in more than one visit; bit {@link COARSE_BIT}: coarser than mip
   * 0; from {@link COVERAGE_SHIFT}: the coverage level at its last use. One array, so one cache
   * line per slot.
   */
  private readonly history: Uint32Array;
  /**
   * Dense array of evictable pages, one record of {@link RECORD} ints each: slot, last use, class
   * (both fixed while the page is idle). A victim choice reads records only, {@link GROUP} per
   * cache line, so its memory traffic does not grow with the pool.
   */
  private readonly candidates: Int32Array;
  /** Record index of each slot in `candidates`, or -1 when not evictable. */
  private readonly candidateIndex: Int32Array;
  private candidateCount = 0;
  private readonly table: HitDensityTable;
  private readonly ghosts: LhdGhosts;
  private evictionsSinceReconfigure = 0;
  /** Frame of the latest victim choice: evictions happen in it, so ages are relative to it. */
  private evictionFrame = 0;
  /** xorshift32 state: a fixed seed, so replays are deterministic. */
  private random = 0x2545f491;
  /** {@link CoverageLhdPolicyOptions.coverageCuts}, unused entries at the largest int (never exceeded). */
  private readonly cut0: number;
  private readonly cut1: number;
  private readonly cut2: number;
  private readonly slots: SlotTableView;
  /** Latest frame in which any page was used, in frames: "in use" means used in it. */
  private latestUse = 0;
  /** Return rate of pages evicted while their parent was in use, over the others'. */
  private readonly parentReturns = new ReturnRateRatio();
  /** Slot of the latest {@link victim} (-1 once removed) and whether its parent was in use. */
  private victimSlot = -1;
  private victimParentInUse = false;

  private readonly feed: CoverageFeed | undefined;

  constructor(slots: SlotTableView, options: CoverageLhdPolicyOptions = {}) {
    this.slots = slots;
    this.feed = options.feed;
    const cuts = options.coverageCuts ?? [];
    checkCoverageCuts(cuts);
    this.cut0 = cuts[0] ?? 0x7fffffff;
    this.cut1 = cuts[1] ?? 0x7fffffff;
    this.cut2 = cuts[2] ?? 0x7fffffff;
    this.table = new HitDensityTable(BASE_CLASSES * (cuts.length + 1));
    const c = slots.slotCount;
    this.history = new Uint32Array(c);
    this.candidates = new Int32Array(RECORD * c);
    this.candidateIndex = new Int32Array(c).fill(-1);
    this.ghosts = new LhdGhosts(Math.max(1, Math.ceil(LHD_GHOSTS_PER_SLOT * c)));
  }

  /** Evicted pages remembered, in pages (at most {@link LHD_GHOSTS_PER_SLOT} x slots). */
  get ghostCount(): number {
    return this.ghosts.size;
  }

  inserted(slot: number, pageId: number, frame: number, coverage = this.feed?.coverage ?? 0): void {
    const ghosts = this.ghosts;
    if (frame > this.latestUse) this.latestUse = frame;
    const back = ghosts.take(pageId);
    if (back) {
      // A page back from eviction: the age at which it would have been a hit.
      const cls = ghosts.takenClass;
      this.parentReturns.returned((cls & PARENT_IN_USE) !== 0);
      this.table.addHit(cls & ~PARENT_IN_USE, frame - ghosts.takenLastUse);
    }
    this.history[slot] =
      (back ? REVISITED_BIT | 1 : 1) | (pageMip(pageId) > 0 ? COARSE_BIT : 0) | this.coverageBits(coverage);
  }

  referenced(slot: number, frame: number, lastUse: number, coverage = this.feed?.coverage ?? 0): void {
    if (frame > this.latestUse) this.latestUse = frame;
    const age = frame - lastUse;
    // A page used in consecutive frames was never a candidate: only real absences are hits.
    if (age > 1) this.table.addHit(this.classOf(slot), age);
    const h = this.history[slot];
    const revisited = age > VISIT_GAP_FRAMES ? REVISITED_BIT : h & REVISITED_BIT;
    const presence = age >= PRESENCE_BITS ? 1 : ((h << age) | 1) & PRESENCE_MASK;
    this.history[slot] = (h & COARSE_BIT) | revisited | presence | this.coverageBits(coverage);
  }

  /** History bits of the coverage level of `coverage` feedback pixels. */
  private coverageBits(coverage: number): number {
    const level =
      (coverage > this.cut0 ? 1 : 0) + (coverage > this.cut1 ? 1 : 0) + (coverage > this.cut2 ? 1 : 0);
    return level << COVERAGE_SHIFT;
  }

  evictable(slot: number, lastUse: number): void {
    if (this.candidateIndex[slot] >= 0) return;
    const i = this.candidateCount++;
    this.candidateIndex[slot] = i;
    const r = RECORD * i;
    this.candidates[r] = slot;
    this.candidates[r + 1] = lastUse;
    this.candidates[r + 2] = this.classOf(slot);
  }

  /** Whether the parent of `pageId` (one mip coarser) is resident and used in the latest frame of use. */
  private parentInUse(pageId: number): boolean {
    if (pageMip(pageId) === MAX_MIP) return false; // no page one mip coarser
    const parent = this.slots.slotOf(parentPageId(pageId));
    return parent >= 0 && this.slots.slotLastUse[parent] === this.latestUse;
  }

  protect(slot: number): void {
    const i = this.candidateIndex[slot];
    if (i < 0) return;
    const last = --this.candidateCount;
    const c = this.candidates;
    if (i !== last) {
      const from = RECORD * last;
      const to = RECORD * i;
      c[to] = c[from];
      c[to + 1] = c[from + 1];
      c[to + 2] = c[from + 2];
      this.candidateIndex[c[to]] = i;
    }
    this.candidateIndex[slot] = -1;
  }

  removed(slot: number, pageId: number, lastUse: number, evicted: boolean): void {
    this.protect(slot);
    const chosen = slot === this.victimSlot;
    this.victimSlot = -1;
    if (!evicted) return;
    // The pool has already taken the slot off the candidates: the victim's record was read when
    // it was chosen; a victim another policy chose (see `AdaptivePolicy`) is looked up.
    const parentInUse = chosen ? this.victimParentInUse : this.parentInUse(pageId);
    this.parentReturns.evicted(parentInUse);
    const cls = this.classOf(slot) | (parentInUse ? PARENT_IN_USE : 0);
    this.remember(pageId, cls, lastUse, this.evictionFrame - lastUse);
    if (++this.evictionsSinceReconfigure >= LHD_RECONFIGURE_EVICTIONS) {
      this.evictionsSinceReconfigure = 0;
      this.table.reconfigure();
      this.parentReturns.update();
    }
  }

  /**
   * Takes over what `previous` (an lhd policy: the pool before a resize) learned: the hit-density
   * table, the ghosts, each survivor's use history; the pages the resize dropped become ghosts,
   * as if this policy had evicted them at `frame`. Another kind of policy leaves this one afresh.
   */
  adopt(
    previous: ReplacementPolicy,
    previousTable: SlotTableView,
    newSlotOf: Int32Array,
    frame: number,
  ): void {
    if (!(previous instanceof CoverageLhdPolicy) || previous.table.classes !== this.table.classes) return;
    this.table.copyFrom(previous.table);
    this.parentReturns.copyFrom(previous.parentReturns);
    this.latestUse = previous.latestUse;
    previous.ghosts.forEachOldestFirst((pageId, cls, lastUse, evictionAge) =>
      this.remember(pageId, cls, lastUse, evictionAge),
    );
    const pages = previousTable.slotPages;
    const lastUse = previousTable.slotLastUse;
    for (let s = 0; s < newSlotOf.length; s++) {
      const to = newSlotOf[s];
      if (to >= 0) this.history[to] = previous.history[s];
      else if (pages[s] !== NO_REQUEST)
        this.remember(pages[s], previous.classOf(s), lastUse[s], frame - lastUse[s]);
    }
    this.evictionFrame = frame;
  }

  /**
   * Remembers an evicted page as a ghost. It counts as an eviction only once forgotten (it may yet
   * come back and count as a hit): the ghost dropped for room is the eviction counted now.
   */
  private remember(pageId: number, cls: number, lastUse: number, evictionAge: number): void {
    const ghosts = this.ghosts;
    ghosts.add(pageId, cls, lastUse, evictionAge);
    const dropped = ghosts.droppedClass;
    if (dropped >= 0) this.table.addEviction(dropped & ~PARENT_IN_USE, ghosts.droppedAge);
  }

  /**
   * Records that an eviction happens at `frame` (frames) though another policy chose the victim
   * (see `AdaptivePolicy`), so the evicted page's ghost gets its true idle age.
   */
  evictingAt(frame: number): void {
    this.evictionFrame = frame;
    this.victimSlot = -1;
  }

  victim(frame: number): number {
    this.evictionFrame = frame;
    const n = this.candidateCount;
    if (n === 0) return -1;
    const c = this.candidates;
    const table = this.table;
    const parentRatio = this.parentReturns.ratio;
    // Every record when few, else LHD_SAMPLE / GROUP random groups of GROUP consecutive records.
    const sampled = n > LHD_SAMPLE;
    const groups = sampled ? LHD_SAMPLE / GROUP : 1;
    const groupCount = Math.ceil(n / GROUP);
    let x = this.random;
    let best = -1;
    let bestParentInUse = false;
    let bestDensity = Number.POSITIVE_INFINITY;
    let bestAge = -1;
    for (let g = 0; g < groups; g++) {
      let start = 0;
      let end = n;
      if (sampled) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        start = ((x >>> 1) % groupCount) * GROUP;
        end = Math.min(n, start + GROUP);
      }
      for (let i = start; i < end; i++) {
        const r = RECORD * i;
        const age = frame - c[r + 1];
        let d = table.densityOf(c[r + 2], age);
        let better = this.beats(d, age, bestDensity, bestAge);
        // The parent's use scales the density by the ratio; looked up only where it can change
        // the choice (a ratio above 1 can only make a loser lose more), a few per eviction.
        let parentInUse = false;
        if (better || parentRatio < 1) {
          parentInUse = this.parentInUse(this.slots.slotPages[c[r]]);
          if (parentInUse) {
            d *= parentRatio;
            better = this.beats(d, age, bestDensity, bestAge);
          }
        }
        if (better) {
          best = c[r];
          bestParentInUse = parentInUse;
          bestDensity = d;
          bestAge = age;
        }
      }
    }
    this.random = x;
    this.victimSlot = best;
    this.victimParentInUse = bestParentInUse;
    return best;
  }

  /**
   * Whether a candidate of density `d` idle `age` frames beats the best so far: within the
   * tolerance the older page goes, as LRU would choose.
   */
  private beats(d: number, age: number, bestDensity: number, bestAge: number): boolean {
    return age > bestAge ? d <= bestDensity * LHD_DENSITY_TOLERANCE : d * LHD_DENSITY_TOLERANCE < bestDensity;
  }

  /** Class of `slot`'s page from its use history up to its last use. */
  private classOf(slot: number): number {
    const h = this.history[slot];
    const pattern = (h >>> 1) & (REVISITED - 1);
    const revisited = (h & REVISITED_BIT) !== 0 ? REVISITED : 0;
    const level = h >>> COVERAGE_SHIFT;
    return pattern | revisited | ((h & COARSE_BIT) !== 0 ? COARSE : 0) | (level * BASE_CLASSES);
  }
}
