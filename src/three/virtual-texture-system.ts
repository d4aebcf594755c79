import type { Camera, Material, Scene } from 'three';
import { uniform } from 'three/tsl';
import type { WebGPURenderer } from 'three/webgpu';
import { BudgetPriority } from '../core/budget/budget-priority';
import { NO_RESERVATION, TextureBudget } from '../core/budget/texture-budget';
import { TesseraConfigError, TesseraError } from '../core/errors';
import { TypedEmitter } from '../core/structures/typed-emitter';
import type { TileData, TileEncoding, TileSource } from '../core/vt/tile-source';
import { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import { VirtualTextureLayout } from '../core/vt/vt-layout';
import { BackendBridge } from './backend-bridge';
import { FeedbackPass } from './feedback-pass';
import { FeedbackReadback, MAX_READBACKS_IN_FLIGHT } from './feedback-readback';
import {
  choosePoolShape,
  PageTableTexture,
  type PoolShape,
  PoolTextures,
  poolSlotCount,
} from './pool-textures';
import type { SamplingContext, VirtualTextureFiltering } from './sampling-context';
import {
  mapSourceLayers,
  VirtualTexture,
  type VirtualTextureLayerMapping,
  type VirtualTexturePoolLayer,
} from './virtual-texture';

/** Options of a {@link VirtualTextureSystem}. */
export interface VirtualTextureSystemOptions {
  /**
   * A budget shared with other users (a `TextureStreamingSystem`): the pool, page tables, feedback
   * target and readback ring are reserved from it at construction (infrastructure priority) and
   * released by {@link VirtualTextureSystem.dispose}. Without it an internal budget of
   * {@link budgetBytes} is used.
   */
  budget?: TextureBudget;
  /**
   * Every GPU byte this system allocates (pool, page tables, feedback, readback), in bytes.
   * Required without {@link budget}; with one it is this system's share of it (default: all of the
   * budget's free bytes, which leaves nothing to other users, so give a share when sharing).
   */
  budgetBytes?: number;
  /**
   * Fewest pool slots the system accepts, in pages; a budget that cannot hold them with the page
   * tables, feedback and readback is refused at construction. Default 21 (the pinned 1 + 4 + 16
   * pages of one texture's three coarsest mips).
   */
  minPoolSlots?: number;
  /** Pages of an evictable texture (see `makeEvictable`) freed per frame at most. Default 64. */
  evictPagesPerFrame?: number;
  /**
   * Largest side of one pool texture (of one array layer), in texels; at most, and by default, the
   * backend's `maxTextureDimension2D`. When the budget holds more slots than one such texture,
   * each pool layer becomes a 2D array texture (up to the backend's `maxTextureArrayLayers` array
   * layers). Lower it to use array textures at a small scale (tests).
   */
  maxPoolTextureSize?: number;
  /** Tile side including border, in texels; every added source must match. Default 128. */
  tileSize?: number;
  /** Border inside each tile side, in texels; every added source must match. Default 4. */
  border?: number;
  /** Screen pixels per feedback pixel along each axis (power of two). Default 8. */
  feedbackScale?: number;
  /** Most tiles written into the pool per frame. Default 16. */
  maxUploadsPerFrame?: number;
  /** Pool filtering. Default 'bilinear'. */
  filtering?: VirtualTextureFiltering;
  /** Largest anisotropy ratio (feedback footprint, and sampling in 'anisotropic'). Default 8. */
  maxAnisotropy?: number;
  /**
   * Each pool layer (one pool texture each): a format, or a name and a format so that sources map
   * their layers onto it by name. Unnamed layers are called `layer<i>`. Default ['rgba8unorm-srgb'].
   */
  layers?: readonly (TileEncoding | VirtualTexturePoolLayer)[];
  /**
   * Bytes set aside for the page tables of every texture added, in bytes (a texture of w x h pages
   * needs about 5.33 w h bytes). Reserved whole at construction. Default: budgetBytes / 16, clamped
   * to 1..16 MiB.
   */
  pageTableBytes?: number;
}

/** Options of {@link VirtualTextureSystem.add}. */
export interface VirtualTextureAddOptions {
  /** Name used in GPU labels. Default `vt<index>`. */
  name?: string;
  /** Which pool layer each source layer goes to (default: by name, else by position). */
  layers?: VirtualTextureLayerMapping;
}

/** Budget reservations a {@link VirtualTextureSystem} holds, by budget category, in bytes. */
export interface VirtualTextureReservedBytes {
  'vt-pool': number;
  'page-table': number;
  feedback: number;
  readback: number;
}

/** Exact GPU bytes Tessera holds, by category. */
export interface VirtualTextureGpuBytes {
  /** Pool texture of each layer, in bytes. */
  poolLayers: number[];
  /** All page-table textures together, in bytes. */
  pageTables: number;
  /** Feedback colour + depth targets, in bytes. */
  feedbackTargets: number;
  /** Readback buffers (WebGPU ring), in bytes. */
  readbackBuffers: number;
  /** Sum of the above, in bytes. */
  total: number;
}

/** A snapshot of the system's state (see {@link VirtualTextureSystem.stats}). */
export interface VirtualTextureSystemStats {
  /** Frames run through {@link VirtualTextureSystem.update}. */
  frame: number;
  /** GPU bytes by category (what exists now; at most {@link byCategory}). */
  gpuBytes: VirtualTextureGpuBytes;
  /** Bytes reserved in the budget by category (equal to the budget's figures when it is not shared). */
  byCategory: VirtualTextureReservedBytes;
  /** Pool slots in total. */
  slotCount: number;
  /** Pool slots holding a page. */
  residentPages: number;
  /** Tiles written into the pool during the latest update. */
  uploadsLastFrame: number;
  /** Tiles written since creation. */
  uploadsTotal: number;
  /** Current residency mip bias, in mips. */
  mipBias: number;
  /** Feedback readbacks started / delivered / dropped as stale / skipped (3 in flight). */
  readbacks: { started: number; delivered: number; dropped: number; skipped: number };
}

/** Events of a {@link VirtualTextureSystem}. */
export interface VirtualTextureSystemEvents {
  /** A tile failed to load or upload; the page keeps its coarser fallback. */
  error: { error: TesseraError; vt: number; pageId: number };
  /** A page was written into the pool and mapped (one reused object: copy fields to keep them). */
  'page-loaded': { vt: number; pageId: number; slot: number };
  /** A page was evicted from the pool to make room (one reused object). */
  'page-evicted': { vt: number; pageId: number; slot: number; frame: number };
  /**
   * A feedback readback was analysed; `ids` (packed page ids per feedback pixel, row by row, `width`
   * x `height` feedback pixels) is valid during the call (one reused object).
   */
  feedback: { frame: number; ids: Uint32Array; width: number; height: number };
}

/** Smallest default page-table reserve, in bytes (a 256 x 256-page texture fits). */
const MIN_PAGE_TABLE_BYTES = 1 << 20;
/** Largest default page-table reserve, in bytes (a 1024 x 1024-page, 128K² texture needs 5.6 MB). */
const MAX_PAGE_TABLE_BYTES = 16 << 20;
/** Pinned pages of one texture with the default three pinned mips (1 + 4 + 16). */
const DEFAULT_MIN_POOL_SLOTS = 21;
/**
 * An evictable texture's page counts as out of view once unused for this many frames, in frames:
 * longer than the feedback latency (3 readbacks in flight), so pages still on screen stay.
 */
const EVICTABLE_IDLE_FRAMES = 8;

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TesseraConfigError('invalid-option', `${name} must be a positive integer, got ${value}`);
  }
  return value;
}

