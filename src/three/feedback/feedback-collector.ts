import { type Camera, type Material, type Scene, Vector2 } from 'three';
import { uniform } from 'three/tsl';
import type { WebGPURenderer } from 'three/webgpu';
import { BudgetPriority } from '../../core/budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../../core/budget/texture-budget';
import { FEEDBACK_JITTER_PERIOD } from '../../core/vt/feedback/feedback-jitter';
import {
  type FeedbackMode,
  feedbackTargetBytes,
  fitFeedbackSize,
  readbackRingBytes,
} from '../../core/vt/vt-budget-plan';
import type { BackendBridge } from '../backend-bridge';
import type { SamplingContext, VirtualUv } from '../sampling/sampling-context';
import type { SampledVirtualTexture } from '../sampling/virtual-texture-graph';
import { FeedbackPass } from './feedback-pass';
import { type FeedbackConsumer, FeedbackReadback, MAX_READBACKS_IN_FLIGHT } from './feedback-readback';
import { type CountedFeedbackConsumer, MainPassFeedback } from './main-pass-feedback';
import { ViewStillness } from './view-stillness';

/** Budget reservations a {@link FeedbackCollector} takes over (already reserved by its owner). */
export interface FeedbackReservations {
  /** Handle of the feedback target's reservation (category `feedback`). */
  feedback: number;
  /** Handle of the readback ring's reservation (category `readback`). */
  readback: number;
}

/** Where each readback goes, per mode. */
export interface FeedbackConsumers {
  /** A separate pass's image of page ids, and main-pass tile images for debug views. */
  image: FeedbackConsumer;
  /** A main pass's compacted list. */
  counted: CountedFeedbackConsumer;
  /** True while someone wants the images of a main pass (a `feedback` listener). */
  wantsImage(): boolean;
  /** The main pass replaced its buffers: the materials writing into them must be rebuilt. */
  buffersReplaced(): void;
}

/** Feedback target size, in feedback pixels, for a `drawingWidth x drawingHeight` drawing buffer. */
export function feedbackSizeFor(
  drawingWidth: number,
  drawingHeight: number,
  scale: number,
  out: Vector2,
): Vector2 {
  return out.set(Math.max(1, Math.ceil(drawingWidth / scale)), Math.max(1, Math.ceil(drawingHeight / scale)));
}

/**
 * The GPU side of one virtual-texture system's feedback on one renderer, which writes the page
 * requests and reads them back (its owner, {@link SystemFeedback}, decides where they go and
 * outlives it: after a device loss it builds a new collector on the new renderer). Where page
 * requests are written (mode
 * `'separate-pass'`: a low-resolution feedback pass and the asynchronous readback of its image;
 * `'main-pass'`, WebGPU: the user's own render, compacted on the GPU, see {@link MainPassFeedback}),
 * and their size, which follows the renderer's drawing buffer
 * (`renderer.setSize`, `setPixelRatio`) every frame. A resize re-reserves the target and ring in
 * the budget; when the budget refuses the larger size, the target keeps the canvas's aspect at
 * the largest size that fits (warned once) and requests stay right, only sparser: the pass's
 * lambda uses the exact drawing-buffer pixels per feedback pixel ({@link lodOffset}).
 */
export class FeedbackCollector {
  /** log2 of drawing-buffer pixels per feedback pixel, read by every feedback graph. */
  readonly lodOffset = uniform(0);
  private readonly renderer: WebGPURenderer;
  private readonly budget: TextureBudget;
  private scale: number;
  private readonly rowAlignment: number;
  /** Where requests are written. */
  readonly mode: FeedbackMode;
  private readonly pass: FeedbackPass | null;
  private readonly readback: FeedbackReadback | null;
  private readonly main: MainPassFeedback | null;
  private readonly consumers: FeedbackConsumers;
  private readonly reservations: FeedbackReservations;
  private readonly drawingBuffer = new Vector2();
  private readonly wanted = new Vector2();
  private readonly fitted = { width: 0, height: 0 };
  private drawingWidth = 0;
  private drawingHeight = 0;
  private warnedBudget = false;
  /** Frames between separate passes while the view is still (1: every frame). */
  private stillInterval: number;
  private readonly stillness = new ViewStillness();
  /** Frames since the separate pass last rendered. */
  private framesSincePass = 0;
  /**
   * Separate passes rendered so far: the index into the jitter sequence (and the rotation of
   * textures and transparent checkerboards), so skipped frames skip no offset.
   */
  private jitterFrame = 0;
  /** Frames whose separate pass was left out because the view was still, since creation. */
  skippedStill = 0;

