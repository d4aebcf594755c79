import { VISIT_GAP_FRAMES } from './arc-policy';
import { FEEDBACK_JITTER_PERIOD } from './feedback-jitter';
import { HitDensityTable } from './hit-density-table';
import { LhdGhosts } from './lhd-ghosts';
import type { ReplacementPolicy, SlotTableView } from './replacement-policy';

/**
 * Evictable pages compared per eviction (LHD's "associativity"), all of them when fewer: a count.
 * 32 and 64 did equally well on the tuning paths (`src/sim/tuning-paths.ts`); 32 costs half.
 */
export const LHD_SAMPLE = 32;

/** Evictions between two reconfigurations of the hit-density table (amortises its cost): a count. */
export const LHD_RECONFIGURE_EVICTIONS = 256;

/**
 * Evicted pages remembered (see {@link LhdGhosts}), as a fraction of the slot count. Chosen on the
 * tuning paths (0.25, 0.5, 1 and 2 tried; 0.5 best, 0.25 forgets loops too soon).
 */
export const LHD_GHOSTS_PER_SLOT = 0.5;

/**
 * Frames of use history before a page's last use that choose its class (bits of presence): a
 * quarter of the jitter cycle, the period of the 2x2 sub-pattern of the Bayer offset order, so a
 * page on a feedback-pixel boundary shows the same pattern in every quarter.
 */
const PATTERN_FRAMES = FEEDBACK_JITTER_PERIOD / 4;
/** Class bit of a page seen in more than one visit since it was loaded. */
const REVISITED = 1 << PATTERN_FRAMES;
/** Number of classes: every presence pattern, once or revisited. */
const CLASSES = 2 * REVISITED;

/**
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
 * which separates pages that loop back from pages seen once. Ages are frames, so the learned
 * shape (flicker returns within a jitter cycle, loops returning after their period, trails never)
 * follows the stream, whatever its frame rate.
 *
 * Victim choice: {@link LHD_SAMPLE} evictable pages drawn by a seeded generator (every one when
 * there are fewer), ties broken by age (older first, as LRU), so it costs O(1) per eviction
 * whatever the pool size; the table is recomputed every {@link LHD_RECONFIGURE_EVICTIONS}
 * evictions, O(classes x age buckets), amortised O(1). Allocates nothing after construction.
 */
export class LhdPolicy implements ReplacementPolicy {
  readonly name = 'lhd';
  private readonly lastUse: Int32Array;
  /** Bit i: the page was used `i` frames before its last use. */
  private readonly presence: Uint32Array;
  private readonly revisited: Uint8Array;
  /** Dense array of evictable slots, and each slot's index in it (-1 when not evictable). */
  private readonly candidates: Int32Array;
  private readonly candidateIndex: Int32Array;
  private candidateCount = 0;
  private readonly table = new HitDensityTable(CLASSES);
  private readonly ghosts: LhdGhosts;
  private evictionsSinceReconfigure = 0;
  /** Frame of the latest victim choice: evictions happen in it, so ages are relative to it. */
  private evictionFrame = 0;
  /** xorshift32 state: a fixed seed, so replays are deterministic. */
  private random = 0x2545f491;

  constructor(slots: SlotTableView) {
    const c = slots.slotCount;
    this.lastUse = slots.slotLastUse;
    this.presence = new Uint32Array(c);
    this.revisited = new Uint8Array(c);
    this.candidates = new Int32Array(c);
    this.candidateIndex = new Int32Array(c).fill(-1);
    this.ghosts = new LhdGhosts(Math.max(1, Math.ceil(LHD_GHOSTS_PER_SLOT * c)));
  }

  /** Evicted pages remembered, in pages (at most {@link LHD_GHOSTS_PER_SLOT} x slots). */
  get ghostCount(): number {
    return this.ghosts.size;
  }

  inserted(slot: number, pageId: number, frame: number): void {
    this.presence[slot] = 1;
    const ghosts = this.ghosts;
    const back = ghosts.take(pageId);
    // A page back from eviction: the age at which it would have been a hit.
    if (back) this.table.addHit(ghosts.takenClass, frame - ghosts.takenLastUse);
    this.revisited[slot] = back ? 1 : 0;
  }

  referenced(slot: number, frame: number, lastUse: number): void {
    const age = frame - lastUse;
    // A page used in consecutive frames was never a candidate: only real absences are hits.
    if (age > 1) this.table.addHit(this.classOf(slot), age);
    if (age > VISIT_GAP_FRAMES) this.revisited[slot] = 1;
    this.presence[slot] = age >= 32 ? 1 : ((this.presence[slot] << age) | 1) >>> 0;
  }

  evictable(slot: number): void {
    if (this.candidateIndex[slot] >= 0) return;
    this.candidateIndex[slot] = this.candidateCount;
    this.candidates[this.candidateCount++] = slot;
  }

  protect(slot: number): void {
    const i = this.candidateIndex[slot];
    if (i < 0) return;
    const last = this.candidates[--this.candidateCount];
    this.candidates[i] = last;
    this.candidateIndex[last] = i;
    this.candidateIndex[slot] = -1;
  }

  removed(slot: number, pageId: number, lastUse: number, evicted: boolean): void {
    this.protect(slot);
    if (!evicted) return;
    // Counted as an eviction only once forgotten: it may yet come back and count as a hit.
    const ghosts = this.ghosts;
    ghosts.add(pageId, this.classOf(slot), lastUse, this.evictionFrame - lastUse);
    if (ghosts.droppedClass >= 0) this.table.addEviction(ghosts.droppedClass, ghosts.droppedAge);
    if (++this.evictionsSinceReconfigure >= LHD_RECONFIGURE_EVICTIONS) {
      this.evictionsSinceReconfigure = 0;
      this.table.reconfigure();
    }
  }

  victim(frame: number): number {
    this.evictionFrame = frame;
    const n = this.candidateCount;
    if (n === 0) return -1;
    const candidates = this.candidates;
    const lastUse = this.lastUse;
    const presence = this.presence;
    const revisited = this.revisited;
    const table = this.table;
    const sampled = n > LHD_SAMPLE;
    const draws = sampled ? LHD_SAMPLE : n;
    let x = this.random;
    let best = -1;
    let bestDensity = Number.POSITIVE_INFINITY;
    let bestAge = -1;
    for (let k = 0; k < draws; k++) {
      let i = k;
      if (sampled) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        i = (x >>> 1) % n;
      }
      const s = candidates[i];
      const age = frame - lastUse[s];
      const pattern = (presence[s] >>> 1) & (REVISITED - 1);
      const d = table.densityOf(revisited[s] === 1 ? pattern | REVISITED : pattern, age);
      if (d < bestDensity || (d === bestDensity && age > bestAge)) {
        best = s;
        bestDensity = d;
        bestAge = age;
      }
    }
    this.random = x;
    return best;
  }

  /** Class of `slot`'s page from its use history up to its last use. */
  private classOf(slot: number): number {
    const pattern = (this.presence[slot] >>> 1) & (REVISITED - 1);
    return this.revisited[slot] ? pattern | REVISITED : pattern;
  }
}
