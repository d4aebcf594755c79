import type { BudgetCategory } from './budget-category';
import type { TagRegistry } from './tag-registry';

/** Something that can give memory back on request (a mip streamer, a cache). */
export interface BudgetShedder {
  /** Priority of the data this shedder frees: it is only asked by requests of strictly higher priority. */
  readonly priority: number;
  /**
   * Release about `bytes` bytes of reservations now (by calling {@link TextureBudget.release} or
   * `resize`), least important data first. Freeing less is allowed; the budget re-reads its total.
   */
  shed(bytes: number): void;
}

/** Options of a {@link TextureBudget}. */
export interface TextureBudgetOptions {
  /** The budget in bytes covering every category. */
  budgetBytes: number;
  /** Bytes that must always fit (pinned mips, VT structures); a smaller budget is refused. Default 0. */
  pinnedMinimumBytes?: number;
  /** Bytes shed per frame at least while a lowered budget is being reached. Default budget / 16. */
  shedBytesPerFrame?: number;
  /** A lowered budget is reached within this many {@link TextureBudget.update} frames. Default 8. */
  maxShedFrames?: number;
  /** Shared tag interning (so textures and reservations use the same tag ids). */
  tags?: TagRegistry;
}

/** A snapshot of budget use, all figures in bytes. */
export interface TextureBudgetStats {
  /** The budget itself, in bytes. */
  budgetBytes: number;
  /** Bytes currently reserved. */
  liveBytes: number;
  /** Highest `liveBytes` seen since construction or {@link TextureBudget.resetPeak}. */
  peakBytes: number;
  /** Bytes of reservations made with pinned priority (never shed). */
  pinnedBytes: number;
  /** Requests waiting in {@link TextureBudget.reserveWhenRoom}'s queue and their bytes. */
  pendingRequests: number;
  /** Bytes those waiting requests ask for. */
  pendingBytes: number;
  /** Bytes above the budget while a lowered budget is still being shed down to (else 0). */
  overBudgetBytes: number;
  /** Bytes reserved per category (pool, page tables, feedback, staging, streamed textures, ...). */
  byCategory: Record<BudgetCategory, number>;
  /** Bytes per tag name; untagged reservations are under ''. Tags with 0 bytes are omitted. */
  byTag: Record<string, number>;
}
