import type { TesseraError } from '../errors';
import { FrameWaiters } from '../structures/frame-waiters';
import { FEEDBACK_JITTER_PERIOD } from './feedback/feedback-jitter';

/**
 * Distinct sub-pixel jitter offsets (of {@link FEEDBACK_JITTER_PERIOD}) whose feedback must find
 * nothing missing before a view counts as settled. All 16 would be exact but take 16 delivered
 * readbacks (seconds on a slow device); 4 offsets resolve everything down to about a quarter of a
 * feedback pixel: only pages covering a few screen pixels can still appear later.
 */
export const QUIET_PHASES_TO_SETTLE = 4;

function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

/**
 * Decides when streaming has settled on the current view, and keeps the promises waiting for it.
 * One jittered feedback frame samples the view at one sub-pixel offset, so a view is settled once
 * feedback at {@link QUIET_PHASES_TO_SETTLE} distinct offsets found nothing missing (nothing
 * pending after it) since the latest feedback that did, all rendered after the latest material
 * registration (a material compiled during a frame's main render is only in later feedback).
 */
export class SettleTracker {
  /** Frame the latest analysed feedback was rendered at (0 before the first). */
  lastFeedbackFrame = 0;
  private lastRegistrationFrame = 0;
  /** Bit `jitterFrame % FEEDBACK_JITTER_PERIOD` per quiet feedback since the latest one that was not. */
  private quietPhases = 0;
  private readonly waiters = new FrameWaiters();

  /** A material sampling a virtual texture was compiled during frame `frame`. */
  noteRegistration(frame: number): void {
    this.lastRegistrationFrame = frame;
    this.quietPhases = 0;
  }

  /**
   * Feedback rendered at `frame` with the jitter offset of `jitterFrame` (the frame itself where
   * feedback runs every frame) was analysed; `pendingPages` are queued, loading or awaiting upload
   * after it.
   */
  noteFeedback(frame: number, pendingPages: number, jitterFrame = frame): void {
    this.lastFeedbackFrame = frame;
    if (pendingPages > 0 || frame <= this.lastRegistrationFrame) this.quietPhases = 0;
    else {
      this.quietPhases |= 1 << (jitterFrame % FEEDBACK_JITTER_PERIOD);
    }
  }

  /** True when enough quiet feedback arrived since anything was last missing (see the class). */
  get quiet(): boolean {
    return (
      this.lastFeedbackFrame > this.lastRegistrationFrame &&
      bitCount(this.quietPhases) >= QUIET_PHASES_TO_SETTLE
    );
  }

  /** Waiters not yet resolved. */
  get waiting(): number {
    return this.waiters.waiting;
  }

  /** A promise resolved by the first {@link resolve} with a feedback frame >= `fromFrame`. */
  whenSettled(fromFrame: number): Promise<number> {
    return this.waiters.wait(fromFrame);
  }

  /** The view is settled: resolves every waiter whose frame the latest feedback reaches. */
  resolve(): void {
    this.waiters.resolve(this.lastFeedbackFrame);
  }

  /** Rejects every waiter with `error`. */
  rejectAll(error: TesseraError): void {
    this.waiters.rejectAll(error);
  }
}
