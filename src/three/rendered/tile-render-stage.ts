import { NearestFilter, NoColorSpace, RGBAFormat, SRGBColorSpace, UnsignedByteType } from 'three';
import { RenderTarget } from 'three/webgpu';
import { BudgetPriority } from '../../core/budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../../core/budget/texture-budget';
import { TesseraConfigError } from '../../core/errors';
import {
  MAX_VIRTUAL_TEXTURES,
  NO_REQUEST,
  packPageId,
  pageMip,
  pageVt,
  pageX,
  pageY,
} from '../../core/vt/page-id';
import { type PageRange, pagesOverlappingRect, type UvRect } from '../../core/vt/page-rect';
import type { PoolTexelFormat } from '../../core/vt/residency/pool-format';
import { PageRefreshQueue } from '../../core/vt/scheduling/page-refresh-queue';
import type { VirtualTextureStreamer } from '../../core/vt/virtual-texture-streamer';
import type { BackendBridge } from '../backend-bridge';
import type { PoolTextures } from '../residency/pool-textures';
import { CompressingTileWriter } from './compressing-tile-writer';
import type { RenderedBc7Modes } from './rendered-pool-format';
import type { RenderedTileSource } from './rendered-tile-source';
import { writeRenderedTile } from './write-rendered-tile';

/** Counters of a `TileRenderStage`. */
export interface TileRenderCounters {
  /** Pages rendered during the latest frame (new pages and re-renders). */
  renderedLastFrame: number;
  /** Pages rendered since creation (new pages and re-renders). */
  renderedTotal: number;
  /** Of {@link renderedTotal}, re-renders of resident pages after an invalidation or a pool rebuild. */
  rerenderedTotal: number;
  /** Resident pages waiting to be rendered again. */
  refreshQueued: number;
  /** Tiles compressed on the GPU into block-compressed pool layers since creation (one per page and BC layer). */
  compressedTotal: number;
}

/**
 * The GPU side of rendered textures (`RenderedTileSource`): one tile-sized rgba8 render target per
 * pool layer, reserved in the budget (category `staging`) when the first rendered texture is added,
 * into which a page is rendered before it is copied into its slot (`writeRenderedTile`), or, for a
 * BC7 / BC5 pool layer, compressed into it on the GPU (`CompressingTileWriter`, whose buffers
 * share the reservation). Renders
 * per frame are bounded by a page count, new pages (through the streamer's upload admission) and
 * re-renders of invalidated resident pages sharing it; with nothing else waiting either may take
 * it all. GPU time is not measured (no timestamp queries are used): the bound is pages only.
 *
 * An invalidated page keeps its slot and its old content until the re-render's copy replaces it, so
 * nothing flashes; pages not resident need nothing (they render fresh when loaded).
 */
export class TileRenderStage {
  /** Most pages rendered per frame. */
  maxPerFrame: number;
  readonly counters: TileRenderCounters = {
    renderedLastFrame: 0,
    renderedTotal: 0,
    rerenderedTotal: 0,
    refreshQueued: 0,
    compressedTotal: 0,
  };
  private readonly sources: (RenderedTileSource | null)[] = new Array(MAX_VIRTUAL_TEXTURES).fill(null);
  private readonly layerSources: (Int8Array | null)[] = new Array(MAX_VIRTUAL_TEXTURES).fill(null);
  private targets: RenderTarget[] = [];
  private reservation = NO_RESERVATION;
  private framebuffer: WebGLFramebuffer | null = null;
  private readonly refresh = new PageRefreshQueue();
  private readonly range: PageRange = { x0: 0, y0: 0, x1: -1, y1: -1 };
  private thisFrame = 0;
  private reserving = false;
  /** Writes the tiles of block-compressed pool layers. */
  private readonly compressing: CompressingTileWriter;
  /** The streamer's upload admission: a rendered texture's tile waits once the frame's bound is met. */
  readonly admit = (vt: number): boolean => this.sources[vt] === null || this.thisFrame < this.maxPerFrame;

  constructor(
    private bridge: BackendBridge,
    private readonly budget: TextureBudget,
    private readonly formats: readonly PoolTexelFormat[],
    private readonly tileSize: number,
    maxPerFrame: number,
    /** Each pool layer's BC7 modes for rendered pages (BC7 layers only; default `DEFAULT_RENDERED_BC7_MODES`). */
    layers: readonly { renderedBc7Modes?: RenderedBc7Modes }[] = [],
  ) {
    this.maxPerFrame = maxPerFrame;
    this.compressing = new CompressingTileWriter(
      formats,
      layers.map((layer) => layer.renderedBc7Modes),
      tileSize,
    );
  }

