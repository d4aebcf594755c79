import { FEEDBACK_JITTER_PERIOD } from './feedback-jitter';

/** What page-table refusals ask of the mip bias (see `PageTablePressure`). */
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
 * Frames a page whose map was refused waits before a request may load it again: one jitter cycle,
 * about the time a raised bias takes to reach the feedback. A request of the held page meanwhile
 * counts as a refusal (the view still wants what cannot be mapped: the bias must rise more), but
 * loads nothing: before, each such request loaded the tile again only to drop it.
 */
export const REFUSED_PAGE_HOLD_FRAMES = FEEDBACK_JITTER_PERIOD;

/**
 * Remembers when a page table refused a map for want of a block within its budget, so the mip
 * bias rises (coarser pages need fewer blocks) instead of the streamer failing, and does not fall
 * back for a jitter cycle (else it would oscillate between asking for blocks and being refused).
 */
export class PageTablePressure {
  /** Maps refused, and requests of pages held after a refusal, since construction. */
  refusals = 0;
  private lastRefusal = Number.NEGATIVE_INFINITY;
  private raisePending = false;

  /** Notes a refused map (or a request of a held page) in frame `frame`. */
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
