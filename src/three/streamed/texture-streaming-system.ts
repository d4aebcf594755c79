import {
  type Camera,
  DataTexture,
  type Material,
  type Mesh,
  NoColorSpace,
  type Object3D,
  RepeatWrapping,
  SRGBColorSpace,
} from 'three';
import type { TextureNode, WebGPURenderer } from 'three/webgpu';
import { BudgetPriority } from '../../core/budget/budget-priority';
import { TextureBudget } from '../../core/budget/texture-budget';
import type { TextureBudgetStats } from '../../core/budget/texture-budget-options';
import { textureLevelRangeBytes } from '../../core/budget/texture-bytes';
import { TesseraConfigError, TesseraError } from '../../core/errors';
import {
  checkPyramidShape,
  levelWidth,
  type MipPyramidSource,
  type StreamedTextureFormat,
} from '../../core/streaming/mip-pyramid-source';
import type { MipStreamingPlannerOptions } from '../../core/streaming/mip-streaming-options';
import { MipStreamingPlanner, PINNED_MAX_EDGE } from '../../core/streaming/mip-streaming-planner';
import { SceneTransition } from '../../core/streaming/scene-transition';
import { StaleSweep, type StaleSweepOptions } from '../../core/streaming/stale-sweep';
import type { StreamingBackend } from '../../core/streaming/streaming-backend';
import { ManagedTextureRegistry, textureSlot } from '../../core/streaming/texture-registry';
import { TypedEmitter } from '../../core/structures/typed-emitter';
import { BackendBridge } from '../backend-bridge';
import { ChainTexture } from './chain-texture';
import { ScreenNeedProjector } from './screen-need';
import { StreamedTexture, type StreamedTextureOptions } from './streamed-texture';
import {
  type SceneTextures,
  StreamingTransition,
  type StreamingTransitionOptions,
  sceneSide,
} from './streaming-transition';

/** Options of a {@link TextureStreamingSystem}. */
export interface TextureStreamingSystemOptions {
  /** A budget shared with other users (virtual textures); or give {@link budgetBytes}. */
  budget?: TextureBudget;
  /** Budget to create when {@link budget} is not given, in bytes. */
  budgetBytes?: number;
  /** Bytes that must always fit (created budget only); a smaller budget fails at construction. */
  pinnedMinimumBytes?: number;
  /** Mip streaming planner options (loads in flight, hysteresis, tag weights). */
  planner?: Omit<MipStreamingPlannerOptions, 'onLoadFailed'>;
  /** Stale sweep options (cadence, transient policy). */
  sweep?: StaleSweepOptions;
  /** Refresh the screen need of every texture every this many frames. Default 4. */
  needRefreshFrames?: number;
  /** Clock for idle-ms policies, in milliseconds. Default performance.now. */
  now?: () => number;
}

/** Events of a {@link TextureStreamingSystem}. */
export interface TextureStreamingEvents {
  /** A chain failed to load; the texture keeps its previous chain or its placeholder. */
  error: { error: TesseraError; texture: StreamedTexture };
  /** A texture was released (sweep, transition or explicit) and its users now bind the placeholder. */
  released: { texture: StreamedTexture };
}

/** A snapshot of the system (allocates; for tools and tests). */
export interface TextureStreamingStats {
  frame: number;
  /** Live streamed textures. */
  textures: number;
  /** Chain loads in flight. */
  loadsInFlight: number;
  /** The budget by category and by tag, in bytes. */
  budget: TextureBudgetStats;
}

interface Placeholder {
  texture: DataTexture;
  handle: number;
}

/** GPU label of the shared placeholders. */
const PLACEHOLDER_LABEL = 'tessera:placeholder';
/** Bytes of one 1x1 rgba8 placeholder. */
const PLACEHOLDER_BYTES = 4;

/**
 * Mip streaming of ordinary three.js textures under one {@link TextureBudget}: creates
 * {@link StreamedTexture}s, feeds the screen need of the meshes using them to the core
 * {@link MipStreamingPlanner}, swaps chains into materials, sweeps stale textures and runs scene
 * transitions. It is the planner's {@link StreamingBackend}.
 *
 * ```ts
 * const streaming = new TextureStreamingSystem(renderer, { budgetBytes: 64 << 20 });
 * const rock = streaming.createTexture(new LevelListSource(levels), { tag: 'scene:cave', core: true });
 * streaming.attach(mesh, rock); // mesh.material.map follows the resident chain
 * renderer.setAnimationLoop(() => { streaming.update(camera, scene); renderer.render(scene, camera); });
 * ```
 */
