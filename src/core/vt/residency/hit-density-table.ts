import { FEEDBACK_JITTER_PERIOD } from '../feedback/feedback-jitter';

/**
 * Idle ages below this many frames (two jitter cycles) have one histogram bucket each: the short
 * absences of feedback flicker, where the chance of a return changes frame by frame.
 */
const FINE_AGES = 2 * FEEDBACK_JITTER_PERIOD;
/** Frames per bucket beyond {@link FINE_AGES}: half a jitter cycle. */
const COARSE_STEP = FEEDBACK_JITTER_PERIOD / 2;
/**
 * Buckets per class. Ages from the last bucket on (32 + 127 x 8 = 1,048 frames, 17 s at 60 Hz)
 * share it: a page idle that long counts as never coming back.
 */
export const AGE_BUCKETS = FINE_AGES + 128;
/** Weight kept by old events at each reconfiguration, as in LHD (0.9): a slowly fading memory. */
export const LHD_DECAY = 0.9;

/** Histogram bucket of an idle age, in frames (age >= 0). */
export function ageBucket(age: number): number {
  if (age < FINE_AGES) return age;
  const b = FINE_AGES + Math.floor((age - FINE_AGES) / COARSE_STEP);
  return b < AGE_BUCKETS ? b : AGE_BUCKETS - 1;
}

/** Representative age of a bucket, in frames (its middle). */
function bucketAge(bucket: number): number {
  return bucket < FINE_AGES ? bucket : FINE_AGES + (bucket - FINE_AGES) * COARSE_STEP + COARSE_STEP / 2;
}

/**
 * Hit densities of LHD (Beckmann, Chen & Cidon, "LHD: Improving Cache Hit Rate by Maximizing Hit
 * Density", NSDI 2018), per class and idle age in frames. For a page of class `c` idle for `a`
 * frames, the hit density is the expected number of hits it still brings divided by the expected
 * slot-frames it still occupies, both learned online from the ages at which pages of that class
 * came back (hits) or were evicted:
 *
 *   density(c, a) = sum_{x > a} hits(c, x) / sum_{x > a} (hits(c, x) + evictions(c, x)) * (x - a)
 *
 * Histograms are typed arrays; {@link reconfigure} recomputes every density in
 * O(classes * buckets) and fades old events, so the table follows a changing view. Nothing here is
 * tuned to a path: the only constants are the histogram resolution and LHD's decay.
 */
export class HitDensityTable {
  /** Number of classes. */
  readonly classes: number;
  private readonly hits: Float64Array;
  private readonly evictions: Float64Array;
  private readonly density: Float64Array;

  constructor(classes: number) {
    this.classes = classes;
    this.hits = new Float64Array(classes * AGE_BUCKETS);
    this.evictions = new Float64Array(classes * AGE_BUCKETS);
    this.density = new Float64Array(classes * AGE_BUCKETS);
  }

  /** Copies every histogram and density of `other` (a table with the same class count). */
  copyFrom(other: HitDensityTable): void {
    this.hits.set(other.hits);
    this.evictions.set(other.evictions);
    this.density.set(other.density);
  }

  /** A page of class `cls` came back after being idle `age` frames. */
  addHit(cls: number, age: number): void {
    this.hits[cls * AGE_BUCKETS + ageBucket(age)]++;
  }

  /** A page of class `cls` was evicted after being idle `age` frames. */
  addEviction(cls: number, age: number): void {
    this.evictions[cls * AGE_BUCKETS + ageBucket(age)]++;
  }

  /** Hit density of a page of class `cls` idle for `age` frames (hits per slot-frame, >= 0). */
  densityOf(cls: number, age: number): number {
    return this.density[cls * AGE_BUCKETS + ageBucket(age)];
  }

  /** Recomputes every density from the histograms, then fades the histograms by LHD's decay. */
  reconfigure(): void {
    const hits = this.hits;
    const evictions = this.evictions;
    const density = this.density;
    for (let c = 0; c < this.classes; c++) {
      const base = c * AGE_BUCKETS;
      // Backwards over ages: running sums of hits, of events, and of events weighted by age, so
      // that sum (x - a) * events(x) = weighted - a * events.
      let hitsAbove = 0;
      let eventsAbove = 0;
      let weightedAbove = 0;
      for (let b = AGE_BUCKETS - 1; b >= 0; b--) {
        const a = bucketAge(b);
        const lifetime = weightedAbove - a * eventsAbove;
        density[base + b] = lifetime > 0 ? hitsAbove / lifetime : 0;
        const h = hits[base + b];
        const e = h + evictions[base + b];
        hitsAbove += h;
        eventsAbove += e;
        weightedAbove += e * a;
        hits[base + b] = h * LHD_DECAY;
        evictions[base + b] *= LHD_DECAY;
      }
    }
  }
}
