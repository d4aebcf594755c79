/**
 * The latency floor of one teleport, measured the way the simulator defines its limit
 * (`@tessera-vt/tessera/sim`: feedback latency + source latency + ceil(pages needed / uploads per frame)):
 * - feedback latency: frames from the teleport until the first feedback rendered after it arrives;
 * - pages needed: the pages that feedback requests at a mip that is not resident (pinned mips are
 *   always resident);
 * - source latency: frames from that feedback until the first tile is uploaded (the procedural
 *   workers' or the archive's real latency, queueing included).
 * Time-to-sharp divided by this limit says how close streaming came to what the latencies allow.
 */
export interface TeleportLimit {
  /** Non-resident pages the first feedback after the teleport requested, pages. */
  pagesNeeded: number;
  /** Frames from the teleport to that feedback's arrival. */
  feedbackLatencyFrames: number;
  /** Frames from that feedback to the first tile uploaded. */
  sourceLatencyFrames: number;
  /** feedback + source latency + ceil(pagesNeeded / uploads per frame), frames. */
  limitFrames: number;
}

/** Follows one teleport at a time through feedback and uploads. */
export class TeleportLatencyProbe {
  private teleportFrame = -1;
  private feedbackArrivalFrame = -1;
  private pagesNeeded = 0;
  private limit: TeleportLimit | null = null;

  /** The camera jumped; frames after `frame` belong to the new place. */
  start(frame: number): void {
    this.teleportFrame = frame;
    this.feedbackArrivalFrame = -1;
    this.limit = null;
  }

  /** True while waiting for the first feedback rendered at or after the teleport's next frame. */
  wantsFeedback(feedbackFrame: number): boolean {
    return this.teleportFrame >= 0 && this.feedbackArrivalFrame < 0 && feedbackFrame > this.teleportFrame;
  }

  /** That feedback arrived at `frame` and asks for `pagesNeeded` missing pages. */
  feedback(frame: number, pagesNeeded: number): void {
    this.feedbackArrivalFrame = frame;
    this.pagesNeeded = pagesNeeded;
    if (pagesNeeded === 0) this.tileUploaded(frame, 1); // nothing to load: the limit is the feedback
  }

  /** A tile was uploaded at `frame`; the first after the feedback closes the measurement. */
  tileUploaded(frame: number, uploadsPerFrame: number): void {
    if (this.feedbackArrivalFrame < 0 || this.limit !== null || this.teleportFrame < 0) return;
    const feedbackLatencyFrames = this.feedbackArrivalFrame - this.teleportFrame;
    const sourceLatencyFrames = frame - this.feedbackArrivalFrame;
    this.limit = {
      pagesNeeded: this.pagesNeeded,
      feedbackLatencyFrames,
      sourceLatencyFrames,
      limitFrames:
        feedbackLatencyFrames + sourceLatencyFrames + Math.ceil(this.pagesNeeded / uploadsPerFrame),
    };
    this.teleportFrame = -1;
  }

  /** The latest completed measurement, or null (none yet, or nothing was missing). */
  get result(): TeleportLimit | null {
    return this.limit;
  }
}