export class TextureStreamingSystem {
  /** Typed events: `error`, `released`. */
  readonly events = new TypedEmitter<TextureStreamingEvents>();
  /** The budget (shared or created). */
  readonly budget: TextureBudget;
  /** Every managed texture (ids, tags, last use, reference counts). */
  readonly registry: ManagedTextureRegistry;
  /** The core planner. */
  readonly planner: MipStreamingPlanner;
  /** The stale sweep (set policies, end scenes). */
  readonly sweep: StaleSweep;
  private readonly renderer: WebGPURenderer;
  private readonly bridge: BackendBridge;
  private readonly now: () => number;
  private readonly needRefreshFrames: number;
  private readonly projector = new ScreenNeedProjector();
  /** Streamed textures by registry slot. */
  private bySlot: (StreamedTexture | null)[] = [];
  private readonly live: StreamedTexture[] = [];
  private readonly attachedMeshes: Mesh[] = [];
  private readonly attachedOwners: StreamedTexture[] = [];
  private bestRatio = new Float64Array(64);
  private bestPx = new Float64Array(64);
  private bestExtent = new Float64Array(64);
  private readonly placeholders: (Placeholder | null)[] = [null, null];
  private pinnedTotal = 0;
  private frame = 0;
  private framesSinceNeed = Number.POSITIVE_INFINITY;
  private active: StreamingTransition | null = null;
  private disposed = false;
  private readonly created = new WeakSet<StreamedTexture>();
  private readonly releasedEvent = { texture: null as unknown as StreamedTexture };

  /**
   * @throws TesseraConfigError('budget-too-small') when the budget is below `pinnedMinimumBytes`,
   *   ('invalid-option') for bad options or an uninitialised renderer.
   */
  constructor(renderer: WebGPURenderer, options: TextureStreamingSystemOptions) {
    if (options.budget === undefined && options.budgetBytes === undefined) {
      throw new TesseraConfigError('invalid-option', 'Give a shared budget or budgetBytes.');
    }
    this.budget =
      options.budget ??
      new TextureBudget({
        budgetBytes: options.budgetBytes as number,
        pinnedMinimumBytes: options.pinnedMinimumBytes,
      });
    this.needRefreshFrames = options.needRefreshFrames ?? 4;
    if (!Number.isInteger(this.needRefreshFrames) || this.needRefreshFrames < 1) {
      throw new TesseraConfigError('invalid-option', 'needRefreshFrames must be an integer >= 1.');
    }
    this.bridge = new BackendBridge(renderer);
    this.renderer = renderer;
    this.now = options.now ?? (() => performance.now());
    this.registry = new ManagedTextureRegistry(this.budget.tags);
    const backend: StreamingBackend = {
      allocate: (id, firstMip, mipCount) => this.allocate(id, firstMip, mipCount),
      free: (id, firstMip) => this.free(id, firstMip),
      release: (id) => this.releaseGpu(id),
    };
    this.planner = new MipStreamingPlanner(this.budget, this.registry, backend, {
      ...options.planner,
      onLoadFailed: (id, error) => {
        const texture = this.bySlot[textureSlot(id)];
        if (texture && texture.id === id) this.events.emit('error', { error, texture });
      },
    });
    this.sweep = new StaleSweep(this.registry, options.sweep);
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
    )
      pinned++;
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
   *   fit the budget; ('invalid-size' | 'invalid-option') for a bad source.
   */
  createTexture(source: MipPyramidSource, options: StreamedTextureOptions = {}): StreamedTexture {
    this.assertLive();
    checkPyramidShape(source.width, source.height, source.mipLevelCount);
    if (source.format !== 'rgba8unorm' && source.format !== 'rgba8unorm-srgb') {
      throw new TesseraConfigError(
        'invalid-option',
        `Unsupported streamed format '${source.format as string}'.`,
      );
    }
    const pinnedBytes = TextureStreamingSystem.pinnedBytesOf(source);
    const placeholder = this.placeholder(source.format);
    const placeholderBytes = PLACEHOLDER_BYTES * this.placeholders.filter((p) => p !== null).length;
    if (this.pinnedTotal + pinnedBytes + placeholderBytes > this.budget.budgetBytes) {
      throw new TesseraConfigError(
        'budget-too-small',
        `The pinned mips of all streamed textures (${this.pinnedTotal + pinnedBytes} bytes) and placeholders exceed the ${this.budget.budgetBytes}-byte budget.`,
      );
    }
    const tag = options.tag ?? 'persistent';
    const core = options.core ?? false;
    const id = this.registry.register({ tag, core }, this.frame, this.now());
    const texture = new StreamedTexture(
      id,
      options.name ?? `t${id}`,
      source,
      tag,
      core,
      placeholder.texture,
      {
        wrapS: options.wrapS ?? RepeatWrapping,
        wrapT: options.wrapT ?? RepeatWrapping,
        anisotropy: options.anisotropy ?? 1,
      },
    );
    texture.pinnedBytes = pinnedBytes;
    this.created.add(texture);
    const slot = textureSlot(id);
    while (this.bySlot.length <= slot) this.bySlot.push(null);
    this.bySlot[slot] = texture;
    this.live.push(texture);
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
    return texture;
  }

