import { FEEDBACK_JITTER_PERIOD } from '../feedback/feedback-jitter';
import { MAX_MIP, NO_REQUEST, pageMip, parentPageId } from '../page-id';
import { HitDensityTable } from './hit-density-table';
import { LhdGhosts } from './lhd-ghosts';
import type { ReplacementPolicy, SlotTableView } from './replacement-policy';
import { ReturnRateRatio } from './return-rate-ratio';

/**
 * An absence longer than this ends a visit, in frames: one feedback jitter cycle. Within a cycle
 * the rotating feedback offset covers every screen pixel once, so a page still in view is seen
 * again within it; a longer absence means the view left the page and came back.
 */
export const VISIT_GAP_FRAMES = FEEDBACK_JITTER_PERIOD;

/**
 * Evictable pages compared per eviction (LHD's "associativity"), all of them when fewer: a count.
 * Chosen on the lab's tuning paths (lab/replacement-policies.md).
 */
export const LHD_SAMPLE = 32;

/**
 * Densities within this factor of each other count as equal, and the page idle longer goes (the
 * LRU choice): a density is an estimate from a few hundred decayed events, so a small difference
 * says little. Unitless; chosen on the lab's tuning paths (lab/replacement-policies.md).
 */
export const LHD_DENSITY_TOLERANCE = 1.2;

/** Evictions between two reconfigurations of the hit-density table (amortises its cost): a count. */
export const LHD_RECONFIGURE_EVICTIONS = 256;

/**
 * Evicted pages remembered (see {@link LhdGhosts}), as a fraction of the slot count: fewer forget
 * a loop before it comes back. Chosen on the lab's tuning paths (lab/replacement-policies.md).
 */
export const LHD_GHOSTS_PER_SLOT = 0.5;

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
/** Classes: every presence pattern, once or revisited, mip 0 or coarser. */
const CLASSES = 2 * COARSE;
/** Tag on a ghost's class: the page was evicted while its parent page was in use. */
const PARENT_IN_USE = 0x8000;

/**
 * LHD, least hit density (Beckmann, Chen & Cidon, "LHD: Improving Cache Hit Rate by Maximizing
 * Hit Density", NSDI 2018), adapted to frames. Each evictable page has an idle age (frames since
 * its last use) and a class; the `HitDensityTable` learns, per class and age, how many hits
 * a page still brings per slot-frame it occupies, and the victim is the sampled page with the
 * lowest density. Nothing is fitted to a path: the distributions are learned from the stream.
 *
 * What a class is, in frames: the page's presence in the `PATTERN_FRAMES` frames before its
 * last use (feedback jitter and mip boundaries make visible pages flicker in patterns such as
 * two frames in, two out, and the pattern predicts the next return), and whether it has been seen
 * in more than one visit (an absence longer than `VISIT_GAP_FRAMES`) since it was loaded,
 * which separates pages that loop back from pages seen once, and whether the page is coarser than
 * mip 0 (a coarse page covers more ground, so it returns after absences a mip-0 page never comes
 * back from: a camera teleporting between places meets the same coarse pages again). Ages are
 * frames, so the learned shape (flicker returns within a jitter cycle, loops returning after their
 * period, trails never) follows the stream, whatever its frame rate.
 *
 * What a class cannot say, since it is fixed while the page is idle: whether the view still covers
 * the page's neighbourhood now. A candidate whose parent page (one mip coarser) is in use in the
 * latest frame of use lies next to what the view shows (a sibling, or the same ground a mip
 * coarser, is on screen: a page at the view's edge or at a mip boundary that the motion or the
 * jitter moved by a pixel); one whose parent is idle too has left the view. The first kind comes
 * back more often, by a factor the policy learns (`ReturnRateRatio`: the return rates of
 * evicted pages of each kind, through the ghosts) and multiplies such a candidate's density by.
 *
 * Victim choice: `LHD_SAMPLE` evictable pages, in groups of consecutive records of a dense
 * candidate array drawn by a seeded generator (every page when there are fewer), the lowest
 * density winning and near ties (`LHD_DENSITY_TOLERANCE`) going to the older page (as
 * LRU); the parent's use is looked up (one page-map probe) only for a candidate it could make
 * the winner. That is O(1) per eviction and reads the same few cache lines whatever the pool
 * size; the table is recomputed every `LHD_RECONFIGURE_EVICTIONS` evictions, O(classes x
 * age buckets), amortised O(1). Allocates nothing after construction.
 *
 * Measured (`lab/replacement-policies.md`): worst loads / Belady 1.25 on the held-out paths (LRU
 * 1.40; 1.28 without the parent's use), never more loads than LRU there, a third to a half of the
 * way from LRU to Belady where the pool barely holds the view; weaker than the tuned predictor on
 * long loops, since it learns returns only through a ghost list of `LHD_GHOSTS_PER_SLOT` x
 * slots.
 */
