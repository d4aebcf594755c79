import { grownTypedArray } from '../core/structures/typed-array-growth';

/**
 * Per-frame sets of requested page ids, flattened into growable typed arrays: the input of
 * {@link countOptimalLoads}, of policy replays and of pool planning. Recording allocates only when
 * the arrays double.
 */
export class RequestTrace {
  private ids: Uint32Array;
  private starts: Uint32Array;
  private idCount = 0;
  private frames = 0;

  /** @param initialIds capacity hint, in page ids. */
  constructor(initialIds = 1024) {
    this.ids = new Uint32Array(Math.max(16, initialIds));
    this.starts = new Uint32Array(64);
  }

  /** Number of frames recorded. */
  get frameCount(): number {
    return this.frames;
  }

  /** Total page ids recorded over all frames. */
  get length(): number {
    return this.idCount;
  }

  /** Opens a new frame; following {@link add} calls belong to it. */
  beginFrame(): void {
    if (this.frames + 1 >= this.starts.length) {
      this.starts = grownTypedArray(this.starts, this.starts.length * 2);
    }
    this.starts[this.frames] = this.idCount;
    this.frames++;
    this.starts[this.frames] = this.idCount;
  }

  /** Adds one page id to the current frame (callers keep ids unique within a frame). */
  add(id: number): void {
    if (this.frames === 0) this.beginFrame();
    if (this.idCount === this.ids.length) this.ids = grownTypedArray(this.ids, this.ids.length * 2);
    this.ids[this.idCount++] = id;
    this.starts[this.frames] = this.idCount;
  }

  /** Index into {@link id} of the first id of `frame`. */
  frameStart(frame: number): number {
    return this.starts[frame];
  }

  /** Index into {@link id} one past the last id of `frame`. */
  frameEnd(frame: number): number {
    return this.starts[frame + 1];
  }

  /** The `index`-th recorded id. */
  id(index: number): number {
    return this.ids[index];
  }

  /** Builds a trace from arrays of ids per frame (convenience for tests and tools; allocates). */
  static fromFrames(frames: ArrayLike<number>[]): RequestTrace {
    const trace = new RequestTrace();
    for (let f = 0; f < frames.length; f++) {
      const frame = frames[f];
      trace.beginFrame();
      for (let i = 0; i < frame.length; i++) trace.add(frame[i]);
    }
    return trace;
  }

  /** Distinct pages over the whole trace (the working-set union), in pages. Allocates a Set. */
  unionSize(): number {
    const seen = new Set<number>();
    for (let i = 0; i < this.idCount; i++) seen.add(this.ids[i]);
    return seen.size;
  }

  /** Largest number of ids in one frame, in pages. */
  maxFrameSize(): number {
    let max = 0;
    for (let f = 0; f < this.frames; f++) max = Math.max(max, this.starts[f + 1] - this.starts[f]);
    return max;
  }
}