  /**
   * @param size initial target size (what `reservations` were reserved for), in feedback pixels.
   * @param scale drawing-buffer pixels per feedback pixel along each axis.
   * @param stillInterval frames between separate passes while the view is still (1: every frame).
   */
  constructor(
    renderer: WebGPURenderer,
    bridge: BackendBridge,
    budget: TextureBudget,
    scale: number,
    size: { width: number; height: number },
    reservations: FeedbackReservations,
    consumers: FeedbackConsumers,
    mode: FeedbackMode,
    stillInterval = 1,
  ) {
    this.renderer = renderer;
    this.stillInterval = stillInterval;
    this.budget = budget;
    this.scale = scale;
    this.mode = bridge.isWebGPU ? mode : 'separate-pass';
    this.rowAlignment = bridge.isWebGPU ? 256 : 1;
    this.reservations = reservations;
    this.consumers = consumers;
    if (this.mode === 'main-pass') {
      this.pass = null;
      this.readback = null;
      this.main = new MainPassFeedback(
        bridge,
        size.width,
        size.height,
        scale,
        consumers.counted,
        consumers.image,
        consumers.buffersReplaced,
      );
    } else {
      this.main = null;
      this.pass = new FeedbackPass(renderer, size.width, size.height);
      this.readback = new FeedbackReadback(bridge, this.pass.target, consumers.image);
    }
    this.updateLodOffset(size.width * scale, size.height * scale);
  }

  /** The main pass's request writer for sampling nodes, or null with a separate pass. */
  get requestWriter(): SamplingContext['requestWriter'] {
    return this.main === null ? null : this.main.requestWrite;
  }

  /**
   * Registers `material` (sampling `vt` at `uv`) with the separate pass, which mirrors it; false
   * for the pass's own materials. The main pass needs no registration.
   */
  register(material: Material, vt: SampledVirtualTexture, uv: VirtualUv): boolean {
    if (this.pass === null) return true;
    this.pass.register(material, vt, uv);
    return !this.pass.owns(material);
  }

  /** Current target size (separate pass) or tile grid (main pass), in feedback pixels. */
  get width(): number {
    return this.pass?.width ?? this.main!.width;
  }

  /** Current target size (separate pass) or tile grid (main pass), in feedback pixels. */
  get height(): number {
    return this.pass?.height ?? this.main!.height;
  }

  /** Readbacks started / delivered / dropped as stale / skipped as busy. */
  get counters(): FeedbackReadback['counters'] & { truncated?: number } {
    return this.readback?.counters ?? this.main!.counters;
  }

  /** GPU bytes of the target (colour + depth), or of the main pass's tile buffer, table and list. */
  get targetBytes(): number {
    return this.pass?.bytes ?? this.main!.bufferBytes;
  }

  /** GPU bytes of the readback ring. */
  get readbackBytes(): number {
    return this.readback?.bytes ?? this.main!.readbackBytes;
  }

  /** Bytes reserved in the budget for the target, in bytes. */
  get reservedTargetBytes(): number {
    return this.budget.bytesOf(this.reservations.feedback);
  }

  /** Bytes reserved in the budget for the readback ring, in bytes. */
  get reservedReadbackBytes(): number {
    return this.budget.bytesOf(this.reservations.readback);
  }

  /**
   * Sizes the target to the drawing buffer, renders the feedback of `scene` and starts its
   * readback. The separate pass renders nothing (counted as skipped) when every readback slot is
   * still in flight: that frame's feedback could never be read, and the pass is a second scene
   * render (as many draw calls again: `three.feedback_ratio.bilinear_400_meshes`). Nor does it
   * once the view has been still ({@link ViewStillness}) for a whole jitter cycle, except every
   * {@link stillFeedbackInterval}-th frame (counted in {@link skippedStill}); any change renders
   * at once. The jitter advances per pass rendered, so a still view still visits every offset.
   */
  render(scene: Scene, camera: Camera, frame: number): void {
    const drawing = this.renderer.getDrawingBufferSize(this.drawingBuffer);
    const dw = Math.max(1, drawing.x);
    const dh = Math.max(1, drawing.y);
    if (dw !== this.drawingWidth || dh !== this.drawingHeight) this.resize(dw, dh);
    if (this.main !== null) {
      this.main.beginFrame(camera, frame, this.consumers.wantsImage());
      return;
    }
    const pass = this.pass!;
    this.framesSincePass++;
    if (this.stillInterval > 1 && this.restsThisFrame(scene, camera, pass)) {
      this.skippedStill++;
      return;
    }
    const readback = this.readback!;
    if (!readback.hasFreeSlot()) {
      readback.skip();
      return;
    }
    const jitterFrame = ++this.jitterFrame;
    pass.render(scene, camera, jitterFrame);
    readback.request(frame, jitterFrame);
    this.framesSincePass = 0;
  }

  /**
   * True when the separate pass may rest this frame: the view unchanged for a whole jitter cycle
   * (so the first 16 frames after a move keep today's full rate: a teleport sharpens as fast),
   * and fewer than {@link stillFeedbackInterval} frames since the last pass.
   */
  private restsThisFrame(scene: Scene, camera: Camera, pass: FeedbackPass): boolean {
    this.stillness.update(scene, camera, pass.width, pass.height, pass.isMirrored);
    return this.stillness.stillFrames > FEEDBACK_JITTER_PERIOD && this.framesSincePass < this.stillInterval;
  }

  /** Frames between separate passes while the view is still (1: every frame). */
  get stillFeedbackInterval(): number {
    return this.stillInterval;
  }

