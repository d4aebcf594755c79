import type { TesseraError } from '../errors';

/**
 * Promises waiting for a frame-numbered condition (a view settling): each waits from a frame on
 * and is resolved by the first {@link resolve} that reaches that frame. Parallel arrays, compacted
 * in place, so resolving allocates nothing.
 */
export class FrameWaiters {
  private readonly fromFrames: number[] = [];
  private readonly resolvers: ((frame: number) => void)[] = [];
  private readonly rejecters: ((error: TesseraError) => void)[] = [];

  /** Waiters not yet resolved or rejected. */
  get waiting(): number {
    return this.fromFrames.length;
  }

  /** A promise resolved by the first {@link resolve} whose `reachedFrame` is >= `fromFrame`. */
  wait(fromFrame: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.fromFrames.push(fromFrame);
      this.resolvers.push(resolve);
      this.rejecters.push(reject);
    });
  }

  /**
   * The condition holds as of frame `reachedFrame`: resolves, with `value` (default that frame),
   * every waiter whose frame it reaches; the others keep waiting.
   */
  resolve(reachedFrame: number, value = reachedFrame): void {
    let kept = 0;
    for (let i = 0; i < this.fromFrames.length; i++) {
      if (this.fromFrames[i] <= reachedFrame) {
        this.resolvers[i](value);
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
    const rejecters = this.rejecters.slice();
    this.fromFrames.length = 0;
    this.resolvers.length = 0;
    this.rejecters.length = 0;
    for (const reject of rejecters) reject(error);
  }
}
