import { FEEDBACK_JITTER_PERIOD } from './feedback-jitter';

/** What page-table refusals ask of the mip bias (see {@link PageTablePressure}). */
export const TablePressure = {
  /** No refusal lately: the bias follows pool occupancy alone. */
  None: 0,
  /** A refusal within the last jitter cycle: the bias must not fall yet. */
  Hold: 1,
  /** A refusal since the previous bias update: the bias rises by its largest step. */
  Raise: 2,
} as const;
/** One of {@link TablePressure}. */
export type TablePressure = (typeof TablePressure)[keyof typeof TablePressure];

/**
 * Remembers when a page table refused a map for want of a block within its budget, so the mip
 * bias rises (coarser pages need fewer blocks) instead of the streamer failing, and does not fall
 * back for a jitter cycle (else it would oscillate between asking for blocks and being refused).
 */
export class PageTablePressure {
  /** Maps refused since construction. */
  refusals = 0;
  private lastRefusal = Number.NEGATIVE_INFINITY;
  private raisePending = false;

  /** Notes a refused map in frame `frame`. */
  refused(frame: number): void {
    this.refusals++;
    this.lastRefusal = frame;
    this.raisePending = true;
  }

  /** The pressure at a bias update in frame `frame` (clears the pending raise). */
  pressure(frame: number): TablePressure {
    if (this.raisePending) {
      this.raisePending = false;
      return TablePressure.Raise;
    }
    return frame - this.lastRefusal < FEEDBACK_JITTER_PERIOD ? TablePressure.Hold : TablePressure.None;
  }
}