/**
 * Virtual texturing for three.js `WebGPURenderer` (WebGPU and WebGL2 backends): one physical pool
 * under a byte budget shared by up to 16 virtual textures, a feedback pass with asynchronous
 * readback, and tile uploads written straight into sub-rectangles of the pool.
 *
 * ```ts
 * const system = new VirtualTextureSystem(renderer, { budgetBytes: 64 << 20 });
 * const vt = system.add(source, { name: 'terrain' });
 * material.colorNode = virtualTexture(vt);
 * renderer.setAnimationLoop(() => { system.update(camera, scene); renderer.render(scene, camera); });
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
  private readonly renderer: WebGPURenderer;
  private readonly bridge: BackendBridge;
  private readonly poolTextures: PoolTextures;
  private readonly feedback: FeedbackPass;
  private readonly readback: FeedbackReadback;
  /** The core streamer (feedback analysis, scheduling, pool, page tables). */
  readonly streamer: VirtualTextureStreamer;
  private readonly context: SamplingContext;
  private readonly textures: (VirtualTexture | null)[] = [];
  private readonly poolLayers: readonly VirtualTexturePoolLayer[];
  /** The budget the reservations below come from (shared, or internal of `budgetBytes`). */
  readonly budget: TextureBudget;
  private readonly reservations: number[] = [];
  private readonly reserved: VirtualTextureReservedBytes;
  /** Bit `vt` set: texture `vt`'s out-of-view pages are freed progressively (see makeEvictable). */
  private evictableMask = 0;
  private readonly evictPagesPerFrame: number;
  private readonly feedbackScale: number;
  private readonly feedbackPixels: number;
  private readonly pageTableReserve: number;
  private pageTableUsed = 0;
  private frame = 0;
  private uploadsLastFrame = 0;
  private uploadsTotal = 0;
  private disposed = false;
  private readonly uploadHandler: (vt: number, slot: number, pageId: number, data: TileData) => boolean;
  private readonly pageEvent = { vt: 0, pageId: 0, slot: 0 };
  private readonly feedbackScratch = { width: 0, height: 0 };
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
    this.renderer = renderer;
    this.bridge = bridge;
    if (options.budget === undefined && options.budgetBytes === undefined) {
      throw new TesseraConfigError('invalid-option', 'give budgetBytes or a shared budget');
    }
    if (
      options.budgetBytes !== undefined &&
      (!(options.budgetBytes > 0) || !Number.isFinite(options.budgetBytes))
    ) {
      throw new TesseraConfigError(
        'invalid-option',
        `budgetBytes must be positive, got ${options.budgetBytes}`,
      );
    }
    this.tileSize = positiveInteger('tileSize', options.tileSize ?? 128);
    this.border = options.border ?? 4;
    // Validates tile size and border the same way a layout does.
    new VirtualTextureLayout({ widthPages: 1, heightPages: 1, tileSize: this.tileSize, border: this.border });
    this.feedbackScale = positiveInteger('feedbackScale', options.feedbackScale ?? 8);
    this.maxUploadsPerFrame = positiveInteger('maxUploadsPerFrame', options.maxUploadsPerFrame ?? 16);
    this.evictPagesPerFrame = positiveInteger('evictPagesPerFrame', options.evictPagesPerFrame ?? 64);
    const minPoolSlots = positiveInteger('minPoolSlots', options.minPoolSlots ?? DEFAULT_MIN_POOL_SLOTS);
    const filtering = options.filtering ?? 'bilinear';
    if (filtering !== 'bilinear' && filtering !== 'trilinear' && filtering !== 'anisotropic') {
      throw new TesseraConfigError('invalid-option', `unknown filtering '${filtering as string}'`);
    }
    const maxAnisotropy = options.maxAnisotropy ?? 8;
    if (!(maxAnisotropy >= 1 && maxAnisotropy <= 16)) {
      throw new TesseraConfigError('invalid-option', `maxAnisotropy must be in 1..16, got ${maxAnisotropy}`);
    }
    this.poolLayers = (options.layers ?? ['rgba8unorm-srgb']).map((layer, i) =>
      typeof layer === 'string' ? { name: `layer${i}`, format: layer } : { ...layer },
    );
    if (this.poolLayers.length < 1 || this.poolLayers.length > 8) {
      throw new TesseraConfigError('invalid-layers', 'layers must list 1..8 pool layer formats');
    }
    for (const layer of this.poolLayers) {
      if (layer.format !== 'rgba8unorm' && layer.format !== 'rgba8unorm-srgb') {
        throw new TesseraConfigError(
          'invalid-layers',
          `unknown pool layer format '${layer.format as string}'`,
        );
      }
    }
    if (new Set(this.poolLayers.map((layer) => layer.name)).size !== this.poolLayers.length) {
      throw new TesseraConfigError('invalid-layers', 'pool layer names must be distinct');
    }
    const budget = options.budget;
    // This system's share: the given bytes, else whatever the shared budget has free.
    const share = Math.floor(options.budgetBytes ?? (budget as TextureBudget).freeBytes);
    this.pageTableReserve = Math.floor(
      options.pageTableBytes ?? Math.max(MIN_PAGE_TABLE_BYTES, Math.min(share / 16, MAX_PAGE_TABLE_BYTES)),
    );
    if (!(this.pageTableReserve >= 0) || !Number.isFinite(this.pageTableReserve)) {
      throw new TesseraConfigError(
        'invalid-option',
        `pageTableBytes must be >= 0, got ${options.pageTableBytes}`,
      );
    }

    // Feedback target and readback ring sized for the current canvas, page tables reserved up
    // front, the rest to the pool. Everything is checked and reserved before any GPU allocation.
    const { width: fw, height: fh } = this.feedbackSize();
    this.feedbackPixels = fw * fh;
    const feedbackBytes = fw * fh * 8;
    // WebGPU rows are padded to 256 bytes for copyTextureToBuffer; WebGL2 pixel-pack rows are not.
    const readbackRowBytes = bridge.isWebGPU ? Math.ceil((fw * 4) / 256) * 256 : fw * 4;
    const readbackBytes = readbackRowBytes * fh * MAX_READBACKS_IN_FLIGHT;
    const layerCount = this.poolLayers.length;
    const slotBytes = this.tileSize * this.tileSize * 4 * layerCount;
    const fixedBytes = feedbackBytes + readbackBytes + this.pageTableReserve;
    const pinnedMinimum = fixedBytes + minPoolSlots * slotBytes;
    const capacity = budget ? Math.min(share, budget.budgetBytes - budget.pinnedBytes) : share;
    if (pinnedMinimum > capacity) {
      throw new TesseraConfigError(
        'budget-too-small',
        `budget of ${capacity} bytes is below the virtual-texture minimum of ${pinnedMinimum} bytes: feedback ${feedbackBytes}, readback ${readbackBytes}, page tables ${this.pageTableReserve}, ${minPoolSlots} pool slots of ${slotBytes}`,
      );
    }
    this.budget = budget ?? new TextureBudget({ budgetBytes: share });
    const poolTextureSize = Math.min(
      bridge.maxTextureSize,
      positiveInteger('maxPoolTextureSize', options.maxPoolTextureSize ?? bridge.maxTextureSize),
    );
    if (poolTextureSize < this.tileSize) {
      throw new TesseraConfigError(
        'invalid-option',
        `maxPoolTextureSize ${poolTextureSize} is below the tile size ${this.tileSize}`,
      );
    }
    const shapeFor = (bytes: number) =>
      choosePoolShape(bytes, this.tileSize, layerCount, poolTextureSize, bridge.maxArrayLayers);
    let shape = shapeFor(share - fixedBytes);
    const priority = BudgetPriority.infrastructure;
    const taken = this.reservations;
    const take = (category: 'page-table' | 'feedback' | 'readback' | 'vt-pool', bytes: number): boolean => {
      const handle = this.budget.tryReserve(category, bytes, undefined, priority);
      if (handle !== NO_RESERVATION) taken.push(handle);
      return handle !== NO_RESERVATION;
    };
    const poolBytesOf = (s: PoolShape) => poolSlotCount(s) * slotBytes;
    let ok = take('page-table', this.pageTableReserve) && take('feedback', feedbackBytes);
    ok = ok && take('readback', readbackBytes);
    if (ok && !take('vt-pool', poolBytesOf(shape))) {
      // Others hold part of the share and would not shed it: take the pool that fits.
      shape = shapeFor(this.budget.freeBytes);
      ok = poolSlotCount(shape) >= minPoolSlots && take('vt-pool', poolBytesOf(shape));
    }
    if (!ok || poolSlotCount(shape) < minPoolSlots) {
      for (const handle of taken) this.budget.release(handle);
      taken.length = 0;
      throw new TesseraConfigError(
        'budget-too-small',
        `budget has ${this.budget.freeBytes} bytes free; the virtual-texture minimum is ${pinnedMinimum} bytes`,
      );
    }
    this.reserved = {
      'vt-pool': poolBytesOf(shape),
      'page-table': this.pageTableReserve,
      feedback: feedbackBytes,
      readback: readbackBytes,
    };
    this.poolTextures = new PoolTextures(
      bridge,
      shape,
      this.poolLayers.map((layer) => layer.format),
    );
    this.streamer = new VirtualTextureStreamer({
      pool: { slotCount: this.poolTextures.slotCount },
      maxUploadsPerFrame: this.maxUploadsPerFrame,
      maxFeedbackPixels: this.feedbackPixels,
    });
    this.streamer.on('error', (event) => this.events.emit('error', event));
    this.streamer.on('page-evicted', (event) => this.events.emit('page-evicted', event));
    this.feedback = new FeedbackPass(renderer, fw, fh);
    this.readback = new FeedbackReadback(bridge, this.feedback.target, (ids, frame, width, height) =>
      this.onFeedback(ids, frame, width, height),
    );
    if (filtering === 'anisotropic') {
      for (const texture of this.poolTextures.textures) texture.anisotropy = maxAnisotropy;
    }
    const feedback = this.feedback;
    const textures = this.textures;
    this.context = {
      poolTextures: this.poolTextures.textures,
      poolShape: shape,
      poolWidth: this.poolTextures.width,
      poolHeight: this.poolTextures.height,
      filtering,
      maxAnisotropy,
      feedbackScale: this.feedbackScale,
      mipBias: uniform(0),
      registerMaterial(material: Material, vtId: number, uvNode: unknown) {
        const vt = textures[vtId];
        if (vt) feedback.register(material, vt, uvNode);
      },
    };
    this.uploadHandler = (vt, slot, pageId, data) => {
      const map = (textures[vt] as VirtualTexture).poolLayerSource;
      for (let layer = 0; layer < map.length; layer++) {
        const from = map[layer];
        if (from >= 0) this.poolTextures.writeTile(layer, slot, data.layers[from]);
      }
      if (this.events.has('page-loaded')) {
        const event = this.pageEvent;
        event.vt = vt;
        event.pageId = pageId;
        event.slot = slot;
        this.events.emit('page-loaded', event);
      }
      return true;
    };
  }

  /**
   * Adds a virtual texture served by `source`, its layers mapped onto the pool's by
   * `options.layers` (default: by name, else by position). Throws a {@link TesseraConfigError}:
   * 'invalid-tile' when its tile size or border differ from the system's, 'invalid-layers' when a
   * mapped layer is missing or its format differs from the pool layer's, 'budget-too-small' when
   * its page table does not fit the page-table reserve, 'pool-too-small' when the pool cannot
   * hold every texture's pinned pages, 'invalid-option' when 16 textures exist.
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
    const poolLayerSource = mapSourceLayers(
      options.name ?? `vt${this.textures.length}`,
      info.layers,
      this.poolLayers,
      options.layers,
    );
    const name = options.name ?? `vt${this.textures.length}`;
    let tableBytes = 0;
    for (let m = 0; m < layout.mipCount; m++) tableBytes += layout.mipWidths[m] * layout.mipHeights[m] * 4;
    if (this.pageTableUsed + tableBytes > this.pageTableReserve) {
      throw new TesseraConfigError(
        'budget-too-small',
        `page table of '${name}' needs ${tableBytes} bytes; ${this.pageTableReserve - this.pageTableUsed} left of pageTableBytes`,
      );
    }
    const id = this.streamer.registerTexture(source);
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
   * by `camera` and starts its asynchronous readback.
   */
  update(camera: Camera, scene: Scene): void {
    this.assertLive();
    this.frame++;
    const frame = this.frame;
    this.streamer.beginFrame(frame);
    this.streamer.update();
    this.context.mipBias.value = this.streamer.mipBias;
    if (this.evictableMask !== 0) this.releaseEvictablePages(frame);
    this.uploadsLastFrame = this.streamer.drainUploads(this.uploadHandler);
    this.uploadsTotal += this.uploadsLastFrame;
    for (let i = 0; i < this.textures.length; i++) {
      const vt = this.textures[i];
      if (vt && vt.pageTable.dirty.entryCount() > 0) vt.flushPageTable();
    }
    const { width, height } = this.feedbackSize();
    this.feedback.setSize(width, height);
    this.feedback.render(scene, camera, frame);
    this.readback.request(frame);
  }

  /** True once every added texture has its coarsest mip resident (keep calling `update` until then). */
  get isReady(): boolean {
    for (const vt of this.textures) if (vt && !vt.isReady) return false;
    return true;
  }

  /** Frames started by {@link update} so far (the frame number recency and feedback use). */
  get currentFrame(): number {
    return this.frame;
  }

  /** Exact GPU bytes by category and streaming counters (allocates: for HUDs and tests). */
  stats(): VirtualTextureSystemStats {
    const poolLayers = this.poolTextures.textures.map(() => this.poolTextures.bytesPerLayer);
    const pageTables = this.pageTableUsed;
    const feedbackTargets = this.disposed ? 0 : this.feedback.bytes;
    const readbackBuffers = this.readback.bytes;
    const total = poolLayers.reduce((a, b) => a + b, 0) + pageTables + feedbackTargets + readbackBuffers;
    return {
      frame: this.frame,
      gpuBytes: { poolLayers, pageTables, feedbackTargets, readbackBuffers, total },
      byCategory: this.disposed
        ? { 'vt-pool': 0, 'page-table': 0, feedback: 0, readback: 0 }
        : { ...this.reserved },
      slotCount: this.streamer.pool.slotCount,
      residentPages: this.streamer.pool.residentCount,
      uploadsLastFrame: this.uploadsLastFrame,
      uploadsTotal: this.uploadsTotal,
      mipBias: this.streamer.mipBias,
      readbacks: { ...this.readback.counters },
    };
  }

  /** Frees every GPU resource, material and pending load. The system cannot be used afterwards. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.streamer.dispose();
    this.readback.dispose();
    this.feedback.dispose();
    this.poolTextures.dispose();
    for (let i = 0; i < this.textures.length; i++) {
      const vt = this.textures[i];
      if (vt) vt.pageTableTexture.dispose();
      this.textures[i] = null;
    }
    this.pageTableUsed = 0;
    for (const handle of this.reservations) this.budget.release(handle);
    this.reservations.length = 0;
    this.evictableMask = 0;
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
    if (
      !Number.isInteger(id) ||
      id < 0 ||
      id >= 16 ||
      !this.textures[id] ||
      (typeof vt !== 'number' && this.textures[id] !== vt)
    ) {
      throw new TesseraError('unknown-texture', `no virtual texture ${id} in this system`);
    }
    if (evictable) this.evictableMask |= 1 << id;
    else this.evictableMask &= ~(1 << id);
  }

  /** True when `vt` was marked with {@link makeEvictable}. */
  isEvictable(vt: VirtualTexture | number): boolean {
    const id = typeof vt === 'number' ? vt : vt.id;
    return (this.evictableMask & (1 << id)) !== 0;
  }

  private releaseEvictablePages(frame: number): void {
    let budget = this.evictPagesPerFrame;
    for (let vt = 0; vt < 16 && budget > 0; vt++) {
      if ((this.evictableMask & (1 << vt)) === 0) continue;
      budget -= this.streamer.releaseTexturePages(vt, budget, frame - EVICTABLE_IDLE_FRAMES);
    }
  }

  private onFeedback(ids: Uint32Array, frame: number, width: number, height: number): void {
    if (this.disposed) return;
    this.streamer.submitFeedback(ids);
    if (!this.events.has('feedback')) return;
    const event = this.feedbackEvent;
    event.frame = frame;
    event.ids = ids;
    event.width = width;
    event.height = height;
    this.events.emit('feedback', event);
  }

  /** Feedback target size for the current canvas, written into {@link feedbackScratch} (no allocation). */
  private feedbackSize(): { width: number; height: number } {
    const canvas = this.renderer.domElement;
    const scale = this.feedbackScale;
    let width = Math.max(1, Math.ceil(canvas.width / scale));
    let height = Math.max(1, Math.ceil(canvas.height / scale));
    // Never grow past the pixels reserved in the budget at construction.
    const reserved = this.feedbackPixels;
    if (reserved !== undefined && width * height > reserved) {
      const shrink = Math.sqrt(reserved / (width * height));
      width = Math.max(1, Math.floor(width * shrink));
      height = Math.max(1, Math.floor(height * shrink));
    }
    this.feedbackScratch.width = width;
    this.feedbackScratch.height = height;
    return this.feedbackScratch;
  }

  private assertLive(): void {
    if (this.disposed) throw new TesseraError('disposed', 'this VirtualTextureSystem was disposed');
  }
}
