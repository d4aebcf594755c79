import type { Camera, Mesh, Object3D } from 'three';
import { SRGBColorSpace } from 'three';
import type { TextureNode, WebGPURenderer } from 'three/webgpu';
import type { TextureBudget } from '../../core/budget/texture-budget';
import type { TextureBudgetStats } from '../../core/budget/texture-budget-options';
import { textureLevelRangeBytes } from '../../core/budget/texture-bytes';
import { warnDeprecated } from '../../core/deprecation';
import { TesseraConfigError, TesseraError } from '../../core/errors';
import {
  checkPyramidShape,
  type EncodedPyramidSource,
  levelWidth,
  type MipPyramidSource,
  withSourceColorEncoding,
} from '../../core/streaming/mip-pyramid-source';
import type { MipStreamingPlannerOptions } from '../../core/streaming/planning/mip-streaming-options';
import { MipStreamingPlanner, PINNED_MAX_EDGE } from '../../core/streaming/planning/mip-streaming-planner';
import { ShedLevelCache } from '../../core/streaming/planning/shed-level-cache';
import type { StreamingProgress } from '../../core/streaming/streaming-progress';
import type { StaleSweepOptions } from '../../core/streaming/sweep/stale-sweep';
import { type LifetimePolicy, StaleSweep } from '../../core/streaming/sweep/stale-sweep';
import { ManagedTextureRegistry } from '../../core/streaming/texture-registry';
import { SceneTransition } from '../../core/streaming/transitions/scene-transition';
import { FrameWaiters } from '../../core/structures/frame-waiters';
import { TypedEmitter } from '../../core/structures/typed-emitter';
import type { HttpClient } from '../../sources/io/http/http-client';
import { BackendBridge } from '../backend-bridge';
import {
  checkSystemRuntimeOptions,
  ownSystemRuntime,
  type RuntimeMember,
  runtimeMember,
  type TesseraRuntime,
} from '../tessera-runtime';
import { LiveStreamedTextures } from './live-streamed-textures';
import { TextureNeedEstimator } from './need/texture-need-estimator';
import { MeshAttachments } from './sampling/mesh-attachments';
import { StreamingPlaceholders } from './sampling/streaming-placeholders';
import { type TextureSampling, textureSampling } from './sampling/texture-sampling';
import { StreamedTexture, type StreamedTextureOptions } from './streamed-texture';
import {
  type SceneTextures,
  StreamingTransition,
  type StreamingTransitionOptions,
  sceneSide,
} from './transitions/streaming-transition';
import { StreamedChainBackend } from './uploads/streamed-chain-backend';
import { checkStreamableSource } from './uploads/streamed-format-support';
import type { StreamedTranscodingOptions } from './uploads/streamed-transcoding';
import { StreamedTranscoding } from './uploads/streamed-transcoding';

/**
 * Mip streaming of ordinary three.js textures under its runtime's budget (see
 * {@link TesseraRuntime}): adds
 * {@link StreamedTexture}s, feeds the screen need of the meshes using them to the core
 * {@link MipStreamingPlanner}, swaps chains into materials, sweeps stale textures and runs scene
 * transitions. A thin orchestrator: `StreamedChainBackend` owns the GPU chains (the planner's
 * `StreamingBackend`), `MeshAttachments` and `TextureNeedEstimator` the screen need,
 * `StreamingPlaceholders` what is bound while nothing is resident.
 *
 * ```ts
 * const streaming = new TextureStreamingSystem(renderer, { budgetBytes: 64 << 20 });
 * const rock = streaming.add(new LevelListSource(levels), { tag: 'scene:cave', core: true });
 * streaming.attach(mesh, rock); // mesh.material.map follows the resident chain
 * renderer.setAnimationLoop(() => { streaming.update(camera, scene); renderer.render(scene, camera); });
 * await streaming.whenSettled(); // every texture at the level the view and the budget allow
 * ```
 */
