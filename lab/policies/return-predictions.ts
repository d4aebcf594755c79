import { IndexedMaxHeap, IndexedMinHeap } from '../../src/core/structures/indexed-heap';
import { PREDICTION_EXPIRY_GAPS } from './eviction-tuning';

/**
 * Predicted returns of departed pages, per pool slot, in frames: the slot due back last is the
 * best victim (Belady). A max-heap by predicted return and a min-heap by last use (to expire
 * predictions of pages gone for far longer than the typical gap); O(log n), no allocation.
 */
export class ReturnPredictions {
  private readonly byReturn: IndexedMaxHeap;
  private readonly byLastUse: IndexedMinHeap;

  constructor(slotCount: number) {
    this.byReturn = new IndexedMaxHeap(slotCount);
    this.byLastUse = new IndexedMinHeap(slotCount);
  }

  /** True when `slot` has a predicted return. */
  has(slot: number): boolean {
    return this.byReturn.has(slot);
  }

  /** Predicts that the page in `slot`, last used at frame `lastUse`, is back at frame `returnFrame`. */
  predict(slot: number, lastUse: number, returnFrame: number): void {
    this.byReturn.set(slot, returnFrame);
    this.byLastUse.set(slot, lastUse);
  }

  /** Drops `slot`'s predicted return, if any. */
  drop(slot: number): void {
    this.byReturn.delete(slot);
    this.byLastUse.delete(slot);
  }

  /**
   * Drops, at `frame`, the predictions of pages idle for more than {@link PREDICTION_EXPIRY_GAPS}
   * times `typicalGap` frames (not coming back on any rhythm seen so far), then the overdue ones
   * while every prediction is overdue (until then they stay: the page may be back any moment).
   */
  expire(frame: number, typicalGap: number): void {
    const byReturn = this.byReturn;
    const byLastUse = this.byLastUse;
    const expired = frame - PREDICTION_EXPIRY_GAPS * typicalGap;
    while (byLastUse.size > 0 && byLastUse.peekKey() < expired) byReturn.delete(byLastUse.pop());
    while (byReturn.size > 0 && byReturn.key(byReturn.peek()) <= frame) byLastUse.delete(byReturn.pop());
  }

  /** Slot predicted back last, or -1 when none. */
  latest(): number {
    return this.byReturn.peek();
  }

  /** Predicted return frame of `slot` (which must have one). */
  returnFrame(slot: number): number {
    return this.byReturn.key(slot);
  }
}