  /** Sets {@link stillFeedbackInterval}, from the next {@link render} on (a positive integer). */
  setStillFeedbackInterval(frames: number): void {
    if (frames === this.stillInterval) return;
    this.stillInterval = frames;
    // The check did not run while the interval was 1: its last fingerprint is old.
    this.stillness.markChanged();
  }

  /**
   * Something the view's fingerprint cannot see changed what the pass requests (a material
   * registered, the filtering, the mip bias): the next frame renders the pass, as after a move.
   */
  markViewChanged(): void {
    this.stillness.markChanged();
  }

  /** Bytes reserved for the target and the ring together, in bytes. */
  get reservedBytes(): number {
    return this.reservedTargetBytes + this.reservedReadbackBytes;
  }

  /** Drawing-buffer pixels per feedback pixel along each axis. */
  get feedbackScale(): number {
    return this.scale;
  }

  /**
   * Changes the drawing-buffer pixels per feedback pixel; the target is resized (and re-reserved
   * within the budget) at the next {@link render}, as after a canvas resize.
   */
  setScale(scale: number): void {
    if (scale === this.scale) return;
    this.scale = scale;
    this.stillness.markChanged();
    this.drawingWidth = 0;
    this.drawingHeight = 0;
  }

  /**
   * Frees the target and the ring but keeps their reservations, handed to the collector that
   * replaces this one (device-loss recovery): returns them with the size they hold, in feedback pixels.
   */
  disposeKeepingReservations(): {
    reservations: FeedbackReservations;
    size: { width: number; height: number };
  } {
    const size = { width: this.width, height: this.height };
    this.disposeCollector();
    const reservations = { ...this.reservations };
    this.reservations.feedback = NO_RESERVATION;
    this.reservations.readback = NO_RESERVATION;
    return { reservations, size };
  }

  /** Frees the target, the ring and their reservations. */
  dispose(): void {
    this.disposeCollector();
    for (const handle of [this.reservations.feedback, this.reservations.readback]) {
      if (handle !== NO_RESERVATION) this.budget.release(handle);
    }
    this.reservations.feedback = NO_RESERVATION;
    this.reservations.readback = NO_RESERVATION;
  }

  private disposeCollector(): void {
    this.readback?.dispose();
    this.pass?.dispose();
    this.main?.dispose();
  }

  private resize(drawingWidth: number, drawingHeight: number): void {
    this.drawingWidth = drawingWidth;
    this.drawingHeight = drawingHeight;
    const wanted = feedbackSizeFor(drawingWidth, drawingHeight, this.scale, this.wanted);
    let width = wanted.x;
    let height = wanted.y;
    const mode = this.mode;
    const targetBytes = feedbackTargetBytes(width, height, mode);
    const ringBytes = readbackRingBytes(width, height, this.rowAlignment, MAX_READBACKS_IN_FLIGHT, mode);
    const reservedTarget = this.reservedTargetBytes;
    const reservedRing = this.reservedReadbackBytes;
    // Growing takes more room in the budget; shrinking keeps the reservation (old readback buffers
    // still in flight are as large, and growing back then needs nothing new).
    if (targetBytes > reservedTarget || ringBytes > reservedRing) {
      const grown =
        this.grow('feedback', Math.max(targetBytes, reservedTarget)) &&
        this.grow('readback', Math.max(ringBytes, reservedRing));
      if (!grown) {
        const fitted = fitFeedbackSize(
          width,
          height,
          this.reservedTargetBytes,
          this.reservedReadbackBytes,
          this.rowAlignment,
          MAX_READBACKS_IN_FLIGHT,
          this.fitted,
          mode,
        );
        width = fitted.width;
        height = fitted.height;
        if (!this.warnedBudget) {
          this.warnedBudget = true;
          console.warn(
            `tessera: the budget has no room for a ${wanted.x}x${wanted.y} feedback target (drawing buffer ${drawingWidth}x${drawingHeight}); using ${width}x${height}: requests stay right, only sparser`,
          );
        }
      }
    }
    if (this.main !== null) {
      // The tile side that covers the drawing buffer with the grid the budget allowed.
      const tileSize = Math.max(Math.ceil(drawingWidth / width), Math.ceil(drawingHeight / height));
      this.main.setSize(width, height, tileSize);
    } else {
      this.pass!.setSize(width, height);
    }
    this.updateLodOffset(drawingWidth, drawingHeight);
  }

  /** Replaces reservation `which` by one of `bytes`; false (the old one kept) when the budget refuses. */
  private grow(which: keyof FeedbackReservations, bytes: number): boolean {
    const handle = this.reservations[which];
    if (this.budget.bytesOf(handle) === bytes) return true;
    const replacement = this.budget.resize(handle, bytes, BudgetPriority.infrastructure);
    if (replacement === NO_RESERVATION) return false;
    this.reservations[which] = replacement;
    return true;
  }

  private updateLodOffset(drawingWidth: number, drawingHeight: number): void {
    // Geometric mean of both axes' ratios: ceil() makes them differ slightly from the scale.
    this.lodOffset.value = 0.5 * Math.log2((drawingWidth / this.width) * (drawingHeight / this.height));
  }
}