export class TextureStreamingSystem {
  /** Typed events: `error`, `released`. */
  readonly events = new TypedEmitter<TextureStreamingEvents>();
  /** The budget (the runtime's, or the system's own of `budgetBytes`). */
  readonly budget: TextureBudget;
  /** The runtime this system shares its budget, client and workers with (its own when given none). */
  readonly runtime: TesseraRuntime;
  private readonly ownsRuntime: boolean;
  private readonly member: RuntimeMember;
  /**
   * The HTTP client of this system's network reads: the glTF registrations on it open their KTX2
   * files and fetch their images and `.glb` files through it (its retry policy, per-host cap and
   * counters). The `http` option, or the runtime's client, which every source given the runtime
   * shares: `stats().streaming.retries` is then that client's, all its sources included.
   */
  readonly http: HttpClient;
  /** @internal every managed texture (ids, tags, last use, reference counts). */
  readonly registry: ManagedTextureRegistry;
  /** @internal the core planner. */
  readonly planner: MipStreamingPlanner;
  /** @internal the stale sweep (see {@link setLifetimePolicy}, {@link endScene}). */
  readonly sweep: StaleSweep;
  private readonly renderer: WebGPURenderer;
  private readonly bridge: BackendBridge;
  private readonly now: () => number;
  private readonly needRefreshFrames: number;
  private readonly table = new LiveStreamedTextures();
  private readonly attachments = new MeshAttachments();
  private readonly need = new TextureNeedEstimator();
  private readonly placeholders: StreamingPlaceholders;
  private readonly transcoding: StreamedTranscoding;
  /** Bytes of the pinned chains of every live texture. */
  private pinnedTotal = 0;
  private frame = 0;
  private framesSinceNeed = Number.POSITIVE_INFINITY;
  /** Frames of the latest screen-need refresh and of the latest texture or mesh change. */
  private needFrame = 0;
  private changeFrame = 0;
  private readonly settled = new FrameWaiters();
  /** CPU copies of shed levels, so that growing back costs no network (not in the GPU budget). */
  private readonly shedLevels: ShedLevelCache;
  private active: StreamingTransition | null = null;
  private disposed = false;
  private readonly releasedEvent = { texture: null as unknown as StreamedTexture };
  private failedLevels = 0;

  /**
   * @throws TesseraConfigError('budget-too-small') when the budget is below `pinnedMinimumBytes`,
   *   ('invalid-option') for bad options or an uninitialised renderer, ('invalid-size') for a bad `shedLevelCacheBytes`.
   */
  constructor(renderer: WebGPURenderer, options: TextureStreamingSystemOptions) {
    const given = options.runtime;
    checkSystemRuntimeOptions(options, 'TextureStreamingSystemOptions');
    // Without a runtime the system makes its own, of its budget (or around the deprecated shared
    // `budget`), and disposes it with itself.
    this.runtime = given ?? ownSystemRuntime(options.budgetBytes as number, options);
    this.ownsRuntime = given === undefined;
    let placeholders: StreamingPlaceholders | undefined;
    try {
      this.budget = this.runtime.budget;
      this.http = options.http ?? this.runtime.http;
      this.needRefreshFrames = options.needRefreshFrames ?? 4;
      if (!Number.isInteger(this.needRefreshFrames) || this.needRefreshFrames < 1) {
        throw new TesseraConfigError('invalid-option', 'needRefreshFrames must be an integer >= 1.');
      }
      const bridge = new BackendBridge(renderer);
      this.bridge = bridge;
      this.renderer = renderer;
      this.now = options.now ?? (() => performance.now());
      this.registry = new ManagedTextureRegistry(this.budget.tags);
      placeholders = new StreamingPlaceholders(renderer, this.budget);
      this.placeholders = placeholders;
      const runtime = this.runtime;
      this.transcoding = new StreamedTranscoding(bridge, options, () => runtime.transcoderPool());
      this.shedLevels = new ShedLevelCache(options.shedLevelCacheBytes ?? 4 << 20);
      const backend = new StreamedChainBackend(
        bridge,
        this.table,
        this.placeholders,
        {
          completeLoad: (id, firstMip, error) => this.planner.completeLoad(id, firstMip, error),
          released: (texture) => this.forgetReleased(texture),
        },
        this.shedLevels,
      );
      this.planner = new MipStreamingPlanner(this.budget, this.registry, backend, {
        ...options.planner,
        onLoadFailed: (id, error) => {
          this.failedLevels++;
          const texture = this.table.byId(id);
          if (texture !== null) this.events.emit('error', { error, texture });
        },
      });
      this.sweep = new StaleSweep(this.registry, options.sweep);
      this.member = runtimeMember(this, 1);
      this.runtime.attach(this.member);
    } catch (error) {
      // Nothing stays allocated or running when construction fails.
      placeholders?.dispose();
      if (this.ownsRuntime) this.runtime.dispose();
      throw error;
    }
  }

