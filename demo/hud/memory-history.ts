/**
 * The memory timeline's data: a ring of samples (time, budget, naive-order estimate and the bytes of
 * each stacked series), preallocated, so sampling allocates nothing and the plot reads the last
 * `capacity` samples oldest first.
 */

/** A ring buffer of memory samples with a fixed number of series. */
export class MemoryHistory {
  /** Sample times, seconds. */
  private readonly times: Float64Array;
  private readonly budgets: Float64Array;
  /** The naive order's estimate at each sample, NaN outside transitions. */
  private readonly naive: Float64Array;
  /** `capacity` rows of `seriesCount` byte figures. */
  private readonly values: Float64Array;
  private next = 0;
  private size = 0;

  /**
   * @param capacity samples kept (the oldest is overwritten).
   * @param seriesCount stacked series per sample.
   */
  constructor(
    readonly capacity: number,
    readonly seriesCount: number,
  ) {
    if (!(Number.isInteger(capacity) && capacity > 0 && Number.isInteger(seriesCount) && seriesCount > 0))
      throw new RangeError(`MemoryHistory needs positive integer sizes, got ${capacity} x ${seriesCount}`);
    this.times = new Float64Array(capacity);
    this.budgets = new Float64Array(capacity);
    this.naive = new Float64Array(capacity);
    this.values = new Float64Array(capacity * seriesCount);
  }

  /** Samples held (at most {@link capacity}). */
  get count(): number {
    return this.size;
  }

  /**
   * Appends a sample and returns the row to fill with its `seriesCount` byte figures (a view into
   * the ring: write it before the next push). `naiveBytes` is NaN outside a transition.
   */
  push(timeSeconds: number, budgetBytes: number, naiveBytes: number): Float64Array {
    const row = this.next;
    this.times[row] = timeSeconds;
    this.budgets[row] = budgetBytes;
    this.naive[row] = naiveBytes;
    this.next = (row + 1) % this.capacity;
    this.size = Math.min(this.capacity, this.size + 1);
    const values = this.values.subarray(row * this.seriesCount, (row + 1) * this.seriesCount);
    values.fill(0);
    return values;
  }

  /** Ring row of the `i`-th sample held, oldest first (0 <= i < count). */
  private rowOf(i: number): number {
    return (this.next - this.size + i + this.capacity) % this.capacity;
  }

  /** Time of sample `i` (oldest first), seconds. */
  timeAt(i: number): number {
    return this.times[this.rowOf(i)];
  }

  /** Budget at sample `i`, bytes. */
  budgetAt(i: number): number {
    return this.budgets[this.rowOf(i)];
  }

  /** Naive-order estimate at sample `i`, bytes (NaN outside transitions). */
  naiveAt(i: number): number {
    return this.naive[this.rowOf(i)];
  }

  /** Bytes of `series` at sample `i`. */
  valueAt(i: number, series: number): number {
    return this.values[this.rowOf(i) * this.seriesCount + series];
  }

  /** Sum of series `0..series` at sample `i` (the top of that series' stacked band), bytes. */
  stackedAt(i: number, series: number): number {
    const base = this.rowOf(i) * this.seriesCount;
    let sum = 0;
    for (let s = 0; s <= series; s++) sum += this.values[base + s];
    return sum;
  }

  /** Largest figure to plot over the samples held (budget, naive estimate or stacked total), bytes. */
  maxBytes(): number {
    let max = 0;
    for (let i = 0; i < this.size; i++) {
      max = Math.max(max, this.budgetAt(i), this.stackedAt(i, this.seriesCount - 1));
      const naive = this.naiveAt(i);
      if (naive > max) max = naive;
    }
    return max;
  }
}
