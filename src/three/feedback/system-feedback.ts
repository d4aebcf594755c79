import type { Camera, Material, Scene } from 'three';
import type { TextureBudget } from '../../core/budget/texture-budget';
import type { TypedEmitter } from '../../core/structures/typed-emitter';
import type { SettleTracker } from '../../core/vt/settle-tracker';
import type { VirtualTextureStreamer } from '../../core/vt/virtual-texture-streamer';
import type { FeedbackMode } from '../../core/vt/vt-budget-plan';
import type { BackendBridge } from '../backend-bridge';
import { DeviceLossWatch } from '../device-loss-watch';
import type { VirtualUv } from '../sampling/sampling-context';
import type { SampledVirtualTexture } from '../sampling/virtual-texture-graph';
import type { VirtualTextureSystemEvents } from '../virtual-texture-system-types';
import { FeedbackCollector, type FeedbackConsumers, type FeedbackReservations } from './feedback-collector';

const EMPTY_IDS = new Uint32Array(0);

/** Where each readback goes: the streamer, the settle tracker and the system's `feedback` event. */
export interface FeedbackSinks {
  readonly streamer: VirtualTextureStreamer;
  readonly settle: SettleTracker;
  readonly events: TypedEmitter<VirtualTextureSystemEvents>;
  /** The main pass replaced its buffers: materials writing requests must be rebuilt. */
  readonly buffersReplaced: () => void;
}

/**
 * The feedback of one virtual-texture system, across device losses: it owns the
 * {@link FeedbackCollector} (the GPU side on the current renderer, which writes and reads back
 * the page requests), delivers each readback (submitted to the streamer, noted by the settle
 * tracker, emitted as `feedback`) and watches for device loss. {@link recover} replaces the
 * collector by one on the new renderer, keeping the budget reservations; the two stay separate
 * classes because this one lives as long as the system and the collector only as long as its
 * renderer's device.
 */
export class SystemFeedback {
  private readonly streamer: VirtualTextureStreamer;
  private readonly settle: SettleTracker;
  private readonly events: TypedEmitter<VirtualTextureSystemEvents>;
  private readonly buffersReplaced: () => void;
  private current: FeedbackCollector;
  private watch: DeviceLossWatch;
  private warnedLost = false;
  private closed = false;
  /** CPU time spent analysing readbacks since creation, in milliseconds. */
  analysisMs = 0;
  private readonly event: VirtualTextureSystemEvents['feedback'] = {
    frame: 0,
    jitterFrame: 0,
    ids: EMPTY_IDS,
    width: 0,
    height: 0,
  };

  constructor(
    bridge: BackendBridge,
    private readonly budget: TextureBudget,
    scale: number,
    size: { width: number; height: number },
    reservations: FeedbackReservations,
    sinks: FeedbackSinks,
    private readonly mode: FeedbackMode,
    stillInterval: number,
  ) {
    this.streamer = sinks.streamer;
    this.settle = sinks.settle;
    this.events = sinks.events;
    this.buffersReplaced = sinks.buffersReplaced;
    this.current = this.create(bridge, scale, size, reservations, stillInterval);
    this.watch = new DeviceLossWatch(bridge);
  }

  /** The collector on the current renderer (replaced by {@link recover}). */
  get collector(): FeedbackCollector {
    return this.current;
  }

  /** True while the device is lost; warns once per loss (frames then do nothing). */
  checkLost(): boolean {
    if (!this.watch.lost) return false;
    if (!this.warnedLost) console.warn('tessera: the GPU device is lost; frames do nothing until recover()');
    this.warnedLost = true;
    return true;
  }

  /** True once the device was lost (and no {@link recover} since). */
  get lost(): boolean {
    return this.watch.lost;
  }

  /** Mirrors `material` (sampling `vt` at `uv`) in a separate feedback pass; false for the pass's own materials. */
  register(material: Material, vt: SampledVirtualTexture, uv: VirtualUv): boolean {
    return this.current.register(material, vt, uv);
  }

  /** Renders the feedback pass and starts its readback. */
  render(scene: Scene, camera: Camera, frame: number): void {
    this.current.render(scene, camera, frame);
  }

  /** Rebuilds the collector on `bridge`'s renderer with the same reservations and scale. */
  recover(bridge: BackendBridge): void {
    const scale = this.current.feedbackScale;
    const interval = this.current.stillFeedbackInterval;
    const old = this.current.disposeKeepingReservations();
    this.current = this.create(bridge, scale, old.size, old.reservations, interval);
    this.watch.dispose();
    this.watch = new DeviceLossWatch(bridge);
    this.warnedLost = false;
  }

  /** Frees the collector, its reservations and the watch. */
  dispose(): void {
    this.closed = true;
    this.current.dispose();
    this.watch.dispose();
  }

  private create(
    bridge: BackendBridge,
    scale: number,
    size: { width: number; height: number },
    reservations: FeedbackReservations,
    stillInterval: number,
  ): FeedbackCollector {
    const consumers: FeedbackConsumers = {
      image: (ids, frame, width, height, jitterFrame = frame) =>
        this.consume(ids, frame, width, height, jitterFrame),
      counted: (pages, counts, length, frame) => this.consumeCounted(pages, counts, length, frame),
      wantsImage: () => this.events.has('feedback'),
      buffersReplaced: this.buffersReplaced,
    };
    return new FeedbackCollector(
      bridge.renderer,
      bridge,
      this.budget,
      scale,
      size,
      reservations,
      consumers,
      this.mode,
      stillInterval,
    );
  }

  /** A separate pass's image (submitted), or a main pass's tile image (only emitted). */
  private consume(ids: Uint32Array, frame: number, width: number, height: number, jitterFrame: number): void {
    if (this.closed) return;
    if (this.current.mode === 'separate-pass') {
      const start = performance.now();
      this.streamer.submitFeedback(ids, width * height);
      this.analysisMs += performance.now() - start;
      this.noteSubmitted(frame, jitterFrame);
    }
    this.emitImage(ids, frame, width, height, jitterFrame);
  }

  private consumeCounted(pages: Uint32Array, counts: Uint32Array, length: number, frame: number): void {
    if (this.closed) return;
    const start = performance.now();
    this.streamer.submitCountedFeedback(pages, counts, length);
    this.analysisMs += performance.now() - start;
    this.noteSubmitted(frame, frame);
  }

  private noteSubmitted(frame: number, jitterFrame: number): void {
    const s = this.streamer.stats();
    this.settle.noteFeedback(frame, s.queued + s.inFlight + s.pendingUploads, jitterFrame);
  }

  private emitImage(
    ids: Uint32Array,
    frame: number,
    width: number,
    height: number,
    jitterFrame: number,
  ): void {
    if (!this.events.has('feedback')) return;
    const event = this.event;
    event.frame = frame;
    event.jitterFrame = jitterFrame;
    event.ids = ids;
    event.width = width;
    event.height = height;
    this.events.emit('feedback', event);
  }
}
