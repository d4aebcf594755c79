import type { TesseraError } from '../core/errors';

/** Promises waiting for streaming to settle on a feedback rendered at or after a given frame. */
export class SettleWaiters {
  private readonly fromFrames: number[] = [];
  private readonly resolvers: ((frame: number) => void)[] = [];
  private readonly rejecters: ((error: TesseraError) => void)[] = [];

  /** Waiters not yet settled. */
  get size(): number {
    return this.fromFrames.length;
  }

  /** A promise resolved by the first {@link settle} with a feedback frame >= `fromFrame`. */
  add(fromFrame: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.fromFrames.push(fromFrame);
      this.resolvers.push(resolve);
      this.rejecters.push(reject);
    });
  }

  /** Resolves every waiter whose frame the settled feedback (rendered at `feedbackFrame`) reaches. */
  settle(feedbackFrame: number): void {
    let kept = 0;
    for (let i = 0; i < this.fromFrames.length; i++) {
      if (this.fromFrames[i] <= feedbackFrame) {
        this.resolvers[i](feedbackFrame);
        continue;
      }
      this.fromFrames[kept] = this.fromFrames[i];
      this.resolvers[kept] = this.resolvers[i];
      this.rejecters[kept] = this.rejecters[i];
      kept++;
    }
    this.fromFrames.length = kept;
    this.resolvers.length = kept;
    this.rejecters.length = kept;
  }

  /** Rejects every waiter with `error`. */
  rejectAll(error: TesseraError): void {
    for (const reject of this.rejecters) reject(error);
    this.fromFrames.length = 0;
    this.resolvers.length = 0;
    this.rejecters.length = 0;
  }
}