  /**
   * Use `texture` on `mesh`: binds it in `target` of every material of the mesh (a property name,
   * default 'map', or a TSL texture node), and counts the mesh's screen size in its mip need.
   * @throws TesseraError('unknown-texture' | 'released-twice') for a texture not live here.
   */
  attach(mesh: Mesh, texture: StreamedTexture, target: string | TextureNode = 'map'): void {
    this.check(texture);
    if (typeof target === 'string') {
      const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
      for (const material of materials) {
        for (const other of this.live) if (other !== texture) other.bindings.removeProperty(material, target);
        texture.bindProperty(material, target);
        material.needsUpdate = true;
      }
    } else {
      texture.bindings.addNode(target, texture.texture);
    }
    for (let i = 0; i < this.attachedMeshes.length; i++) {
      if (this.attachedMeshes[i] === mesh && this.attachedOwners[i] === texture) return;
    }
    this.attachedMeshes.push(mesh);
    this.attachedOwners.push(texture);
  }

  /** Stop counting `mesh` in any texture's need and forget its materials' bindings. */
  detach(mesh: Mesh): void {
    const materials: Material[] = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
    for (let i = this.attachedMeshes.length - 1; i >= 0; i--) {
      if (this.attachedMeshes[i] !== mesh) continue;
      for (const material of materials) this.attachedOwners[i].bindings.removeMaterial(material);
      this.attachedMeshes.splice(i, 1);
      this.attachedOwners.splice(i, 1);
    }
  }

  /** Protect `texture` from sweeps and transitions. Returns the holder count. */
  retain(texture: StreamedTexture): number {
    this.check(texture);
    return this.registry.retain(texture.id);
  }

  /** Drop a holder taken with {@link retain}. @throws TesseraError('released-twice') at 0. */
  unretain(texture: StreamedTexture): number {
    this.check(texture);
    return this.registry.release(texture.id);
  }

