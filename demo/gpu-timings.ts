/**
 * GPU time per frame and of Tessera's own passes, from three's timestamp queries
 * (`trackTimestamp`: WebGPU `timestamp-query`), where the device has them; null otherwise.
 *
 * three r187 times every render pass and keys each by `r:<call>:<render context>:f<frame>`, where
 * `<call>` is `renderer.info.render.frameCalls` after that render call. The app brackets Tessera's
 * per-frame work ({@link beginTessera} / {@link endTessera}), so the calls in between (the feedback
 * pass) are Tessera's; the frame's other passes are the main view and three's output pass. Read
 * every {@link RESOLVE_FRAMES} frames (reading parses a few keys; nothing is allocated per frame).
 *
 * Not on the WebGL2 backend: its timer queries (`EXT_disjoint_timer_query_webgl2`, which
 * SwiftShader offers) measured the feedback pass at 99% of a frame, which the WebGPU timestamps
 * of the same frames contradict; so WebGL2 reports no figure rather than a wrong one.
 */

import type { WebGPURenderer } from 'three/webgpu';

/** Frames between two reads of the queries. */
const RESOLVE_FRAMES = 10;
/** Tessera call ranges remembered (more than the frames between two reads). */
const RANGES = 64;
const UID = /^r:(\d+):\d+:f(\d+)$/;

/** What {@link GpuTimings} measured, milliseconds per frame (averaged over the last read). */
export interface GpuTimingStats {
  /** Whether timestamp queries are read (WebGPU with `timestamp-query`; `false`: the figures stay null). */
  available: boolean;
  /** All render passes of a frame, GPU milliseconds. */
  frameMs: number | null;
  /** Tessera's passes (the feedback pass), GPU milliseconds. */
  tesseraMs: number | null;
}

interface TimestampBackend {
  isWebGPUBackend?: boolean;
  trackTimestamp?: boolean;
  timestampQueryPool?: { render?: { timestamps?: Map<string, number> } | null };
}

/** Reads three's timestamp queries for the demo's frames. */
export class GpuTimings {
  readonly stats: GpuTimingStats = { available: false, frameMs: null, tesseraMs: null };
  /** [frame, first, last]: `renderer.info.frame` and render-call numbers of Tessera's work in recent frames. */
  private readonly ranges = new Int32Array(RANGES * 3).fill(-1);
  private rangeCursor = 0;
  private firstCall = 0;
  private pending = false;
  private frames = 0;
  private framesSinceRead = 0;

  constructor(private readonly renderer: WebGPURenderer) {
    const backend = renderer.backend as TimestampBackend;
    this.stats.available = backend.isWebGPUBackend === true && backend.trackTimestamp === true;
  }

  /** Call just before Tessera's per-frame update (which renders its passes). */
  beginTessera(): void {
    this.firstCall = this.renderer.info.render.frameCalls + 1;
  }

  /** Call just after it. */
  endTessera(): void {
    const last = this.renderer.info.render.frameCalls;
    if (last < this.firstCall) return;
    // The frame number tells live frames apart (three resets the call count each one); stepped
    // frames keep one frame number and a growing call count.
    this.ranges[this.rangeCursor * 3] = this.renderer.info.frame;
    this.ranges[this.rangeCursor * 3 + 1] = this.firstCall;
    this.ranges[this.rangeCursor * 3 + 2] = last;
    this.rangeCursor = (this.rangeCursor + 1) % RANGES;
  }

  /** Call once per frame after rendering. */
  update(): void {
    if (!this.stats.available) return;
    this.framesSinceRead++;
    if (this.pending || ++this.frames % RESOLVE_FRAMES !== 0) return;
    this.pending = true;
    const frames = this.framesSinceRead;
    this.framesSinceRead = 0;
    this.renderer
      .resolveTimestampsAsync('render')
      .then(() => this.read(frames))
      .catch(() => {
        // A failed read (device lost, pool disposed) keeps the last figures.
      })
      .finally(() => {
        this.pending = false;
      });
  }

  private isTesseraCall(frame: number, call: number): boolean {
    const r = this.ranges;
    for (let i = 0; i < RANGES * 3; i += 3) {
      if (r[i] === frame && call >= r[i + 1] && call <= r[i + 2]) return true;
    }
    return false;
  }

  private read(frames: number): void {
    const timestamps = (this.renderer.backend as TimestampBackend).timestampQueryPool?.render?.timestamps;
    if (!timestamps || timestamps.size === 0 || frames === 0) return;
    let total = 0;
    let tessera = 0;
    for (const [uid, ms] of timestamps) {
      const match = UID.exec(uid);
      if (!match) continue;
      total += ms;
      if (this.isTesseraCall(Number(match[2]), Number(match[1]))) tessera += ms;
    }
    this.stats.frameMs = total / frames;
    this.stats.tesseraMs = tessera / frames;
  }
}
