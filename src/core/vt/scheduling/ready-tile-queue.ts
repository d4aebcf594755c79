import { TesseraConfigError } from '../../errors';
import { IndexedMinHeap } from '../../structures/indexed-heap';
import { PRIORITY_CLASS_WEIGHT } from './request-priority';

/** The order loaded tiles are uploaded in. */
export type UploadOrder =
  /** By the request's current priority, pages the latest feedback wants first (the default). */
  | 'priority'
  /** In the order loads completed, ignoring priority and demand: the baseline benchmarks compare with. */
  | 'arrival';

/** How much the view still wants a loaded tile's page, from the feedback buffers since its request. */
export const UploadDemand = {
  /** Not requested by either of the latest two feedback buffers: the page left the view. */
  Unwanted: 0,
  /** Requested by the feedback before the latest only (a page a jittered feedback can miss). */
  Recent: 1,
  /** Requested by the latest feedback, or since it (pinned pages are requested every frame). */
  Now: 2,
} as const;
/** One of the {@link UploadDemand} values. */
export type UploadDemand = (typeof UploadDemand)[keyof typeof UploadDemand];

/**
 * Loaded tiles waiting for upload, as scheduler record ids, best first: demand class
 * ({@link UploadDemand}) >> the request's priority (fallback distance >> coverage >> age, see
 * `requestPriority`). One indexed heap, no sort: a request re-keys its record at once
 * (O(log n)); a feedback that passes a record by lowers its demand, which the heap learns lazily
 * when the record reaches the top (re-keyed down, at most twice per request), so the top is always
 * exact. Allocation-free.
 */
export class ReadyTileQueue {
  /** The order this queue keeps. */
  readonly order: UploadOrder;
  /**
   * Keyed by the negated upload key (best = smallest): a min-heap used directly, one call level
   * less than the max-heap wrapper, so the hot calls stay inlined and pass keys unboxed.
   */
  private readonly heap: IndexedMinHeap;
  /** Request priority of each record (without the demand class). */
  private readonly priority: Float64Array;
  /** Demand class each record's heap key was computed with. */
  private readonly keyedDemand: Uint8Array;
  /** Completions so far: the arrival order's key. */
  private arrivals = 0;

  /**
   * @param capacity records (ids 0 .. capacity - 1)
   * @param requestedAtFeedback feedback count at each record's latest request (the scheduler's array)
   */
  constructor(
    capacity: number,
    private readonly requestedAtFeedback: Int32Array,
    order: UploadOrder = 'priority',
  ) {
    if (order !== 'priority' && order !== 'arrival') {
      throw new TesseraConfigError(
        'invalid-option',
        `uploadOrder must be 'priority' or 'arrival', got '${order}'`,
      );
    }
    this.order = order;
    this.heap = new IndexedMinHeap(capacity);
    this.priority = new Float64Array(capacity);
    this.keyedDemand = new Uint8Array(capacity);
  }

  /** Tiles waiting. */
  get size(): number {
    return this.heap.size;
  }

  /** True when record `r` waits here. */
  has(r: number): boolean {
    return this.heap.has(r);
  }

  /** Adds record `r` (just loaded) with request priority `priority`. */
  add(r: number, priority: number, feedbacks: number): void {
    this.priority[r] = priority;
    if (this.order === 'arrival') this.heap.set(r, this.arrivals++);
    else {
      this.setKey(r, this.demandOf(r, feedbacks));
    }
  }

  /** Record `r`, waiting here, was requested again with `priority`: re-keys it. */
  rekey(r: number, priority: number, feedbacks: number): void {
    this.priority[r] = priority;
    if (this.order === 'priority' && this.heap.has(r)) this.setKey(r, this.demandOf(r, feedbacks));
  }

  /** The best tile to upload now (a record id), or -1; `feedbacks`: feedback buffers analysed so far. */
  peek(feedbacks: number): number {
    const heap = this.heap;
    if (this.order === 'arrival') return heap.peek();
    for (;;) {
      const r = heap.peek();
      if (r < 0) return -1;
      const demand = this.demandOf(r, feedbacks);
      if (demand === this.keyedDemand[r]) return r;
      this.setKey(r, demand); // its demand fell since it was keyed: sink it, look again
    }
  }

  /** Demand for record `r`'s page after `feedbacks` feedback buffers (always `Now` in arrival order). */
  demandOf(r: number, feedbacks: number): UploadDemand {
    if (this.order === 'arrival') return UploadDemand.Now;
    const since = feedbacks - this.requestedAtFeedback[r];
    return since <= 0 ? UploadDemand.Now : since === 1 ? UploadDemand.Recent : UploadDemand.Unwanted;
  }

  /** Removes record `r` if it waits here. */
  delete(r: number): void {
    this.heap.delete(r);
  }

  private setKey(r: number, demand: UploadDemand): void {
    this.keyedDemand[r] = demand;
    this.heap.set(r, -(demand * PRIORITY_CLASS_WEIGHT + this.priority[r]));
  }
}