  /**
   * Release `texture` now: every material and node using it binds the placeholder, then its GPU
   * memory is destroyed.
   * @throws TesseraError('released-twice') when already released, ('unknown-texture') for a texture
   *   of another system.
   */
  release(texture: StreamedTexture): void {
    this.check(texture);
    this.registry.evict(texture.id);
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
    if (this.active !== null)
      throw new TesseraError('transition-in-progress', 'A transition is already in progress.');
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
      this.refreshNeed(camera, scene, frame, now);
    }
    this.sweep.update(frame, now);
    if (this.active?.step()) this.active = null;
    this.planner.update(frame);
  }

  /** Finest resident level of `texture` (its pinned level until finer mips load). */
  residentMipOf(texture: StreamedTexture): number {
    this.check(texture);
    return this.planner.residentMipOf(texture.id);
  }

  /** A snapshot of the budget by category and tag, and streaming counters. */
  stats(): TextureStreamingStats {
    return {
      frame: this.frame,
      textures: this.live.length,
      loadsInFlight: this.planner.loadsInFlight,
      budget: this.budget.stats(),
    };
  }

  /** Release every texture (materials bind the placeholder), then free the placeholders. */
  dispose(): void {
    if (this.disposed) return;
    if (this.active !== null) this.budget.setCap(Number.POSITIVE_INFINITY);
    this.active = null;
    for (let i = this.live.length - 1; i >= 0; i--) {
      const texture = this.live[i];
      if (this.registry.has(texture.id)) this.registry.evict(texture.id);
    }
    for (let i = 0; i < this.placeholders.length; i++) {
      const placeholder = this.placeholders[i];
      if (placeholder === null) continue;
      placeholder.texture.dispose();
      this.budget.release(placeholder.handle);
      this.placeholders[i] = null;
    }
    this.disposed = true;
    this.events.clear();
  }

  private refreshNeed(camera: Camera, scene: Object3D, frame: number, now: number): void {
    const slots = this.bySlot.length;
    if (this.bestRatio.length < slots) {
      const size = Math.max(slots, this.bestRatio.length * 2);
      this.bestRatio = new Float64Array(size);
      this.bestPx = new Float64Array(size);
      this.bestExtent = new Float64Array(size);
    }
    this.bestRatio.fill(0);
    this.projector.begin(camera, this.renderer.domElement.height);
    for (let i = 0; i < this.attachedMeshes.length; i++) {
      const px = this.projector.projectedPx(this.attachedMeshes[i], scene);
      if (px <= 0) continue;
      const slot = textureSlot(this.attachedOwners[i].id);
      const ratio = px / this.projector.uvExtent;
      if (ratio > this.bestRatio[slot]) {
        this.bestRatio[slot] = ratio;
        this.bestPx[slot] = px;
        this.bestExtent[slot] = this.projector.uvExtent;
      }
    }
    for (let i = 0; i < this.live.length; i++) {
      const id = this.live[i].id;
      const slot = textureSlot(id);
      const seen = this.bestRatio[slot] > 0;
      this.planner.setScreenNeed(
        id,
        seen ? this.bestPx[slot] : 0,
        seen ? this.bestExtent[slot] : 1,
        frame,
        now,
      );
    }
  }

  /** StreamingBackend.allocate: load the missing levels, build the chain, swap it in. */
  private allocate(id: number, firstMip: number, mipCount: number): void {
    const texture = this.bySlot[textureSlot(id)];
    if (!texture || texture.id !== id) return;
    texture.pending?.controller.abort();
    const controller = new AbortController();
    texture.pending = { firstMip, controller };
    void this.loadChain(texture, firstMip, mipCount, controller);
  }

  private async loadChain(
    texture: StreamedTexture,
    firstMip: number,
    mipCount: number,
    controller: AbortController,
  ): Promise<void> {
    const source = texture.source;
    const held = texture.streamed ?? texture.pinned;
    const webgl = this.bridge.device === null;
    const end = firstMip + mipCount;
    let chain: ChainTexture | null = null;
    try {
      const loads: Promise<Uint8Array>[] = [];
      const levels: number[] = [];
      for (let level = firstMip; level < end; level++) {
        const onGpu = held?.holds(level);
        if (onGpu && (!webgl || texture.cache[level] !== null)) continue;
        levels.push(level);
        loads.push(source.loadLevel(level, controller.signal));
      }
      const data = await Promise.all(loads);
      if (controller.signal.aborted || texture.pending?.controller !== controller || texture.released) return;
      for (let i = 0; i < levels.length; i++) {
        const expected = levelWidth(source.width, levels[i]) * levelWidth(source.height, levels[i]) * 4;
        if (data[i].byteLength !== expected) {
          throw new TesseraError(
            'texture-load-failed',
            `Level ${levels[i]} of '${texture.name}' holds ${data[i].byteLength} bytes, expected ${expected}.`,
          );
        }
      }
      chain = new ChainTexture(
        this.bridge,
        texture.name,
        source.width,
        source.height,
        source.format,
        firstMip,
        mipCount,
        texture.sampling,
      );
      for (let i = 0; i < levels.length; i++) {
        chain.upload(levels[i], data[i]);
        if (webgl) texture.cache[levels[i]] = data[i];
      }
      if (held !== null) {
        const from = Math.max(firstMip, held.firstMip);
        if (!chain.copyLevelsFrom(held, from, end)) {
          for (let level = from; level < end; level++) {
            const cached = texture.cache[level];
            if (cached !== null && !levels.includes(level)) chain.upload(level, cached);
          }
        }
      }
    } catch (error) {
      chain?.dispose();
      if (controller.signal.aborted || texture.pending?.controller !== controller || texture.released) return;
      texture.pending = null;
      this.planner.completeLoad(texture.id, firstMip, error ?? new Error('load failed'));
      return;
    }
    texture.pending = null;
    if (texture.pinned === null) {
      texture.pinned = chain;
    } else {
      texture.retiring = texture.streamed;
      texture.streamed = chain;
    }
    texture.bind(chain.texture);
    this.planner.completeLoad(texture.id, firstMip);
    // The planner frees the replaced chain in completeLoad; never leave one behind.
    if (texture.retiring !== null) {
      texture.retiring.dispose();
      texture.retiring = null;
    }
    this.trimCache(texture);
  }

  /** StreamingBackend.free: destroy a chain that is no longer bound (or unbind it first). */
  private free(id: number, firstMip: number): void {
    const texture = this.bySlot[textureSlot(id)];
    if (!texture || texture.id !== id) return;
    if (texture.retiring !== null && texture.retiring.firstMip === firstMip) {
      texture.retiring.dispose();
      texture.retiring = null;
    } else if (texture.streamed !== null && texture.streamed.firstMip === firstMip) {
      const streamed = texture.streamed;
      texture.streamed = null;
      texture.bind(texture.pinned?.texture ?? this.placeholder(texture.source.format).texture);
      streamed.dispose();
    }
    this.trimCache(texture);
  }

  /** StreamingBackend.release: placeholder into every user, then destroy every chain. */
  private releaseGpu(id: number): void {
    const slot = textureSlot(id);
    const texture = this.bySlot[slot];
    if (!texture || texture.id !== id) return;
    texture.pending?.controller.abort();
    texture.pending = null;
    texture.bind(this.placeholder(texture.source.format).texture);
    texture.retiring?.dispose();
    texture.streamed?.dispose();
    texture.pinned?.dispose();
    texture.retiring = null;
    texture.streamed = null;
    texture.pinned = null;
    texture.markReleased();
    this.bySlot[slot] = null;
    const at = this.live.indexOf(texture);
    if (at >= 0) this.live.splice(at, 1);
    for (let i = this.attachedOwners.length - 1; i >= 0; i--) {
      if (this.attachedOwners[i] !== texture) continue;
      this.attachedOwners.splice(i, 1);
      this.attachedMeshes.splice(i, 1);
    }
    this.pinnedTotal -= texture.pinnedBytes;
    if (this.events.has('released')) {
      this.releasedEvent.texture = texture;
      this.events.emit('released', this.releasedEvent);
    }
  }

  /** Drop CPU copies of levels finer than the finest resident one (WebGL2 cache). */
  private trimCache(texture: StreamedTexture): void {
    const none = texture.cache.length;
    const resident = Math.min(
      texture.streamed?.firstMip ?? none,
      texture.pinned?.firstMip ?? none,
      texture.pending?.firstMip ?? none,
    );
    for (let level = 0; level < resident && level < texture.cache.length; level++)
      texture.cache[level] = null;
  }

  private placeholder(format: StreamedTextureFormat): Placeholder {
    const index = format === 'rgba8unorm-srgb' ? 1 : 0;
    let placeholder = this.placeholders[index];
    if (placeholder !== null) return placeholder;
    const handle = this.budget.reserve('other', PLACEHOLDER_BYTES, 0, BudgetPriority.pinned);
    // Mid grey: visibly "not loaded" without flashing black or white.
    const texture = new DataTexture(new Uint8Array([128, 128, 128, 255]), 1, 1);
    texture.name = PLACEHOLDER_LABEL;
    texture.colorSpace = index === 1 ? SRGBColorSpace : NoColorSpace;
    texture.needsUpdate = true;
    this.renderer.initTexture(texture);
    placeholder = { texture, handle };
    this.placeholders[index] = placeholder;
    return placeholder;
  }

  private check(texture: StreamedTexture): void {
    const slot = textureSlot(texture.id);
    if (this.bySlot[slot] === texture) return;
    if (texture.released && this.created.has(texture)) {
      throw new TesseraError('released-twice', `Texture '${texture.name}' was already released.`);
    }
    throw new TesseraError('unknown-texture', `Texture '${texture.name}' is not managed by this system.`);
  }

  private assertLive(): void {
    if (this.disposed) throw new TesseraError('disposed', 'This TextureStreamingSystem was disposed.');
  }
}