  /** Bytes the render targets and compressor buffers take (reserved once a rendered texture exists), in bytes. */
  get targetBytes(): number {
    return this.formats.length * this.tileSize * this.tileSize * 4 + this.compressing.plannedBytes;
  }

  /** Bytes reserved now, in bytes. */
  get reservedBytes(): number {
    return this.reservation === NO_RESERVATION ? 0 : this.budget.bytesOf(this.reservation);
  }

  /** Bytes of the render targets and compressor buffers allocated now (created at the first render), in bytes. */
  get allocatedBytes(): number {
    return this.targets.length * this.tileSize * this.tileSize * 4 + this.compressing.allocatedBytes;
  }

  /** Bytes the pool must leave to this stage: the reservation, or the targets while reserving them. */
  get budgetedBytes(): number {
    return this.reserving ? this.targetBytes : this.reservedBytes;
  }

  /** True when texture `vt` is rendered here. */
  has(vt: number): boolean {
    return this.sources[vt] !== null;
  }

  /**
   * Starts rendering texture `vt` from `source`, its pool layer `l` from source layer
   * `layerSource[l]`. The first one reserves the render targets; `makeRoom(bytes)` is asked to
   * free budget (the pool shrinks) when the budget has none.
   * @throws TesseraConfigError('invalid-layers') when a mapped pool layer is neither rgba8 nor
   *   BC7 / BC5 on a device the GPU compressor runs on;
   *   ('budget-too-small') when the targets cannot be reserved. Nothing changes then.
   */
  attach(
    vt: number,
    source: RenderedTileSource,
    layerSource: Int8Array,
    makeRoom: (bytes: number) => void,
  ): void {
    for (let l = 0; l < layerSource.length; l++) {
      if (layerSource[l] >= 0) this.compressing.checkLayer(this.bridge, l);
    }
    if (this.reservation === NO_RESERVATION) this.reserve(makeRoom);
    this.sources[vt] = source;
    this.layerSources[vt] = layerSource;
  }

  /** Stops rendering texture `vt` (removed); the targets stay for other rendered textures. */
  detach(vt: number): void {
    this.sources[vt] = null;
    this.layerSources[vt] = null;
    this.refresh.clear(vt);
    this.counters.refreshQueued = this.refresh.size;
  }

  /**
   * Starts a frame's count and re-renders invalidated pages, up to half the frame's bound (new
   * pages get the rest through {@link admit}; {@link refreshPages} after the uploads takes what
   * they left). Returns this stage.
   */
  beginFrame(streamer: VirtualTextureStreamer, pool: PoolTextures): this {
    this.thisFrame = 0;
    this.counters.renderedLastFrame = 0;
    if (this.refresh.size > 0) this.refreshPages(streamer, pool, Math.ceil(this.maxPerFrame / 2));
    return this;
  }

  /** Renders page `pageId` of texture `vt` into `slot` of `pool` (every mapped layer). */
  render(vt: number, pool: PoolTextures, slot: number, pageId: number): boolean {
    const source = this.sources[vt];
    const layerSource = this.layerSources[vt];
    if (source === null || layerSource === null) return false;
    const renderer = this.bridge.renderer;
    const mip = pageMip(pageId);
    const x = pageX(pageId);
    const y = pageY(pageId);
    const targets = this.ensureTargets();
    let written = true;
    for (let l = 0; l < layerSource.length; l++) {
      if (layerSource[l] < 0) continue;
      source.renderPage(renderer, layerSource[l], mip, x, y, targets[l], this.bridge.isWebGPU);
      const tile = targets[l].texture;
      written =
        (this.compressing.compresses(l)
          ? this.compressing.write(this.bridge, tile, pool, l, slot)
          : writeRenderedTile(this.bridge, tile, pool, l, slot, this.framebuffer)) && written;
    }
    this.thisFrame++;
    this.counters.renderedLastFrame++;
    this.counters.renderedTotal++;
    this.counters.compressedTotal = this.compressing.compressedTiles;
    return written;
  }

