import type { Camera, Scene } from 'three';
import { uniform } from 'three/tsl';
import type { WebGPURenderer } from 'three/webgpu';
import type { TextureBudget } from '../core/budget/texture-budget';
import { warnDeprecated } from '../core/deprecation';
import { TesseraError } from '../core/errors';
import { TypedEmitter } from '../core/structures/typed-emitter';
import { NO_REQUEST, pageMip, pageVt } from '../core/vt/page-id';
import { poolEfficiency } from '../core/vt/residency/pool-efficiency';
import { SettleTracker } from '../core/vt/settle-tracker';
import type { TileSource } from '../core/vt/tile-source';
import { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import { BackendBridge } from './backend-bridge';
import type { FeedbackCollector } from './feedback/feedback-collector';
import { SystemFeedback } from './feedback/system-feedback';
import { PageProducers } from './page-producers';
import { EvictableTextures } from './residency/evictable-textures';
import { LivePool } from './residency/live-pool';
import { choosePoolFormats } from './residency/pool-format-choice';
import type { PoolResizeOutcome } from './residency/pool-resize';
import { PoolTextures } from './residency/pool-textures';
import { MaterialRegistry } from './sampling/material-registry';
import {
  poolSampling,
  type SamplingContext,
  type VirtualTextureFiltering,
} from './sampling/sampling-context';
import { ownSystemRuntime, type RuntimeMember, runtimeMember, type TesseraRuntime } from './tessera-runtime';
import { TileUploads } from './uploads/tile-uploads';
import type { VirtualTexture } from './virtual-texture';
import { planSystemReservations } from './virtual-texture-reservations';
import { VirtualTextureSet } from './virtual-texture-set';
import {
  checkFiltering,
  positiveInteger,
  resolveSystemOptions,
  type VirtualTextureSystemOptions,
} from './virtual-texture-system-options';
import type {
  VirtualTextureAddOptions,
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
  /** Typed events: `error`, `page-loaded`, `page-refreshed`, `page-evicted`, `feedback`. */
  readonly events = new TypedEmitter<VirtualTextureSystemEvents>();
  /** Tile side including border, in texels. */
  readonly tileSize: number;
  /** Border inside each tile side, in texels. */
  readonly border: number;
  /** @internal the core streamer (feedback analysis, scheduling, pool, page tables). */
  readonly streamer: VirtualTextureStreamer;
  /** The budget the reservations come from (the runtime's, or the system's own of `budgetBytes`). */
  readonly budget: TextureBudget;
  /** The runtime this system shares its budget, client and workers with (its own when given none). */
  readonly runtime: TesseraRuntime;
  private readonly ownsRuntime: boolean;
  private readonly member: RuntimeMember;
  /** The pool textures and their reservation, resized as the budget changes. */
  private readonly pool: LivePool;
  private readonly materials = new MaterialRegistry();
  /** The feedback loop, its readbacks' consumer and the device-loss watch. */
  private readonly feedback: SystemFeedback;
  private readonly context: SamplingContext;
  private readonly set: VirtualTextureSet;
  private readonly textures: (VirtualTexture | null)[];
  /** Page-table and staging reservations (the pool and the feedback loop own theirs). */
  private readonly ownReservations: readonly number[];
  /** Textures whose out-of-view pages are freed progressively (see setEvictable). */
  private readonly evictable: EvictableTextures;
  /** True when the budget is this system's own (`budgetBytes` without `budget`). */
  private readonly ownsBudget: boolean;
  private frame = 0;
  private disposed = false;
  private uploadsPerFrame: number;
  private readonly settle = new SettleTracker();
  /** The sampling context's `version` at the latest update (a change renders the feedback pass). */
  private feedbackGraphsVersion = -1;
  /** Tile writes into the pool, per frame, each page through its texture's producer. */
  private readonly uploads: TileUploads;
  /** How each texture's pages are made (loaded bytes, or the rendered-tiles plug-in). */
  private readonly producers: PageProducers;

  /**
   * @throws TesseraConfigError: 'invalid-option' / 'invalid-layers' for bad options,
   *   'budget-too-small' when the budget (or `budgetBytes`) cannot hold the page-table reserve,
   *   feedback target, readback ring and {@link VirtualTextureSystemOptions.minPoolSlots} pool
   *   slots. Nothing is reserved or allocated when it throws.
   */
  constructor(renderer: WebGPURenderer, options: VirtualTextureSystemOptions) {
    const bridge = new BackendBridge(renderer);
    const o = resolveSystemOptions(options);
    this.tileSize = o.tileSize;
    this.border = o.border;
    this.uploadsPerFrame = o.maxUploadsPerFrame;
    const formats = choosePoolFormats(bridge, o.layers, o.uastcTargets);
    // Without a runtime the system makes its own, of its budget (or around the deprecated shared
    // `budget`), and disposes it with itself.
    this.runtime =
      o.runtime ??
      ownSystemRuntime(o.shareBytes, {
        budget: o.sharedBudget,
        transcoderPath: o.transcoderPath,
        transcodeWorkers: o.transcodeWorkers,
      });
    this.ownsRuntime = o.runtime === undefined;
    // Everything is planned and reserved before any GPU allocation.
    let reservations: ReturnType<typeof planSystemReservations>;
    try {
      reservations = planSystemReservations(renderer, bridge, o, formats, this.runtime.budget);
    } catch (error) {
      if (this.ownsRuntime) this.runtime.dispose();
      throw error;
    }
    const { input, plan, budget, reserved, feedbackSize } = reservations;
    try {
      this.budget = budget;
      this.ownsBudget = o.sharedBudget === undefined;
      this.ownReservations = [reserved.pageTable, reserved.staging];
      const poolFormats = formats.map((choice) => choice.format);
      // The rendered-tiles plug-in builds its render stage at the first add() of a rendered texture.
      this.producers = new PageProducers(bridge, {
        budget,
        poolFormats,
        tileSize: o.tileSize,
        maxRendersPerFrame: o.maxRendersPerFrame,
        layers: o.layers,
        makeRoom: () => this.pool.setShare(this.pool.shareBytes),
      });
      const poolTextures = new PoolTextures(bridge, reserved.poolShape, formats);
      this.streamer = new VirtualTextureStreamer({
        pool: { slotCount: poolTextures.slotCount, replacementPolicy: o.replacementPolicy },
        maxUploadsPerFrame: this.uploadsPerFrame,
        stagingBytes: plan.stagingBytes,
        abortAfterFrames: o.abortAfterFrames,
        failedCooldownFrames: o.failedCooldownFrames,
        maxFeedbackPixels: feedbackSize.x * feedbackSize.y,
      });
      this.evictable = new EvictableTextures(this.streamer, o.evictPagesPerFrame);
      for (const type of ['page-evicted', 'page-loaded', 'page-refreshed'] as const) {
        this.streamer.on(type, (event) => this.events.emit(type, event as never));
      }
      this.streamer.on('error', ({ error, vt, pageId }) => {
        const texture = this.textures[vt];
        if (texture) this.events.emit('error', { error, texture, pageId, vt });
      });
      const size = { width: feedbackSize.x, height: feedbackSize.y };
      const sinks = {
        streamer: this.streamer,
        settle: this.settle,
        events: this.events,
        buffersReplaced: () => this.graphsChanged(),
      };
      this.feedback = new SystemFeedback(
        bridge,
        budget,
        o.feedbackScale,
        size,
        reserved,
        sinks,
        o.feedbackMode,
        o.stillFeedbackInterval,
      );
      this.context = {
        ...poolSampling(poolTextures),
        filtering: o.filtering,
        maxAnisotropy: o.anisotropy,
        version: 0,
        feedbackLodOffset: this.feedback.collector.lodOffset,
        requestWriter: this.feedback.collector.requestWriter,
        mipBias: uniform(0),
        registerMaterial: (material, vtId, uv) => {
          const vt = this.textures[vtId];
          if (vt && this.feedback.register(material, vt, uv)) this.materials.add(material);
          // Compiled during this frame's main render, after its feedback pass: only later feedback sees it.
          this.settle.noteRegistration(this.frame);
          this.feedback.collector.markViewChanged();
        },
        invalidatePages: (vt, rect, units) =>
          this.producers.invalidate(vt.id, vt.name, vt.source, rect, units, this.streamer),
      };
      const tables = { budget, handle: reserved.pageTable, texturesChanged: () => this.graphsChanged() };
      const runtime = this.runtime;
      this.set = new VirtualTextureSet(
        bridge,
        this.streamer,
        this.context,
        tables,
        formats,
        o,
        this.producers,
        () => runtime.transcoderPool(),
      );
      this.textures = this.set.textures;
      const poolContext = { bridge, budget, streamer: this.streamer, formats, slotBytes: plan.slotBytes };
      const allocation = { textures: poolTextures, reservation: reserved.pool };
      this.pool = new LivePool(poolContext, allocation, input, o.shareBytes, {
        otherBytes: () =>
          // The page tables' whole share: their reservation grows into it, never the pool.
          this.budget.bytesOf(reserved.staging) +
          this.set.reserveBytes +
          this.feedback.collector.reservedBytes +
          this.producers.budgetedBytes,
        minSlots: () => Math.max(o.minPoolSlots, this.set.pinnedPages()),
        resized: (pool, outcome) => this.poolResized(pool, outcome),
      });
      this.uploads = new TileUploads(this.streamer, this.pool, this.set, this.producers);
      this.member = runtimeMember(this, 0);
      this.runtime.attach(this.member);
    } catch (error) {
      // Nothing stays reserved or running when construction fails after planning.
      for (const handle of [
        reserved.feedback,
        reserved.readback,
        reserved.pageTable,
        reserved.staging,
        reserved.pool,
      ]) {
        budget.release(handle);
      }
      if (this.ownsRuntime) this.runtime.dispose();
      throw error;
    }
  }

  /**
   * Adds a virtual texture served by `source`, its layers mapped onto the pool's by `options.layers`
   * (default: by name, else by position). Only a `RenderedTileSource` may use `rendered` pool layers;
   * the first reserves render targets and compressors (the pool shrinks to make room if needed).
   * @throws TesseraConfigError 'invalid-tile' (tile size or border differ from the system's),
   *   'invalid-layers' (a mapped layer missing or of another format), 'budget-too-small' (its page
   *   table or render targets do not fit), 'pool-too-small' (pinned pages), 'invalid-option' (16 exist).
   */
  add(source: TileSource, options: VirtualTextureAddOptions = {}): VirtualTexture {
    this.assertLive();
    return this.set.add(source, options);
  }

  /**
   * Releases `vt`: aborts its loads, frees its pool slots and its page table (its share of the
   * page-table reserve goes back for later `add`s); the other textures keep streaming. Materials
   * sampling it keep working and draw transparent black (as before its coarsest mip loaded), and
   * request nothing; using it afterwards (`virtualTexture(vt)`, `setEvictable`, `remove`) throws.
   * Does not dispose its source (the caller owns it).
   * @throws TesseraError('unknown-texture') for a texture not in this system (or already removed).
   */
  remove(vt: VirtualTexture): void {
    this.assertLive();
    const id = this.set.remove(vt);
    this.pool.pinnedTiles.deleteTexture(id);
    this.evictable.mark(id, false);
    // Rebuilds the materials sampling it (they stop binding its page table) at their next draw.
    this.graphsChanged();
  }

  /**
   * Switches the filtering of every sampling node, and the feedback's mip rule with it, without a
   * new material: materials using virtual textures recompile at their next draw.
   * @throws TesseraConfigError('invalid-option') for an unknown mode.
   */
  setFiltering(mode: VirtualTextureFiltering): void {
    this.assertLive();
    checkFiltering(mode);
    if (mode === this.context.filtering) return;
    this.context.filtering = mode;
    this.graphsChanged();
  }

  /** Filtering of the sampling nodes now. */
  get filtering(): VirtualTextureFiltering {
    return this.context.filtering;
  }

  /** Most tiles written into the pool per frame (set with {@link setMaxUploadsPerFrame}). */
  get maxUploadsPerFrame(): number {
    return this.uploadsPerFrame;
  }

  /** Sets the most tiles written per frame, from the next {@link update} on. @throws TesseraConfigError('invalid-option') */
  setMaxUploadsPerFrame(tiles: number): void {
    this.assertLive();
    this.uploadsPerFrame = positiveInteger('maxUploadsPerFrame', tiles);
  }

  /**
   * The page each slot of the shared pool holds now (a packed page id, see `@tessera-vt/tessera/core`'s
   * `pageVt` / `pageMip` / `pageX` / `pageY`; `NO_REQUEST` for a free slot): a read-only view for
   * diagnostics (residency maps, histograms), valid until the next {@link update}. Do not write it.
   */
  get slotPages(): ArrayLike<number> {
    return this.streamer.pool.slotPages;
  }

  /**
   * Resident pages of `vt` per mip level (index 0 the finest), counted from {@link slotPages} into
   * `out` (resized to the texture's mip count; allocates only when not given).
   * @throws TesseraError('unknown-texture') for a removed texture.
   */
  residentPagesByMip(vt: VirtualTexture, out: number[] = []): number[] {
    if (vt.removed) throw new TesseraError('unknown-texture', `virtual texture '${vt.name}' was removed`);
    const mips = vt.pageTable.layout.mipCount;
    out.length = mips;
    out.fill(0);
    const pages = this.streamer.pool.slotPages;
    for (let i = 0; i < pages.length; i++) {
      const id = pages[i];
      if (id !== NO_REQUEST && pageVt(id) === vt.id) out[pageMip(id)]++;
    }
    return out;
  }

  /**
   * Sets the screen pixels per feedback pixel (any positive integer): the feedback target is resized
   * and re-reserved within the budget at the next {@link update}, as after a canvas resize.
   * @throws TesseraConfigError('invalid-option')
   */
  setFeedbackScale(scale: number): void {
    this.assertLive();
    this.feedback.collector.setScale(positiveInteger('feedbackScale', scale));
  }

  /** Screen pixels per feedback pixel now. */
  get feedbackScale(): number {
    return this.feedback.collector.feedbackScale;
  }

  /**
   * Sets the frames between separate feedback passes while the view is still (a positive integer;
   * 1 renders the pass every frame), from the next {@link update} on; see
   * {@link VirtualTextureSystemOptions.stillFeedbackInterval}. No effect with main-pass feedback.
   * @throws TesseraConfigError('invalid-option')
   */
  setStillFeedbackInterval(frames: number): void {
    this.assertLive();
    this.feedback.collector.setStillFeedbackInterval(positiveInteger('stillFeedbackInterval', frames));
  }

  /** Frames between separate feedback passes while the view is still, now. */
  get stillFeedbackInterval(): number {
    return this.feedback.collector.stillFeedbackInterval;
  }

  /**
   * Changes this system's share of the budget, in bytes: the pool shrinks or grows now, no rebuild
   * (see `LivePool`: GPU memory never passes the budget, pinned mips always stay, a grow keeps
   * every page). With its own budget (`budgetBytes`, no runtime) the budget follows the share. A
   * cut of a shared budget (`TextureBudget.setBudget`) needs no call: the pool is its shedder,
   * after the streamed textures, and grows back when room returns.
   * @throws TesseraConfigError('budget-too-small') below the page tables, feedback, readback and
   *   the fewest pool slots; nothing changes then.
   */
  setShareBytes(bytes: number): void {
    this.assertLive();
    const own = this.ownsBudget;
    if (own && bytes > this.budget.budgetBytes) this.budget.setBudget(Math.floor(bytes));
    this.pool.setShare(bytes);
    if (own && bytes < this.budget.budgetBytes) this.budget.setBudget(Math.floor(bytes));
  }

  /** This system's share of the budget, in bytes (see {@link setShareBytes}). */
  get shareBytes(): number {
    return this.pool.shareBytes;
  }

  /**
   * Changes this system's share of the budget, in bytes.
   * @throws as {@link setShareBytes}.
   * @deprecated Use {@link setShareBytes} (the same).
   */
  setBudgetShare(bytes: number): void {
    warnDeprecated('VirtualTextureSystem.setBudgetShare', 'setShareBytes');
    this.setShareBytes(bytes);
  }

  /**
   * This system's share of the budget, in bytes.
   * @deprecated Use {@link shareBytes} (the same).
   */
  get budgetShare(): number {
    warnDeprecated('VirtualTextureSystem.budgetShare', 'shareBytes');
    return this.shareBytes;
  }

  /**
   * Runs one frame of streaming; call once per frame before `renderer.render(scene, camera)`.
   * Writes finished tiles and page-table changes, then renders the feedback pass of `scene` seen
   * by `camera` (at the renderer's current drawing-buffer size) and starts its readback.
   */
  update(camera: Camera, scene: Scene): void {
    this.assertLive();
    if (this.feedback.checkLost()) return;
    this.frame++;
    const frame = this.frame;
    this.pool.update(frame);
    this.streamer.beginFrame(frame);
    this.streamer.update();
    const mipBias = this.streamer.mipBias;
    // The bias and the sampling graphs change what the feedback requests, not what it draws.
    if (mipBias !== this.context.mipBias.value || this.context.version !== this.feedbackGraphsVersion) {
      this.feedback.collector.markViewChanged();
      this.feedbackGraphsVersion = this.context.version;
    }
    this.context.mipBias.value = mipBias;
    this.evictable.release(frame);
    this.set.sizeAtlases(this.uploadsPerFrame, frame);
    this.uploads.run(this.uploadsPerFrame);
    this.set.flush();
    if (this.settle.waiting > 0 && this.isSettled) this.settle.resolve();
    this.feedback.render(scene, camera, frame);
  }

  /** True once the GPU device (or WebGL2 context) was lost and {@link recover} was not called since. */
  get deviceLost(): boolean {
    return this.feedback.lost;
  }

  /**
   * Moves the system onto `renderer` (a new, initialised one after a device loss: three r187 does not
   * recover a lost renderer): pool, page tables and feedback are recreated with the same reservations,
   * the pinned pages written back from CPU copies, the rest streamed again;
   * textures, nodes and materials keep working. @throws TesseraConfigError('invalid-option') if not initialised.
   */
  recover(renderer: WebGPURenderer): void {
    this.assertLive();
    const bridge = new BackendBridge(renderer);
    this.feedback.recover(bridge);
    this.context.feedbackLodOffset = this.feedback.collector.lodOffset;
    this.context.requestWriter = this.feedback.collector.requestWriter;
    this.set.recover(bridge);
    this.pool.recover(bridge);
  }

  /** True once every added texture has its coarsest mip resident (keep calling `update` until then). */
  get isReady(): boolean {
    for (const vt of this.textures) if (vt && !vt.isReady) return false;
    return true;
  }

  /**
   * True when streaming is done for the current view: every texture ready, nothing queued, loading
   * or awaiting upload (failed pages count as done, and so does a texture whose coarsest page
   * failed), and since the latest feedback that found a
   * missing page, feedback at 4 of the 16 jitter offsets found none (see ARCHITECTURE.md, "Settling").
   */
  get isSettled(): boolean {
    const s = this.streamer.stats();
    return (
      this.settle.quiet && s.queued === 0 && s.inFlight === 0 && s.pendingUploads === 0 && this.fallbacksDone
    );
  }

  /**
   * Every texture ready, or its coarsest page failed for good (e.g. no transcoder: it shows the
   * placeholder, reported by the `error` event), so a failure settles instead of waiting forever.
   */
  private get fallbacksDone(): boolean {
    for (const vt of this.textures)
      if (vt && !vt.isReady && !this.streamer.coarsestFailed(vt.id)) return false;
    return true;
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
  get frameNumber(): number {
    return this.frame;
  }

  /**
   * Frames run through `update`.
   * @deprecated Use {@link frameNumber} (the same).
   */
  get currentFrame(): number {
    warnDeprecated('VirtualTextureSystem.currentFrame', 'frameNumber');
    return this.frame;
  }

  /** Sets the most pages of rendered textures rendered per frame. @throws TesseraConfigError('invalid-option') */
  setMaxRendersPerFrame(pages: number): void {
    this.assertLive();
    this.producers.maxRendersPerFrame = positiveInteger('maxRendersPerFrame', pages);
  }

  /** Most pages of rendered textures rendered per frame (see {@link setMaxRendersPerFrame}). */
  get maxRendersPerFrame(): number {
    return this.producers.maxRendersPerFrame;
  }

  /** Exact GPU bytes by category and streaming counters (allocates: for HUDs and tests). */
  stats(): VirtualTextureSystemStats {
    const live = !this.disposed;
    return systemStats({
      live,
      frame: this.frame,
      budget: this.budget,
      pool: this.pool,
      set: this.set,
      feedback: this.feedback.collector,
      analysisMs: this.feedback.analysisMs,
      streamer: this.streamer,
      uploads: this.uploads,
      producers: this.producers,
      lastFeedbackFrame: this.settle.lastFeedbackFrame,
      settled: live && this.isSettled,
    });
  }

  /**
   * Frees every GPU resource, material and pending load, and leaves its runtime (disposing it when
   * it is the system's own). The system cannot be used afterwards.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.runtime.detach(this.member);
    this.streamer.dispose();
    this.feedback.dispose();
    this.pool.dispose();
    this.set.dispose();
    for (const handle of this.ownReservations) this.budget.release(handle);
    this.materials.clear();
    this.evictable.clear();
    this.settle.rejectAll(new TesseraError('disposed', 'the VirtualTextureSystem was disposed'));
    this.events.clear();
    if (this.ownsRuntime) this.runtime.dispose();
  }

  /**
   * Marks `vt` (a texture or its id, e.g. a transition's `vtHandle`) as evictable, or not again:
   * from the next {@link update} on, its resident non-pinned pages that have been out of view for a
   * few frames are freed (up to `evictPagesPerFrame` per frame), so their slots are the first that
   * new pages take. Pages still on screen stay; its pinned mips always stay, so it keeps rendering.
   * Wire it to a transition with
   * `streaming.transition(from, to, { onVtEvictable: (id) => vtSystem.setEvictable(id, true) })`.
   * @throws TesseraError('unknown-texture') for a texture not in this system.
   */
  setEvictable(vt: VirtualTexture | number, evictable: boolean): void {
    this.assertLive();
    this.evictable.mark(this.set.idOf(vt), evictable);
  }

  /**
   * Marks a texture evictable (`evictable`, default true) or not.
   * @throws as {@link setEvictable}.
   * @deprecated Use {@link setEvictable}, whose flag is not optional.
   */
  makeEvictable(vt: VirtualTexture | number, evictable = true): void {
    warnDeprecated('VirtualTextureSystem.makeEvictable', 'setEvictable');
    this.setEvictable(vt, evictable);
  }

  /** True when `vt` was marked with {@link setEvictable}. */
  isEvictable(vt: VirtualTexture | number): boolean {
    return this.evictable.has(typeof vt === 'number' ? vt : vt.id);
  }

  /** Something compiled into the node graphs changed: materials recompile at their next draw. */
  private graphsChanged(): void {
    this.context.version++;
    this.materials.invalidate();
  }

  /**
   * The pool was reallocated (slots moved): sampling follows at once, before anything renders.
   * Rendered pages have no CPU copy: without a GPU copy they render again now.
   */
  private poolResized(pool: PoolTextures, outcome: PoolResizeOutcome): void {
    Object.assign(this.context, poolSampling(pool));
    this.graphsChanged();
    this.set.flush();
    if (outcome === 'shed-first') this.producers.poolRebuilt(this.streamer, pool);
  }

  private assertLive(): void {
    if (this.disposed) throw new TesseraError('disposed', 'this VirtualTextureSystem was disposed');
  }
}

/** What {@link systemStats} reads of a live (or disposed) system. */
export interface SystemStatsInput {
  live: boolean;
  frame: number;
  budget: TextureBudget;
  pool: LivePool;
  set: VirtualTextureSet;
  feedback: FeedbackCollector;
  /** CPU time analysing feedback so far, in milliseconds. */
  analysisMs: number;
  streamer: VirtualTextureStreamer;
  uploads: TileUploads;
  /** The page producers (the rendered-tiles plug-in's counters and bytes). */
  producers: PageProducers;
  lastFeedbackFrame: number;
  settled: boolean;
}

/** HTTP retries of the virtual textures' sources (a client several sources share counted once). */
function requestRetries(textures: readonly ({ source: TileSource } | null)[]): number {
  const seen = new Set<object>();
  let retries = 0;
  for (const vt of textures) {
    const counters = vt?.source.requestCounters;
    if (counters === undefined || seen.has(counters)) continue;
    seen.add(counters);
    retries += counters.retries;
  }
  return retries;
}

/** The {@link VirtualTextureSystemStats} snapshot (allocates: for HUDs and tests). */
export function systemStats(i: SystemStatsInput): VirtualTextureSystemStats {
  const textures = i.pool.textures;
  const poolLayers = i.live ? textures.bytesPerLayer.slice() : [];
  const pageTables = i.set.usedBytes;
  const feedbackTargets = i.live ? i.feedback.targetBytes : 0;
  const readbackBuffers = i.live ? i.feedback.readbackBytes : 0;
  const rendering = i.producers;
  const renderTargets = i.live ? rendering.allocatedBytes : 0;
  const total =
    poolLayers.reduce((a, b) => a + b, 0) + pageTables + feedbackTargets + readbackBuffers + renderTargets;
  const pool = i.streamer.pool;
  const s = i.streamer.stats();
  return {
    frame: i.frame,
    gpuBytes: { poolLayers, pageTables, feedbackTargets, readbackBuffers, renderTargets, total },
    byCategory: i.live
      ? {
          'vt-pool': i.pool.reservedBytes,
          'page-table': i.set.usedBytes,
          feedback: i.feedback.reservedTargetBytes,
          readback: i.feedback.reservedReadbackBytes,
          staging: s.stagingBytes + rendering.reservedBytes,
        }
      : { 'vt-pool': 0, 'page-table': 0, feedback: 0, readback: 0, staging: 0 },
    pageTableShareBytes: i.set.reserveBytes,
    poolFormats: textures.formats.slice(),
    slotCount: pool.slotCount,
    residentPages: pool.residentCount,
    uploadsLastFrame: i.uploads.lastFrame,
    uploadsTotal: i.uploads.total,
    rendering: { ...rendering.renderCounters },
    mipBias: i.streamer.mipBias,
    poolEfficiency: poolEfficiency(pool, i.frame),
    readbacks: {
      started: i.feedback.counters.started,
      delivered: i.feedback.counters.delivered,
      dropped: i.feedback.counters.dropped,
      skipped: i.feedback.counters.skipped,
      skippedStill: i.feedback.skippedStill,
      bytesRead: i.feedback.counters.bytesRead,
      analysisMs: i.analysisMs,
    },
    feedbackMode: i.feedback.mode,
    feedbackSize: { width: i.feedback.width, height: i.feedback.height },
    budget: i.budget.stats(),
    streaming: {
      queued: s.queued,
      loading: s.inFlight,
      awaitingUpload: s.pendingUploads,
      stagedBytes: s.stagedBytes,
      failed: s.failed,
      failedTotal: s.failedTotal,
      retries: requestRetries(i.set.textures),
      lastFeedbackFrame: i.lastFeedbackFrame,
      settled: i.settled,
    },
  };
}
