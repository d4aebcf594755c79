import type { TesseraError } from '../errors';

/** A {@link TextureBudget.reserveWhenRoom} request waiting for room. */
export interface PendingBudgetRequest {
  /** Category index (see `budgetCategoryIndex`). */
  category: number;
  bytes: number;
  tag: number;
  priority: number;
  resolve: (handle: number) => void;
  reject: (error: TesseraError) => void;
}

/**
 * The FIFO of waiting budget requests: an array read from a head index (no `shift()` per
 * admission), emptied once every request has left.
 */
export class BudgetRequestQueue {
  private readonly requests: PendingBudgetRequest[] = [];
  private head = 0;

  /** Requests waiting. */
  get size(): number {
    return this.requests.length - this.head;
  }

  /** The oldest waiting request, or undefined. */
  peek(): PendingBudgetRequest | undefined {
    return this.head < this.requests.length ? this.requests[this.head] : undefined;
  }

  /** Adds `request` at the back. */
  push(request: PendingBudgetRequest): void {
    this.requests.push(request);
  }

  /** Removes the oldest request (after {@link peek} returned it). */
  shift(): void {
    this.head++;
  }

  /** Forgets the array's consumed front once nothing waits, so it does not grow forever. */
  compact(): void {
    if (this.head === this.requests.length && this.head > 0) {
      this.requests.length = 0;
      this.head = 0;
    }
  }

  /** Removes `request` if it is still waiting; false when it already left. */
  remove(request: PendingBudgetRequest): boolean {
    const at = this.requests.indexOf(request, this.head);
    if (at < 0) return false;
    this.requests.splice(at, 1);
    return true;
  }

  /** Removes every waiting request of more than `bytes` bytes, newest first, calling `removed` on each. */
  removeLargerThan(bytes: number, removed: (request: PendingBudgetRequest) => void): void {
    for (let i = this.requests.length - 1; i >= this.head; i--) {
      const request = this.requests[i];
      if (request.bytes <= bytes) continue;
      this.requests.splice(i, 1);
      removed(request);
    }
  }

  /** Bytes of every waiting request. */
  pendingBytes(): number {
    let bytes = 0;
    for (let i = this.head; i < this.requests.length; i++) bytes += this.requests[i].bytes;
    return bytes;
  }
}
