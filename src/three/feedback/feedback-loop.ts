import { type Camera, type Material, type Scene, Vector2 } from 'three';
import { uniform } from 'three/tsl';
import type { WebGPURenderer } from 'three/webgpu';
import { BudgetPriority } from '../../core/budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../../core/budget/texture-budget';
import { feedbackTargetBytes, fitFeedbackSize, readbackRingBytes } from '../../core/vt/vt-budget-plan';
import type { BackendBridge } from '../backend-bridge';
import { FeedbackPass } from './feedback-pass';
import { type FeedbackConsumer, FeedbackReadback, MAX_READBACKS_IN_FLIGHT } from './feedback-readback';

/** Budget reservations a {@link FeedbackLoop} takes over (already reserved by its owner). */
export interface FeedbackReservations {
  /** Handle of the feedback target's reservation (category `feedback`). */
  feedback: number;
  /** Handle of the readback ring's reservation (category `readback`). */
  readback: number;
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
 * The feedback loop of one virtual-texture system: the low-resolution feedback pass, its
 * asynchronous readback ring, and their size, which follows the renderer's drawing buffer
 * (`renderer.setSize`, `setPixelRatio`) every frame. A resize re-reserves the target and ring in
 * the budget; when the budget refuses the larger size, the target keeps the canvas's aspect at
 * the largest size that fits (warned once) and requests stay right, only sparser: the pass's
 * lambda uses the exact drawing-buffer pixels per feedback pixel ({@link lodOffset}).
 */
export class FeedbackLoop {
  /** log2 of drawing-buffer pixels per feedback pixel, read by every feedback graph. */
  readonly lodOffset = uniform(0);
  private readonly renderer: WebGPURenderer;
  private readonly budget: TextureBudget;
  private scale: number;
  private readonly rowAlignment: number;
  private readonly pass: FeedbackPass;
  private readonly readback: FeedbackReadback;
  private readonly reservations: FeedbackReservations;
  private readonly drawingBuffer = new Vector2();
  private readonly wanted = new Vector2();
  private readonly fitted = { width: 0, height: 0 };
  private drawingWidth = 0;
  private drawingHeight = 0;
  private warnedBudget = false;

  /**
   * @param size initial target size (what `reservations` were reserved for), in feedback pixels.
   * @param scale drawing-buffer pixels per feedback pixel along each axis.
   */
  constructor(
    renderer: WebGPURenderer,
    bridge: BackendBridge,
    budget: TextureBudget,
    scale: number,
    size: { width: number; height: number },
    reservations: FeedbackReservations,
    consumer: FeedbackConsumer,
  ) {
    this.renderer = renderer;
    this.budget = budget;
    this.scale = scale;
    this.rowAlignment = bridge.isWebGPU ? 256 : 1;
    this.reservations = reservations;
    this.pass = new FeedbackPass(renderer, size.width, size.height);
    this.readback = new FeedbackReadback(bridge, this.pass.target, consumer);
    this.updateLodOffset(size.width * scale, size.height * scale);
  }

  /** The pass materials register with (see `FeedbackPass.register`). */
  get feedbackPass(): FeedbackPass {
    return this.pass;
  }

  /** Current target size, in feedback pixels. */
  get width(): number {
    return this.pass.width;
  }

  /** Current target size, in feedback pixels. */
  get height(): number {
    return this.pass.height;
  }

  /** Readbacks started / delivered / dropped as stale / skipped as busy. */
  get counters(): FeedbackReadback['counters'] {
    return this.readback.counters;
  }

  /** GPU bytes of the target (colour + depth). */
  get targetBytes(): number {
    return this.pass.bytes;
  }

  /** GPU bytes of the readback ring. */
  get readbackBytes(): number {
    return this.readback.bytes;
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
   * readback; when every readback slot is still in flight, renders nothing (counted as skipped):
   * that frame's feedback could never be read, and the pass is a second scene render (as many draw
   * calls again: `three.feedback_ratio.bilinear_400_meshes`).
   */
  render(scene: Scene, camera: Camera, frame: number): void {
    const drawing = this.renderer.getDrawingBufferSize(this.drawingBuffer);
    const dw = Math.max(1, drawing.x);
    const dh = Math.max(1, drawing.y);
    if (dw !== this.drawingWidth || dh !== this.drawingHeight) this.resize(dw, dh);
    if (!this.readback.hasFreeSlot()) {
      this.readback.skip();
      return;
    }
    this.pass.render(scene, camera, frame);
    this.readback.request(frame);
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
    this.drawingWidth = 0;
    this.drawingHeight = 0;
  }

  /** True when `material` is one of the pass's own (mirror) materials. */
  owns(material: Material): boolean {
    return this.pass.owns(material);
  }

  /**
   * Frees the target and the ring but keeps their reservations, handed to the loop that replaces
   * this one (device-loss recovery): returns them with the size they hold, in feedback pixels.
   */
  disposeKeepingReservations(): {
    reservations: FeedbackReservations;
    size: { width: number; height: number };
  } {
    this.readback.dispose();
    this.pass.dispose();
    const reservations = { ...this.reservations };
    const size = { width: this.pass.width, height: this.pass.height };
    this.reservations.feedback = NO_RESERVATION;
    this.reservations.readback = NO_RESERVATION;
    return { reservations, size };
  }

  /** Frees the target, the ring and their reservations. */
  dispose(): void {
    this.readback.dispose();
    this.pass.dispose();
    for (const handle of [this.reservations.feedback, this.reservations.readback]) {
      if (handle !== NO_RESERVATION) this.budget.release(handle);
    }
    this.reservations.feedback = NO_RESERVATION;
    this.reservations.readback = NO_RESERVATION;
  }

  private resize(drawingWidth: number, drawingHeight: number): void {
    this.drawingWidth = drawingWidth;
    this.drawingHeight = drawingHeight;
    const wanted = feedbackSizeFor(drawingWidth, drawingHeight, this.scale, this.wanted);
    let width = wanted.x;
    let height = wanted.y;
    const targetBytes = feedbackTargetBytes(width, height);
    const ringBytes = readbackRingBytes(width, height, this.rowAlignment, MAX_READBACKS_IN_FLIGHT);
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
    this.pass.setSize(width, height);
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
    this.lodOffset.value =
      0.5 * Math.log2((drawingWidth / this.pass.width) * (drawingHeight / this.pass.height));
  }
}
