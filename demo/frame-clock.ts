/**
 * Frame pacing for the two modes: live (`requestAnimationFrame` via the renderer's animation loop)
 * and stepped (`?auto=0`: each requested frame advances time by exactly 1/60 s).
 */

/** Seconds a stepped frame advances time by. */
export const STEPPED_FRAME_SECONDS = 1 / 60;
/** Longest step a live frame takes, seconds (a stall must not teleport the camera). */
const MAX_LIVE_STEP = 0.1;

/** Waits for frames rendered by whichever mode is active. */
export class FrameClock {
  /** Frames rendered since load. */
  frame = 0;
  /**
   * Wall-clock milliseconds between the latest two live frames, unclamped (the step the camera and
   * tour advance by is clamped; this is what the screen shows). 0 until two live frames ran.
   */
  intervalMs = 0;
  private lastTime = -1;
  private readonly waiters: Array<{ frame: number; resolve: () => void }> = [];

  /** Seconds since the previous live frame at `timeMs`, clamped. */
  liveStep(timeMs: number): number {
    const dt = this.lastTime < 0 ? STEPPED_FRAME_SECONDS : (timeMs - this.lastTime) / 1000;
    if (this.lastTime >= 0) this.intervalMs = timeMs - this.lastTime;
    this.lastTime = timeMs;
    return Math.min(MAX_LIVE_STEP, Math.max(0, dt));
  }

  /** Records a rendered frame and wakes those waiting for it. */
  tick(): void {
    this.frame++;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].frame <= this.frame) {
        this.waiters[i].resolve();
        this.waiters.splice(i, 1);
      }
    }
  }

  /** Resolves once frame number `frame` has been rendered (live mode). */
  until(frame: number): Promise<void> {
    if (this.frame >= frame) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ frame, resolve }));
  }
}