  /** Frames run through {@link update}. */
  get frameNumber(): number {
    return this.frame;
  }

  /** The transition in progress, or null. */
  get transitionInProgress(): StreamingTransition | null {
    return this.active;
  }

  /**
   * Bytes of the pinned chain (levels whose edge <= 64 texels) of a texture made from `source`:
   * what must always fit in the budget for it.
   */
  static pinnedBytesOf(source: MipPyramidSource): number {
    const count = source.mipLevelCount;
    let pinned = 0;
    while (
      pinned < count - 1 &&
      Math.max(levelWidth(source.width, pinned), levelWidth(source.height, pinned)) > PINNED_MAX_EDGE
    ) {
      pinned++;
    }
    return textureLevelRangeBytes(
      { format: source.format, width: source.width, height: source.height, mipLevelCount: count },
      pinned,
      count - pinned,
    );
  }

  /**
   * Stream a texture from `source`. It binds the shared placeholder until its pinned chain loads
   * (the next {@link update}s), then streams finer mips as the meshes it is attached to need them.
   * @throws TesseraConfigError('budget-too-small') when the pinned chains of all textures would not
   *   fit the budget; ('invalid-size' | 'invalid-option') for a bad source, a block format the device
   *   lacks (BC needs `texture-compression-bc`, ETC2/EAC `-etc2`, ASTC `-astc`) or block-format
   *   levels that are not whole 4x4 blocks.
   * A UASTC source (`format` `uastc-4x4(-srgb)`, e.g. a Basis KTX2 file) streams transcoded to the
   * device's best format (BC7 > ASTC 4x4 > ETC2 > rgba8) in this system's workers: the texture's
   * `source` is then the transcoding source, whose `format` is that target.
   */
  add(encoded: EncodedPyramidSource, options: StreamedTextureOptions = {}): StreamedTexture {
    this.assertLive();
    const source = this.transcoding.prepare(
      options.colorSpace === undefined
        ? encoded
        : withSourceColorEncoding(encoded, options.colorSpace === SRGBColorSpace),
    );
    checkPyramidShape(source.width, source.height, source.mipLevelCount);
    checkStreamableSource(this.bridge, source);
    const sampling = checkedSampling(options);
    const pinnedBytes = TextureStreamingSystem.pinnedBytesOf(source);
    const placeholderBytes = this.placeholders.bytes + this.placeholders.bytesToAdd(source.format, sampling);
    if (this.pinnedTotal + pinnedBytes + placeholderBytes > this.budget.budgetBytes) {
      throw new TesseraConfigError(
        'budget-too-small',
        `The pinned mips of all streamed textures (${this.pinnedTotal + pinnedBytes} bytes) and placeholders exceed the ${this.budget.budgetBytes}-byte budget.`,
      );
    }
    const placeholder = this.placeholders.of(source.format, sampling);
    const tag = options.tag ?? 'persistent';
    const core = options.core ?? false;
    const id = this.registry.register({ tag, core }, this.frame, this.now());
    const texture = new StreamedTexture(
      id,
      options.name ?? `t${id}`,
      source,
      tag,
      core,
      placeholder,
      sampling,
    );
    texture.pinnedBytes = pinnedBytes;
    this.table.add(texture);
    this.pinnedTotal += pinnedBytes;
    try {
      this.planner.add(id, {
        format: source.format,
        width: source.width,
        height: source.height,
        mipLevelCount: source.mipLevelCount,
        uvDensity: 1,
        priorityBias: options.priorityBias,
      });
    } catch (error) {
      this.registry.evict(id);
      throw error;
    }
    this.changeFrame = this.frame;
    return texture;
  }

  /**
   * Use `texture` on `mesh`: binds it in `target` of every material of the mesh (a property name,
   * default 'map', or a TSL texture node), and counts the mesh's screen size in its mip need.
   * @throws TesseraError('unknown-texture' | 'released-twice') for a texture not live here.
   */
  attach(mesh: Mesh, texture: StreamedTexture, target: string | TextureNode = 'map'): void {
    this.table.check(texture);
    this.attachments.attach(mesh, texture, target, this.table.live);
    this.changeFrame = this.frame;
  }

  /** Stop counting `mesh` in any texture's need and forget its materials' bindings. */
  detach(mesh: Mesh): void {
    this.attachments.detach(mesh);
    this.changeFrame = this.frame;
  }

