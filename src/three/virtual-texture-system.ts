import { type Camera, type Scene, Vector2 } from 'three';
import { uniform } from 'three/tsl';
import type { WebGPURenderer } from 'three/webgpu';
import { TextureBudget } from '../core/budget/texture-budget';
import { TesseraConfigError, TesseraError } from '../core/errors';
import { TypedEmitter } from '../core/structures/typed-emitter';
import { poolEfficiency } from '../core/vt/pool-efficiency';
import { slotBytesOfFormats } from '../core/vt/pool-format';
import { SettleTracker } from '../core/vt/settle-tracker';
import type { TileData, TileSource } from '../core/vt/tile-source';
import { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import { planVirtualTextureBudget, type VirtualTextureBudgetInput } from '../core/vt/vt-budget-plan';
import { VirtualTextureLayout } from '../core/vt/vt-layout';
import { BackendBridge } from './backend-bridge';
import { EvictableTextures } from './evictable-textures';
import { FeedbackLoop, feedbackSizeFor } from './feedback-loop';
import { MAX_READBACKS_IN_FLIGHT } from './feedback-readback';
import { choosePoolFormats } from './pool-format-choice';
import { PageTableTexture, PoolTextures } from './pool-textures';
import type { SamplingContext } from './sampling-context';
import { TranscodingStages } from './transcode/transcoding-stages';
import { mapSourceLayers, VirtualTexture, type VirtualTexturePoolLayer } from './virtual-texture';
import { reserveVirtualTextureBudget } from './virtual-texture-reservations';
import { resolveSystemOptions, type VirtualTextureSystemOptions } from './virtual-texture-system-options';
import type {
  VirtualTextureAddOptions,
  VirtualTextureReservedBytes,
  VirtualTextureSystemEvents,
  VirtualTextureSystemStats,
} from './virtual-texture-system-types';

/**
 * Virtual texturing for three.js `WebGPURenderer` (WebGPU and WebGL2 backends): one physical pool
 * under a byte budget shared by up to 16 virtual textures, a feedback loop with asynchronous
 * readback that follows the renderer's size, and tile uploads written straight into
 * sub-rectangles of the pool.
 *
 * ```ts
 * const system = new VirtualTextureSystem(renderer, { budgetBytes: 64 << 20 });
 * const vt = system.add(source, { name: 'terrain' });
 * material.colorNode = virtualTexture(vt);
 * renderer.setAnimationLoop(() => { system.update(camera, scene); renderer.render(scene, camera); });
 * await system.whenSettled(); // every page the view needs is resident
 * ```
 */
export class VirtualTextureSystem {
  /** Typed events: `error`, `page-loaded`, `page-evicted`, `feedback`. */
  readonly events = new TypedEmitter<VirtualTextureSystemEvents>();
  /** Tile side including border, in texels. */
  readonly tileSize: number;
  /** Border inside each tile side, in texels. */
  readonly border: number;
  /** Most tiles written per frame. */
  readonly maxUploadsPerFrame: number;
  /** The core streamer (feedback analysis, scheduling, pool, page tables). */
  readonly streamer: VirtualTextureStreamer;
  /** The budget the reservations come from (shared, or internal of `budgetBytes`). */
  readonly budget: TextureBudget;
  private readonly bridge: BackendBridge;
  private readonly poolTextures: PoolTextures;
  private readonly feedback: FeedbackLoop;
  private readonly context: SamplingContext;
  private readonly textures: (VirtualTexture | null)[] = [];
  private readonly poolLayers: readonly VirtualTexturePoolLayer[];
  /** UASTC layers' transcoding (workers started on the first texture that has some). */
  private readonly stages: TranscodingStages;
  /** Reservations of the pool and page tables (the feedback loop owns its own two). */
  private readonly reservations: number[] = [];
  private readonly poolBytes: number;
  /** Textures whose out-of-view pages are freed progressively (see makeEvictable). */
  private readonly evictable: EvictableTextures;
  private readonly pageTableReserve: number;
  private pageTableUsed = 0;
  private frame = 0;
  private uploadsLastFrame = 0;
  private uploadsTotal = 0;
  private disposed = false;
  private readonly settle = new SettleTracker();
  private readonly uploadHandler: (vt: number, slot: number, pageId: number, data: TileData) => boolean;
  private readonly feedbackEvent: VirtualTextureSystemEvents['feedback'] = {
    frame: 0,
    ids: new Uint32Array(0),
    width: 0,
    height: 0,
  };

  /**
   * @throws TesseraConfigError: 'invalid-option' / 'invalid-layers' for bad options,
   *   'budget-too-small' when the budget (or `budgetBytes`) cannot hold the page-table reserve,
   *   feedback target, readback ring and {@link VirtualTextureSystemOptions.minPoolSlots} pool
   *   slots. Nothing is reserved or allocated when it throws.
   */
  constructor(renderer: WebGPURenderer, options: VirtualTextureSystemOptions) {
    const bridge = new BackendBridge(renderer);
    this.bridge = bridge;
    const o = resolveSystemOptions(options);
    this.tileSize = o.tileSize;
    this.border = o.border;
    this.maxUploadsPerFrame = o.maxUploadsPerFrame;
    this.poolLayers = o.layers;
    this.pageTableReserve = o.pageTableBytes;
    const formats = choosePoolFormats(bridge, this.poolLayers, o.allowedTargets);
    this.stages = new TranscodingStages(formats, o.transcoder, o.transcodeWorkers);
    const budget = o.budget;
    const poolTextureSize = Math.min(bridge.maxTextureSize, o.maxPoolTextureSize ?? bridge.maxTextureSize);
    if (poolTextureSize < this.tileSize) {
      throw new TesseraConfigError(
        'invalid-option',
        `maxPoolTextureSize ${poolTextureSize} is below the tile size ${this.tileSize}`,
      );
    }
    const drawing = renderer.getDrawingBufferSize(new Vector2());
    const feedbackSize = feedbackSizeFor(drawing.x, drawing.y, o.feedbackScale, drawing);
    const input: VirtualTextureBudgetInput = {
      shareBytes: o.shareBytes,
      capacityBytes: budget ? Math.min(o.shareBytes, budget.budgetBytes - budget.pinnedBytes) : o.shareBytes,
      tileSize: this.tileSize,
      layerCount: this.poolLayers.length,
      slotBytes: slotBytesOfFormats(formats, this.tileSize),
      feedbackWidth: feedbackSize.x,
      feedbackHeight: feedbackSize.y,
      readbackRowAlignment: bridge.isWebGPU ? 256 : 1,
      readbacksInFlight: MAX_READBACKS_IN_FLIGHT,
      pageTableBytes: this.pageTableReserve,
      stagingBytes: o.stagingBytes,
      minPoolSlots: o.minPoolSlots,
      maxTextureSize: poolTextureSize,
      maxArrayLayers: bridge.maxArrayLayers,
    };
    // Everything is planned and reserved before any GPU allocation.
    const plan = planVirtualTextureBudget(input);
    this.budget = budget ?? new TextureBudget({ budgetBytes: o.shareBytes });
    const reserved = reserveVirtualTextureBudget(this.budget, plan, input);
    // The feedback loop owns its two reservations; the system releases the others.
    this.reservations.push(reserved.pageTable, reserved.staging, reserved.pool);
    this.poolBytes = reserved.poolBytes;
    const shape = reserved.poolShape;
    this.poolTextures = new PoolTextures(bridge, shape, formats);
    this.streamer = new VirtualTextureStreamer({
      pool: { slotCount: this.poolTextures.slotCount, replacementPolicy: o.replacementPolicy },
      maxUploadsPerFrame: this.maxUploadsPerFrame,
      stagingBytes: plan.stagingBytes,
      abortAfterFrames: o.abortAfterFrames,
      maxFeedbackPixels: feedbackSize.x * feedbackSize.y,
    });
    this.evictable = new EvictableTextures(this.streamer, o.evictPagesPerFrame);
    this.streamer.on('error', (event) => this.events.emit('error', event));
    this.streamer.on('page-evicted', (event) => this.events.emit('page-evicted', event));
    this.streamer.on('page-loaded', (event) => this.events.emit('page-loaded', event));
    this.feedback = new FeedbackLoop(
      renderer,
      bridge,
      this.budget,
      o.feedbackScale,
      { width: feedbackSize.x, height: feedbackSize.y },
      { feedback: reserved.feedback, readback: reserved.readback },
      (ids, frame, width, height) => this.onFeedback(ids, frame, width, height),
    );
    const feedbackPass = this.feedback.feedbackPass;
    const textures = this.textures;
    this.context = {
      poolTextures: this.poolTextures.textures,
      poolShape: shape,
      poolWidth: this.poolTextures.width,
      poolHeight: this.poolTextures.height,
      filtering: o.filtering,
      maxAnisotropy: o.maxAnisotropy,
      feedbackLodOffset: this.feedback.lodOffset,
      mipBias: uniform(0),
      registerMaterial: (material, vtId, uv) => {
        const vt = textures[vtId];
        if (vt) feedbackPass.register(material, vt, uv);
        // Compiled during this frame's main render, after its feedback pass: only later feedback sees it.
        this.settle.noteRegistration(this.frame);
      },
    };
    this.uploadHandler = (vt, slot, _pageId, data) => {
      this.poolTextures.writeTiles((textures[vt] as VirtualTexture).poolLayerSource, slot, data.layers);
      this.stages.recycle(vt, data);
      return true;
    };
  }

  /**
   * Adds a virtual texture served by `source`, its layers mapped onto the pool's by
   * `options.layers` (default: by name, else by position). Throws a {@link TesseraConfigError}:
   * 'invalid-tile' when its tile size or border differ from the system's, 'invalid-layers' when a
   * mapped layer is missing or its format differs from the pool layer's, 'budget-too-small' when
   * its page table does not fit the page-table reserve or one of its tiles `stagingBytes`,
   * 'pool-too-small' when the pool cannot hold every texture's pinned pages, 'invalid-option'
   * when 16 textures exist.
   */
  add(source: TileSource, options: VirtualTextureAddOptions = {}): VirtualTexture {
    this.assertLive();
    const info = source.info;
    const layout = VirtualTextureLayout.fromSourceInfo(info);
    if (layout.tileSize !== this.tileSize || layout.border !== this.border) {
      throw new TesseraConfigError(
        'invalid-tile',
        `source tiles are ${layout.tileSize}/${layout.border}, the system's ${this.tileSize}/${this.border}`,
      );
    }
    const name = options.name ?? `vt${this.textures.length}`;
    const poolLayerSource = mapSourceLayers(name, info.layers, this.poolLayers, options.layers);
    const tableBytes = layout.pageTableBytes;
    if (this.pageTableUsed + tableBytes > this.pageTableReserve) {
      throw new TesseraConfigError(
        'budget-too-small',
        `page table of '${name}' needs ${tableBytes} bytes; ${this.pageTableReserve - this.pageTableUsed} left of pageTableBytes`,
      );
    }
    const loaded = this.stages.wrap(source, poolLayerSource);
    const id = this.streamer.registerTexture(loaded);
    this.stages.bind(id, loaded);
    const pageTable = this.streamer.pageTable(id);
    const table = new PageTableTexture(
      this.bridge,
      name,
      layout.widthPages,
      layout.heightPages,
      layout.mipCount,
    );
    this.pageTableUsed += table.bytes;
    const vt = new VirtualTexture(id, name, source, layout, pageTable, table, this.context, poolLayerSource);
    this.textures[id] = vt;
    // The GPU table starts as zeros; write every level once (all EMPTY_ENTRY).
    pageTable.markAllDirty();
    vt.flushPageTable();
    return vt;
  }

  /**
   * Runs one frame of streaming; call once per frame before `renderer.render(scene, camera)`.
   * Writes finished tiles and page-table changes, then renders the feedback pass of `scene` seen
   * by `camera` (at the renderer's current drawing-buffer size) and starts its readback.
   */
  update(camera: Camera, scene: Scene): void {
    this.assertLive();
    this.frame++;
    const frame = this.frame;
    this.streamer.beginFrame(frame);
    this.streamer.update();
    this.context.mipBias.value = this.streamer.mipBias;
    this.evictable.release(frame);
    this.uploadsLastFrame = this.streamer.drainUploads(this.uploadHandler);
    this.uploadsTotal += this.uploadsLastFrame;
    for (let i = 0; i < this.textures.length; i++) {
      const vt = this.textures[i];
      if (vt && vt.pageTable.dirty.entryCount() > 0) vt.flushPageTable();
    }
    if (this.settle.waiting > 0 && this.isSettled) this.settle.resolve();
    this.feedback.render(scene, camera, frame);
  }

  /** True once every added texture has its coarsest mip resident (keep calling `update` until then). */
  get isReady(): boolean {
    for (const vt of this.textures) if (vt && !vt.isReady) return false;
    return true;
  }

  /**
   * True when streaming is done for the current view: every texture ready, nothing queued, loading
   * or awaiting upload (failed pages count as done), and since the latest feedback that found a
   * missing page, feedback at 4 of the 16 sub-pixel jitter offsets found none (each jittered
   * feedback frame samples the view at a different offset; a page covering only a few screen
   * pixels may still be requested later). Counts only feedback rendered after the
   * latest material using a virtual texture was compiled. See {@link whenSettled}.
   */
  get isSettled(): boolean {
    const s = this.streamer.stats();
    return this.settle.quiet && s.queued === 0 && s.inFlight === 0 && s.pendingUploads === 0 && this.isReady;
  }

  /**
   * Resolves with a frame number once streaming has settled ({@link isSettled}) on a feedback
   * rendered after this call (so a camera move just before it counts). Keep calling
   * {@link update}; rejects with TesseraError('disposed') if the system is disposed first.
   */
  whenSettled(): Promise<number> {
    this.assertLive();
    return this.settle.whenSettled(this.frame + 1);
  }

  /** Frames started by {@link update} so far (the frame number recency and feedback use). */
  get currentFrame(): number {
    return this.frame;
  }

  /** Exact GPU bytes by category and streaming counters (allocates: for HUDs and tests). */
  stats(): VirtualTextureSystemStats {
    const poolLayers = this.poolTextures.bytesPerLayer.slice();
    const pageTables = this.pageTableUsed;
    const live = !this.disposed;
    const feedbackTargets = live ? this.feedback.targetBytes : 0;
    const readbackBuffers = live ? this.feedback.readbackBytes : 0;
    const total = poolLayers.reduce((a, b) => a + b, 0) + pageTables + feedbackTargets + readbackBuffers;
    const s = this.streamer.stats();
    const byCategory: VirtualTextureReservedBytes = live
      ? {
          'vt-pool': this.poolBytes,
          'page-table': this.pageTableReserve,
          feedback: this.feedback.reservedTargetBytes,
          readback: this.feedback.reservedReadbackBytes,
          staging: s.stagingBytes,
        }
      : { 'vt-pool': 0, 'page-table': 0, feedback: 0, readback: 0, staging: 0 };
    return {
      frame: this.frame,
      gpuBytes: { poolLayers, pageTables, feedbackTargets, readbackBuffers, total },
      byCategory,
      poolFormats: this.poolTextures.formats.slice(),
      slotCount: this.streamer.pool.slotCount,
      residentPages: this.streamer.pool.residentCount,
      uploadsLastFrame: this.uploadsLastFrame,
      uploadsTotal: this.uploadsTotal,
      mipBias: this.streamer.mipBias,
      poolEfficiency: poolEfficiency(this.streamer.pool, this.frame),
      readbacks: { ...this.feedback.counters },
      feedbackSize: { width: this.feedback.width, height: this.feedback.height },
      streaming: {
        queued: s.queued,
        loading: s.inFlight,
        awaitingUpload: s.pendingUploads,
        stagedBytes: s.stagedBytes,
        failed: s.failed,
        lastFeedbackFrame: this.settle.lastFeedbackFrame,
        settled: live && this.isSettled,
      },
    };
  }

  /** Frees every GPU resource, material and pending load. The system cannot be used afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.streamer.dispose();
    this.feedback.dispose();
    this.poolTextures.dispose();
    this.stages.dispose();
    for (let i = 0; i < this.textures.length; i++) {
      const vt = this.textures[i];
      if (vt) vt.pageTableTexture.dispose();
      this.textures[i] = null;
    }
    this.pageTableUsed = 0;
    for (const handle of this.reservations) this.budget.release(handle);
    this.reservations.length = 0;
    this.evictable.clear();
    this.settle.rejectAll(new TesseraError('disposed', 'the VirtualTextureSystem was disposed'));
    this.events.clear();
  }

  /**
   * Marks `vt` (a texture or its id, e.g. a transition's `vtHandle`) as evictable, or not again:
   * from the next {@link update} on, its resident non-pinned pages that have been out of view for a
   * few frames are freed (up to `evictPagesPerFrame` per frame), so their slots are the first that
   * new pages take. Pages still on screen stay; its pinned mips always stay, so it keeps rendering.
   * Wire it to a transition with
   * `streaming.transition(from, to, { onVtEvictable: (id) => vtSystem.makeEvictable(id) })`.
   * @throws TesseraError('unknown-texture') for a texture not in this system.
   */
  makeEvictable(vt: VirtualTexture | number, evictable = true): void {
    this.assertLive();
    const id = typeof vt === 'number' ? vt : vt.id;
    const known = Number.isInteger(id) && id >= 0 && id < 16 && this.textures[id];
    if (!known || (typeof vt !== 'number' && this.textures[id] !== vt)) {
      throw new TesseraError('unknown-texture', `no virtual texture ${id} in this system`);
    }
    this.evictable.mark(id, evictable);
  }

  /** True when `vt` was marked with {@link makeEvictable}. */
  isEvictable(vt: VirtualTexture | number): boolean {
    return this.evictable.has(typeof vt === 'number' ? vt : vt.id);
  }

  private onFeedback(ids: Uint32Array, frame: number, width: number, height: number): void {
    if (this.disposed) return;
    this.streamer.submitFeedback(ids, width * height);
    const s = this.streamer.stats();
    this.settle.noteFeedback(frame, s.queued + s.inFlight + s.pendingUploads);
    if (!this.events.has('feedback')) return;
    const event = this.feedbackEvent;
    event.frame = frame;
    event.ids = ids;
    event.width = width;
    event.height = height;
    this.events.emit('feedback', event);
  }

  private assertLive(): void {
    if (this.disposed) throw new TesseraError('disposed', 'this VirtualTextureSystem was disposed');
  }
}

export type { VirtualTextureSystemOptions } from './virtual-texture-system-options';
export type {
  VirtualTextureAddOptions,
  VirtualTextureGpuBytes,
  VirtualTextureReservedBytes,
  VirtualTextureStreamingState,
  VirtualTextureSystemEvents,
  VirtualTextureSystemStats,
} from './virtual-texture-system-types';
