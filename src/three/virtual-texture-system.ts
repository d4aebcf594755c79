import type { Camera, Material, Scene } from 'three';
import { uniform } from 'three/tsl';
import type { WebGPURenderer } from 'three/webgpu';
import { TesseraConfigError, TesseraError } from '../core/errors';
import type { TileData, TileEncoding, TileSource } from '../core/tile-source';
import { TypedEmitter } from '../core/typed-emitter';
import { VirtualTextureStreamer } from '../core/virtual-texture-streamer';
import { VirtualTextureLayout } from '../core/vt-layout';
import { BackendBridge } from './backend-bridge';
import { FeedbackPass } from './feedback-pass';
import { FeedbackReadback, MAX_READBACKS_IN_FLIGHT } from './feedback-readback';
import { choosePoolShape, PageTableTexture, PoolTextures } from './pool-textures';
import type { SamplingContext, VirtualTextureFiltering } from './sampling-context';
import { VirtualTexture } from './virtual-texture';

/** Options of a {@link VirtualTextureSystem}. */
export interface VirtualTextureSystemOptions {
  /** Every GPU byte Tessera allocates (pool, page tables, feedback, readback), in bytes. */
  budgetBytes: number;
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
  /** Format of each pool layer (one pool texture each). Default ['rgba8unorm-srgb']. */
  layers?: readonly TileEncoding[];
  /**
   * Bytes set aside for the page tables of every texture added, in bytes (a texture of w x h pages
   * needs about 5.33 w h bytes). Default: budgetBytes / 16, clamped to 1..16 MiB.
   */
  pageTableBytes?: number;
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
  /** GPU bytes by category. */
  gpuBytes: VirtualTextureGpuBytes;
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
  /** A feedback readback was analysed; `ids` (packed page ids per feedback pixel) is valid during the call. */
  feedback: { frame: number; ids: Uint32Array };
}

/** Smallest default page-table reserve, in bytes (a 256 x 256-page texture fits). */
const MIN_PAGE_TABLE_BYTES = 1 << 20;
/** Largest default page-table reserve, in bytes (a 1024 x 1024-page, 128K² texture needs 5.6 MB). */
const MAX_PAGE_TABLE_BYTES = 16 << 20;

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
  private readonly layerFormats: readonly TileEncoding[];
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

  constructor(renderer: WebGPURenderer, options: VirtualTextureSystemOptions) {
    const bridge = new BackendBridge(renderer);
    this.renderer = renderer;
    this.bridge = bridge;
    if (!(options.budgetBytes > 0) || !Number.isFinite(options.budgetBytes)) {
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
    const filtering = options.filtering ?? 'bilinear';
    if (filtering !== 'bilinear' && filtering !== 'trilinear' && filtering !== 'anisotropic') {
      throw new TesseraConfigError('invalid-option', `unknown filtering '${filtering as string}'`);
    }
    const maxAnisotropy = options.maxAnisotropy ?? 8;
    if (!(maxAnisotropy >= 1 && maxAnisotropy <= 16)) {
      throw new TesseraConfigError('invalid-option', `maxAnisotropy must be in 1..16, got ${maxAnisotropy}`);
    }
    this.layerFormats = options.layers ?? ['rgba8unorm-srgb'];
    if (this.layerFormats.length < 1 || this.layerFormats.length > 8) {
      throw new TesseraConfigError('invalid-layers', 'layers must list 1..8 pool layer formats');
    }
    this.pageTableReserve =
      options.pageTableBytes ??
      Math.max(MIN_PAGE_TABLE_BYTES, Math.min(options.budgetBytes / 16, MAX_PAGE_TABLE_BYTES));

    // Budget: feedback target and readback ring sized for the current canvas, page tables
    // reserved up front, the rest to the pool.
    const { width: fw, height: fh } = this.feedbackSize();
    this.feedbackPixels = fw * fh;
    const feedbackBytes = fw * fh * 8;
    const readbackBytes = bridge.isWebGPU
      ? Math.ceil((fw * 4) / 256) * 256 * fh * MAX_READBACKS_IN_FLIGHT
      : 0;
    const poolBudget = options.budgetBytes - feedbackBytes - readbackBytes - this.pageTableReserve;
    const shape = choosePoolShape(poolBudget, this.tileSize, this.layerFormats.length, bridge.maxTextureSize);
    if (poolBudget <= 0 || shape.slotRows < 1) {
      throw new TesseraConfigError(
        'budget-too-small',
        `budget of ${options.budgetBytes} bytes leaves no pool slot after feedback (${feedbackBytes + readbackBytes}) and page tables (${this.pageTableReserve})`,
      );
    }
    this.poolTextures = new PoolTextures(bridge, shape, this.layerFormats);
    this.streamer = new VirtualTextureStreamer({
      pool: { slotCount: this.poolTextures.slotCount },
      maxUploadsPerFrame: this.maxUploadsPerFrame,
      maxFeedbackPixels: this.feedbackPixels,
    });
    this.streamer.on('error', (event) => this.events.emit('error', event));
    this.streamer.on('page-evicted', (event) => this.events.emit('page-evicted', event));
    this.feedback = new FeedbackPass(renderer, fw, fh);
    this.readback = new FeedbackReadback(bridge, this.feedback.target, (ids, frame) =>
      this.onFeedback(ids, frame),
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
      for (let layer = 0; layer < data.layers.length; layer++) {
        this.poolTextures.writeTile(layer, slot, data.layers[layer]);
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
   * Adds a virtual texture served by `source`. Throws a {@link TesseraConfigError} when its tile
   * size, border or layer formats differ from the system's, when 16 textures exist, or when its
   * page table does not fit the page-table reserve.
   */
  add(source: TileSource, options: { name?: string } = {}): VirtualTexture {
    this.assertLive();
    const info = source.info;
    const layout = VirtualTextureLayout.fromSourceInfo(info);
    if (layout.tileSize !== this.tileSize || layout.border !== this.border) {
      throw new TesseraConfigError(
        'invalid-tile',
        `source tiles are ${layout.tileSize}/${layout.border}, the system's ${this.tileSize}/${this.border}`,
      );
    }
    if (info.layers.length > this.layerFormats.length) {
      throw new TesseraConfigError(
        'invalid-layers',
        `source has ${info.layers.length} layers, the pool ${this.layerFormats.length}`,
      );
    }
    info.layers.forEach((layer, i) => {
      if (layer.format !== this.layerFormats[i]) {
        throw new TesseraConfigError(
          'invalid-layers',
          `layer ${i} is ${layer.format}, the pool's ${this.layerFormats[i]}`,
        );
      }
    });
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
    const vt = new VirtualTexture(id, name, source, layout, pageTable, table, this.context);
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

  /** Exact GPU bytes by category and streaming counters. */
  stats(): VirtualTextureSystemStats {
    const poolLayers = this.poolTextures.textures.map(() => this.poolTextures.bytesPerLayer);
    const pageTables = this.pageTableUsed;
    const feedbackTargets = this.disposed ? 0 : this.feedback.bytes;
    const readbackBuffers = this.readback.bytes;
    const total = poolLayers.reduce((a, b) => a + b, 0) + pageTables + feedbackTargets + readbackBuffers;
    return {
      frame: this.frame,
      gpuBytes: { poolLayers, pageTables, feedbackTargets, readbackBuffers, total },
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
    this.events.clear();
  }

  private onFeedback(ids: Uint32Array, frame: number): void {
    if (this.disposed) return;
    this.streamer.submitFeedback(ids);
    if (this.events.has('feedback')) this.events.emit('feedback', { frame, ids });
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