  /** Protect `texture` from sweeps and transitions. Returns the holder count. */
  retain(texture: StreamedTexture): number {
    this.table.check(texture);
    return this.registry.retain(texture.id);
  }

  /** Drop a holder taken with {@link retain}. @throws TesseraError('released-twice') at 0. */
  unretain(texture: StreamedTexture): number {
    this.table.check(texture);
    return this.registry.release(texture.id);
  }

  /**
   * Sets how long textures tagged `tag` live once nothing uses them (the stale sweep's policy for
   * the tag, overriding the defaults of the `sweep` option): `{ kind: 'never' }`, idle frames or
   * idle milliseconds.
   * @throws TesseraConfigError('invalid-option') for a malformed policy.
   */
  setLifetimePolicy(tag: string, policy: LifetimePolicy): void {
    this.sweep.setPolicy(tag, policy);
  }

  /**
   * Marks scene `sceneId` gone (`ended` true) or live again: the next sweep releases the
   * unretained textures tagged `scene:<sceneId>` of a scene that has ended.
   */
  setSceneEnded(sceneId: string, ended: boolean): void {
    if (ended) this.sweep.endScene(sceneId);
    else {
      this.sweep.beginScene(sceneId);
    }
  }

  /**
   * Removes `texture` now: every material and node using it binds the placeholder, then its GPU
   * memory is destroyed.
   * @throws TesseraError('released-twice') when already released, ('unknown-texture') for a texture
   *   of another system.
   */
  remove(texture: StreamedTexture): void {
    this.table.check(texture);
    this.registry.evict(texture.id);
  }

  /**
   * Adds a texture streamed from `encoded`.
   * @throws as {@link add}.
   * @deprecated Use {@link add} (the same).
   */
  createTexture(encoded: EncodedPyramidSource, options: StreamedTextureOptions = {}): StreamedTexture {
    warnDeprecated('TextureStreamingSystem.createTexture', 'add');
    return this.add(encoded, options);
  }

  /**
   * Removes a texture.
   * @throws as {@link remove}.
   * @deprecated Use {@link remove} (the same).
   */
  release(texture: StreamedTexture): void {
    warnDeprecated('TextureStreamingSystem.release', 'remove');
    this.remove(texture);
  }

  /**
   * Move from one scene's textures to another's (the new ones created beforehand, core ones with
   * `core: true`): loads the new core textures' pinned mips into free room, resolves `ready`,
   * then releases the old scene's textures progressively while the new one streams up. Advanced
   * by {@link update}. @throws TesseraError('transition-in-progress') while another transition runs.
   */
  transition(
    from: SceneTextures,
    to: SceneTextures,
    options: StreamingTransitionOptions = {},
  ): StreamingTransition {
    this.assertLive();
    if (this.active !== null) {
      throw new TesseraError('transition-in-progress', 'A transition is already in progress.');
    }
    const a = sceneSide(from);
    const b = sceneSide(to);
    const order = options.order ?? 'load-while-release';
    const headroom = options.headroomFraction ?? 0.1;
    this.budget.resetPeak();
    const core = new SceneTransition(
      this.budget,
      this.registry,
      this.planner,
      { textures: a.textures.map((t) => t.id), vtHandles: a.vtHandles },
      { textures: b.textures.map((t) => t.id), vtHandles: b.vtHandles },
      {
        order,
        releaseBytesPerFrame: options.releaseBytesPerFrame,
        headroomFraction: headroom,
        onVtEvictable: options.onVtEvictable,
      },
    );
    this.active = new StreamingTransition(
      core,
      this.budget,
      b.textures,
      (t) => (t.released ? 0 : this.planner.residentBytesOf(t.id)),
      headroom,
      order,
    );
    return this.active;
  }

  /**
   * One frame: advance a budget cut, refresh screen needs and last-used frames (every
   * `needRefreshFrames`), sweep stale textures, advance a transition, start loads. Call before `renderer.render(scene, camera)`.
   * @param frame the frame number (default: one more than the last).
   */
  update(camera: Camera, scene: Object3D, frame = this.frame + 1): void {
    this.assertLive();
    this.frame = frame;
    const now = this.now();
    this.budget.update();
    // Need first: it marks what is drawn this frame as used before the sweep judges idleness.
    if (++this.framesSinceNeed >= this.needRefreshFrames) {
      this.framesSinceNeed = 0;
      this.need.refresh(
        camera,
        scene,
        this.renderer.domElement.height,
        this.attachments,
        this.table,
        this.planner,
        frame,
        now,
      );
      this.needFrame = frame;
    }
    this.sweep.update(frame, now);
    if (this.active?.step()) this.active = null;
    this.planner.update(frame);
    if (this.settled.waiting > 0 && this.isSettled) this.settled.resolve(this.needFrame, frame);
  }

