/** Frames the counter remembers; windows longer than this are answered as unknown (-1). */
export const RING_FRAMES = 64;

/**
 * How many pages were last used in each of the latest {@link RING_FRAMES} frames, so "pages used
 * since frame f" costs O(window) instead of a scan over every slot each frame. A ring of
 * (frame, count) cells: a cell whose frame is older than the ring counts nothing. Typed arrays
 * only; O(1) per change.
 */
export class RecentUseCounter {
  private readonly frames = new Int32Array(RING_FRAMES).fill(-0x80000000);
  private readonly counts = new Int32Array(RING_FRAMES);

  /** Counts one page last used at `frame`. */
  add(frame: number): void {
    const i = frame & (RING_FRAMES - 1);
    if (this.frames[i] !== frame) {
      this.frames[i] = frame;
      this.counts[i] = 0;
    }
    this.counts[i]++;
  }

  /** Stops counting one page last used at `frame` (no-op once `frame` left the ring). */
  remove(frame: number): void {
    const i = frame & (RING_FRAMES - 1);
    if (this.frames[i] === frame) this.counts[i]--;
  }

  /**
   * Pages last used in frames `sinceFrame..currentFrame`, or -1 when that window is longer than
   * the ring (the caller then counts another way).
   */
  countSince(sinceFrame: number, currentFrame: number): number {
    if (currentFrame - sinceFrame >= RING_FRAMES) return -1;
    let n = 0;
    for (let f = Math.max(sinceFrame, currentFrame - RING_FRAMES + 1); f <= currentFrame; f++) {
      const i = f & (RING_FRAMES - 1);
      if (this.frames[i] === f) n += this.counts[i];
    }
    return n;
  }
}