export class LhdPolicy implements ReplacementPolicy {
  /** {@inheritDoc ReplacementPolicy.name} */
  readonly name = 'lhd';
  /**
   * Per slot, bits 0-15: bit i set when the page was used `i` frames before its last use; bit
   * {@link REVISITED_BIT}: seen in more than one visit; bit {@link COARSE_BIT}: coarser than mip
   * 0. One array, so one cache line per slot.
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
  private readonly slots: SlotTableView;
  /** Latest frame in which any page was used, in frames: "in use" means used in it. */
  private latestUse = 0;
  /** Return rate of pages evicted while their parent was in use, over the others'. */
  private readonly parentReturns = new ReturnRateRatio();
  /** Slot of the latest {@link victim} (-1 once removed) and whether its parent was in use. */
  private victimSlot = -1;
  private victimParentInUse = false;

  constructor(slots: SlotTableView) {
    this.slots = slots;
    this.table = new HitDensityTable(CLASSES);
    const c = slots.slotCount;
    this.history = new Uint32Array(c);
    this.candidates = new Int32Array(RECORD * c);
    this.candidateIndex = new Int32Array(c).fill(-1);
    this.ghosts = new LhdGhosts(Math.max(1, Math.ceil(LHD_GHOSTS_PER_SLOT * c)));
  }

  /** Evicted pages remembered, in pages (at most `LHD_GHOSTS_PER_SLOT` x slots). */
  get ghostCount(): number {
    return this.ghosts.size;
  }

  /** {@inheritDoc ReplacementPolicy.inserted} */
  inserted(slot: number, pageId: number, frame: number): void {
    const ghosts = this.ghosts;
    if (frame > this.latestUse) this.latestUse = frame;
    const back = ghosts.take(pageId);
    if (back) {
      // A page back from eviction: the age at which it would have been a hit.
      const cls = ghosts.takenClass;
      this.parentReturns.returned((cls & PARENT_IN_USE) !== 0);
      this.table.addHit(cls & ~PARENT_IN_USE, frame - ghosts.takenLastUse);
    }
    this.history[slot] = (back ? REVISITED_BIT | 1 : 1) | (pageMip(pageId) > 0 ? COARSE_BIT : 0);
  }

  /** {@inheritDoc ReplacementPolicy.referenced} */
  referenced(slot: number, frame: number, lastUse: number): void {
    if (frame > this.latestUse) this.latestUse = frame;
    const age = frame - lastUse;
    // A page used in consecutive frames was never a candidate: only real absences are hits.
    if (age > 1) this.table.addHit(this.classOf(slot), age);
    const h = this.history[slot];
    const revisited = age > VISIT_GAP_FRAMES ? REVISITED_BIT : h & REVISITED_BIT;
    const presence = age >= PRESENCE_BITS ? 1 : ((h << age) | 1) & PRESENCE_MASK;
    this.history[slot] = (h & COARSE_BIT) | revisited | presence;
  }

  /** {@inheritDoc ReplacementPolicy.evictable} */
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

  /** {@inheritDoc ReplacementPolicy.protect} */
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

  /** {@inheritDoc ReplacementPolicy.removed} */
  removed(slot: number, pageId: number, lastUse: number, evicted: boolean): void {
    this.protect(slot);
    const chosen = slot === this.victimSlot;
    this.victimSlot = -1;
    if (!evicted) return;
    // The pool has already taken the slot off the candidates: the victim's record was read when
    // it was chosen; a victim chosen otherwise (a custom policy wrapping this one) is looked up.
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
    if (!(previous instanceof LhdPolicy)) return;
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
      else if (pages[s] !== NO_REQUEST) {
        this.remember(pages[s], previous.classOf(s), lastUse[s], frame - lastUse[s]);
      }
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

  /** {@inheritDoc ReplacementPolicy.victim} */
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
    return pattern | revisited | ((h & COARSE_BIT) !== 0 ? COARSE : 0);
  }
}