  /** Finest resident level of `texture` (its pinned level until finer mips load). */
  residentMipOf(texture: StreamedTexture): number {
    this.table.check(texture);
    return this.planner.residentMipOf(texture.id);
  }

  /**
   * True when streaming is done for the current view: need measured since the latest texture or mesh
   * change, no transition, nothing loading, every texture at its wanted level, or failed, or at the
   * finest the budget allows (below the view's need it settles too; see ARCHITECTURE.md).
   */
  get isSettled(): boolean {
    if (this.needFrame <= this.changeFrame || this.active !== null || this.planner.loadsInFlight > 0) {
      return false;
    }
    const live = this.table.live;
    for (let i = 0; i < live.length; i++) if (!this.planner.isSettled(live[i].id)) return false;
    return true;
  }

  /**
   * Resolves with a frame number once streaming has settled ({@link isSettled}) on a screen need
   * measured after this call (so a camera move just before it counts). Keep calling {@link update};
   * rejects with TesseraError('disposed') if the system is disposed first.
   */
  whenSettled(): Promise<number> {
    this.assertLive();
    return this.settled.wait(this.frame + 1);
  }

  /** A snapshot of the budget by category and tag, and streaming counters. */
  stats(): TextureStreamingStats {
    return {
      frame: this.frame,
      textures: this.table.live.length,
      shedLevelBytes: this.shedLevels.bytes,
      streaming: {
        queued: this.planner.queuedLoads,
        loading: this.planner.loadsInFlight,
        failed: this.failedNow(),
        failedTotal: this.failedLevels,
        retries: this.http.counters.retries,
        settled: !this.disposed && this.isSettled,
      },
      loadsInFlight: this.planner.loadsInFlight,
      failedLevels: this.failedLevels,
      retries: this.http.counters.retries,
      budget: this.budget.stats(),
    };
  }

  /** Live textures whose latest chain load failed, cooling down. */
  private failedNow(): number {
    const live = this.table.live;
    let failed = 0;
    for (let i = 0; i < live.length; i++) if (this.planner.hasFailed(live[i].id)) failed++;
    return failed;
  }

  /** Release every texture (materials bind the placeholder), then free the placeholders. */
  dispose(): void {
    if (this.disposed) return;
    if (this.active !== null) this.budget.setCap(Number.POSITIVE_INFINITY);
    this.active = null;
    const live = this.table.live;
    for (let i = live.length - 1; i >= 0; i--) {
      const texture = live[i];
      if (this.registry.has(texture.id)) this.registry.evict(texture.id);
    }
    this.placeholders.dispose();
    this.shedLevels.clear();
    this.disposed = true;
    this.runtime.detach(this.member);
    this.settled.rejectAll(new TesseraError('disposed', 'This TextureStreamingSystem was disposed.'));
    this.events.clear();
    if (this.ownsRuntime) this.runtime.dispose();
  }

  /** The backend released `texture`: it no longer counts in needs or the pinned total. */
  private forgetReleased(texture: StreamedTexture): void {
    this.attachments.forget(texture);
    this.pinnedTotal -= texture.pinnedBytes;
    if (this.events.has('released')) {
      this.releasedEvent.texture = texture;
      this.events.emit('released', this.releasedEvent);
    }
  }

  private assertLive(): void {
    if (this.disposed) throw new TesseraError('disposed', 'This TextureStreamingSystem was disposed.');
  }
}

/**
 * The sampling of `options`, checked.
 * @throws TesseraConfigError('invalid-option') for an anisotropy outside 1..16 or a uv channel that is not 0..3.
 */
function checkedSampling(options: StreamedTextureOptions): TextureSampling {
  const sampling = textureSampling(options);
  if (!(sampling.anisotropy >= 1 && sampling.anisotropy <= 16)) {
    throw new TesseraConfigError('invalid-option', `anisotropy must be 1..16, got ${sampling.anisotropy}.`);
  }
  if (!Number.isInteger(sampling.channel) || sampling.channel < 0 || sampling.channel > 3) {
    throw new TesseraConfigError(
      'invalid-option',
      `channel must be an integer 0..3, got ${sampling.channel}.`,
    );
  }
  return sampling;
}