  /**
   * Marks the resident pages of texture `vt` whose tiles (borders included) overlap `rect` (uv of
   * the whole texture), at every mip, for a re-render. Returns the pages marked.
   */
  invalidate(vt: number, streamer: VirtualTextureStreamer, rect: UvRect): number {
    const table = streamer.pageTable(vt);
    const layout = table.layout;
    let marked = 0;
    for (let mip = 0; mip < layout.mipCount; mip++) {
      const r = pagesOverlappingRect(layout, mip, rect, this.range);
      for (let y = r.y0; y <= r.y1; y++) {
        for (let x = r.x0; x <= r.x1; x++) {
          if (!table.isResident(mip, x, y)) continue;
          if (this.refresh.add(packPageId(vt, mip, x, y))) marked++;
        }
      }
    }
    this.counters.refreshQueued = this.refresh.size;
    return marked;
  }

  /**
   * Re-renders queued pages still resident into their slots, until `limit` renders this frame (at
   * most {@link maxPerFrame}). Returns the pages re-rendered.
   */
  refreshPages(streamer: VirtualTextureStreamer, pool: PoolTextures, limit = this.maxPerFrame): number {
    let done = 0;
    const bound = Math.min(limit, this.maxPerFrame);
    while (this.thisFrame < bound && this.refresh.size > 0) {
      const pageId = this.refresh.take();
      if (pageId === NO_REQUEST || this.sources[pageVt(pageId)] === null) continue;
      const slot = streamer.pool.slotOf(pageId);
      if (slot < 0) continue; // evicted since: it renders fresh if loaded again
      this.render(pageVt(pageId), pool, slot, pageId);
      this.counters.rerenderedTotal++;
      done++;
    }
    this.counters.refreshQueued = this.refresh.size;
    return done;
  }

  /**
   * Renders every resident page of the rendered textures into `pool` at once, without the
   * per-frame bound: after a pool rebuild without a GPU copy (a budget cut, a device loss) only the
   * pinned pages are resident, and no CPU copy of theirs exists to write back.
   */
  renderResident(streamer: VirtualTextureStreamer, pool: PoolTextures): void {
    const pages = streamer.pool.slotPages;
    for (let slot = 0; slot < pages.length; slot++) {
      const pageId = pages[slot];
      if (pageId === NO_REQUEST || this.sources[pageVt(pageId)] === null) continue;
      this.render(pageVt(pageId), pool, slot, pageId);
      this.counters.rerenderedTotal++;
    }
  }

  /** Moves onto a new renderer (device loss): targets are recreated on first use. */
  recover(bridge: BackendBridge): void {
    this.disposeTargets();
    this.bridge = bridge;
  }

  /** Frees the render targets and their reservation. */
  dispose(): void {
    this.disposeTargets();
    if (this.reservation !== NO_RESERVATION) this.budget.release(this.reservation);
    this.reservation = NO_RESERVATION;
    this.refresh.clear();
    this.sources.fill(null);
    this.layerSources.fill(null);
  }

  private reserve(makeRoom: (bytes: number) => void): void {
    const bytes = this.targetBytes;
    let handle = this.budget.tryReserve('staging', bytes, undefined, BudgetPriority.infrastructure);
    if (handle === NO_RESERVATION) {
      // The pool's target leaves room for budgetedBytes: shrinking it to its target frees them.
      this.reserving = true;
      try {
        makeRoom(bytes);
      } finally {
        this.reserving = false;
      }
      handle = this.budget.tryReserve('staging', bytes, undefined, BudgetPriority.infrastructure);
    }
    if (handle === NO_RESERVATION) {
      throw new TesseraConfigError(
        'budget-too-small',
        `no room in the budget for ${bytes} bytes of render targets`,
      );
    }
    this.reservation = handle;
  }

  private ensureTargets(): RenderTarget[] {
    if (this.targets.length > 0) return this.targets;
    this.targets = this.formats.map((format, layer) => {
      const target = new RenderTarget(this.tileSize, this.tileSize, {
        format: RGBAFormat,
        type: UnsignedByteType,
        // The compressor reads an sRGB target as linear and re-encodes it for an sRGB block format.
        colorSpace:
          format === 'rgba8unorm-srgb' || format === 'bc7-rgba-unorm-srgb' ? SRGBColorSpace : NoColorSpace,
        depthBuffer: false,
        generateMipmaps: false,
        minFilter: NearestFilter,
        magFilter: NearestFilter,
      });
      target.texture.name = `tessera:render-target:${layer}`;
      return target;
    });
    const gl = this.bridge.gl;
    if (gl !== null) this.framebuffer = gl.createFramebuffer();
    return this.targets;
  }

  private disposeTargets(): void {
    for (const target of this.targets) target.dispose();
    this.targets = [];
    this.compressing.dispose();
    if (this.framebuffer !== null) this.bridge.gl?.deleteFramebuffer(this.framebuffer);
    this.framebuffer = null;
  }
}