/** Options of a `TextureStreamingSystem` (with those of UASTC transcoding). */
export interface TextureStreamingSystemOptions extends StreamedTranscodingOptions {
  /**
   * The runtime whose budget, network client and workers this system shares with the other
   * systems and sources given it; the runtime's `update` drives this system and its `dispose`
   * disposes it. Without one the system makes its own from {@link budgetBytes}.
   */
  runtime?: TesseraRuntime;
  /**
   * Without a {@link runtime}: the budget of the runtime the system makes, in bytes. Not given
   * with a runtime (its budget is the runtime's).
   */
  budgetBytes?: number;
  /**
   * A budget shared with other users.
   * @deprecated Give a {@link runtime} (its budget).
   */
  budget?: TextureBudget;
  /** Bytes that must always fit (own runtime only); a smaller budget fails at construction. */
  pinnedMinimumBytes?: number;
  /** Mip streaming planner options (loads in flight, hysteresis, tag weights). */
  planner?: Omit<MipStreamingPlannerOptions, 'onLoadFailed'>;
  /** Stale sweep options (cadence, transient policy). */
  sweep?: StaleSweepOptions;
  /**
   * CPU bytes kept of levels shed from the GPU (for lack of room or a coarser need), so that growing
   * back loads them from memory instead of the network; least recently shed dropped first. Not
   * counted in the GPU budget. 0 keeps none. Default 4 MiB.
   */
  shedLevelCacheBytes?: number;
  /** Refresh the screen need of every texture every this many frames. Default 4. */
  needRefreshFrames?: number;
  /**
   * The HTTP client for network reads (see {@link TextureStreamingSystem.http}): share one with
   * other sources to share its per-host cap, or give one with another retry policy. Default: a new
   * `HttpClient` (3 retries with backoff and jitter, `Retry-After` honoured, 6 requests per host).
   */
  http?: HttpClient;
  /** Clock for idle-ms policies, in milliseconds. Default performance.now. */
  now?: () => number;
}

/**
 * The `error` event of a `TextureStreamingSystem` (the virtual-texture system's has the same shape):
 * a chain failed to load, or (texture null) a glTF texture could not be streamed at all.
 */
export interface TextureStreamingErrorEvent {
  /** What failed. */
  error: TesseraError;
  /**
   * The texture whose chain failed; null for a glTF texture that could not be made at all, or
   * whose `TESSERA_texture_prefix` did not match its file (`prefix-mismatch`; see `textureName`).
   */
  texture: StreamedTexture | null;
  /** The glTF image's name, for a glTF texture (else undefined). */
  textureName?: string;
}

/** Events of a `TextureStreamingSystem`. */
export interface TextureStreamingEvents {
  /** A chain failed to load (the texture keeps its previous chain or its placeholder), or a glTF texture could not be streamed. */
  error: TextureStreamingErrorEvent;
  /** A texture was released (sweep, transition or explicit) and its users now bind the placeholder. */
  released: { texture: StreamedTexture };
}

/** A snapshot of the system (allocates; for tools and tests). */
export interface TextureStreamingStats {
  /** Frames run by `update` (the system's {@link TextureStreamingSystem.frameNumber}). */
  frame: number;
  /** Live streamed textures. */
  textures: number;
  /** CPU bytes held by the cache of shed levels (see `shedLevelCacheBytes`; not in the budget). */
  shedLevelBytes: number;
  /**
   * Where streaming stands, in the virtual-texture system's words: loads are chain loads (a
   * texture's levels from the mip asked down to those it had), `retries` the system's client's
   * ({@link TextureStreamingSystem.http}: glTF files, their KTX2 files and images).
   */
  streaming: StreamingProgress;
  /**
   * Chain loads in flight.
   * @deprecated Use `streaming.loading`.
   */
  loadsInFlight: number;
  /**
   * Chain loads that failed since the system was made.
   * @deprecated Use `streaming.failedTotal` (the same count).
   */
  failedLevels: number;
  /**
   * Retries sent by the system's HTTP client.
   * @deprecated Use `streaming.retries`.
   */
  retries: number;
  /** The budget by category and by tag, in bytes. */
  budget: TextureBudgetStats;
}
