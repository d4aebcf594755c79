import type { TextureBudget } from '../core/budget/texture-budget';
import { TesseraConfigError } from '../core/errors';
import { MAX_VIRTUAL_TEXTURES } from '../core/vt/page-id';
import { checkUvRect, type UvRect } from '../core/vt/page-rect';
import type { PoolTexelFormat } from '../core/vt/residency/pool-format';
import type { TileData, TileSource } from '../core/vt/tile-source';
import type { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import type { BackendBridge } from './backend-bridge';
import {
  checkNoRenderedLayer,
  type RenderedBc7Modes,
  type RenderedLayerStorage,
} from './rendered/rendered-pool-format';
import { RenderedTileSource, type WorldRect } from './rendered/rendered-tile-source';
import { type TileRenderCounters, TileRenderStage } from './rendered/tile-render-stage';
import type { PoolTextures } from './residency/pool-textures';

export { checkRenderedLayerOptions, renderedPoolFormat } from './rendered/rendered-pool-format';
// The seam of the opt-in rendered tiles (`rendered/`, and through it the GPU compressor of
// `gpu-compress/`): the only file of the core path that imports them (a harness test checks it).
// What the rest of the binding needs of them (layer options, pool formats, types) passes here.
export type { RenderedBc7Modes, RenderedLayerStorage, TileRenderCounters, WorldRect };

/**
 * How the pages of one virtual texture get into the pool, chosen at `add()` by
 * {@link PageProducers.choose}. The default (no producer) writes the bytes its source loaded; a
 * producer makes them another way, as rendered textures render theirs on the GPU.
 */
export interface PageProducer {
  /** False when texture `vt`'s next page must wait for a later frame (the frame's bound is met). */
  admit(vt: number): boolean;
  /**
   * Puts page `pageId` of texture `vt` into slot `slot` of `pool`; `data` is what its source
   * loaded. Returns false when a layer could not be written.
   */
  produce(vt: number, pool: PoolTextures, slot: number, pageId: number, data: TileData): boolean;
}

/** What {@link PageProducers} needs to build the render stage, when the first rendered texture comes. */
export interface PageProducersOptions {
  budget: TextureBudget;
  /** Texel format of each pool layer. */
  poolFormats: readonly PoolTexelFormat[];
  /** Tile side including border, in texels. */
  tileSize: number;
  /** Most pages of rendered textures rendered per frame. */
  maxRendersPerFrame: number;
  /** The pool layers (name, rendered storage and BC7 modes). */
  layers: readonly { name: string; rendered?: RenderedLayerStorage; renderedBc7Modes?: RenderedBc7Modes }[];
  /** Frees budget for the render targets (the pool shrinks to its target). */
  makeRoom(): void;
}

/** Scratch of {@link PageProducers.invalidate} (a world rectangle in uv). */
const worldUv: UvRect = { minU: 0, minV: 0, maxU: 0, maxV: 0 };

/** Counters while no rendered texture was ever added. */
const NO_RENDERS: Readonly<TileRenderCounters> = Object.freeze({
  renderedLastFrame: 0,
  renderedTotal: 0,
  rerenderedTotal: 0,
  refreshQueued: 0,
  compressedTotal: 0,
});

/**
 * The page producer of each texture of one system, and the frame hooks of the producers in use.
 * Rendered textures (`RenderedTileSource`) are its one plug-in: the first one added builds the
 * `TileRenderStage` (render targets and GPU compressors reserved in the budget as `staging`, the
 * pool shrinking to make room); before that nothing of it exists and its counters read zero.
 */
export class PageProducers {
  private readonly byTexture: (PageProducer | null)[] = new Array(MAX_VIRTUAL_TEXTURES).fill(null);
  private stage: TileRenderStage | null = null;
  /** The render stage as a page producer (its admission bounds renders per frame); null before it exists. */
  private rendered: PageProducer | null = null;
  private maxRenders: number;
  /** The streamer's upload admission: each texture's producer decides; pages of bytes always pass. */
  readonly admit = (vt: number): boolean => this.byTexture[vt]?.admit(vt) ?? true;

  constructor(
    private bridge: BackendBridge,
    private readonly options: PageProducersOptions,
  ) {
    this.maxRenders = options.maxRendersPerFrame;
  }

  /**
   * Checks, before texture `name` is registered, that `source` can write the pool layers it is
   * mapped onto (pool layer `l` from source layer `poolLayerSource[l]`): a source of bytes may not
   * write a layer kept for rendered pages, whose format may be a block format it cannot write.
   * @throws TesseraConfigError('invalid-layers') naming the layer.
   */
  checkLayers(name: string, source: TileSource, poolLayerSource: Int8Array): void {
    if (!(source instanceof RenderedTileSource))
      checkNoRenderedLayer(name, poolLayerSource, this.options.layers);
  }

  /**
   * Chooses how texture `vt` (checked by {@link checkLayers}) gets its pages: a
   * `RenderedTileSource` renders them (the first one builds the render stage and reserves its
   * targets), any other source's loaded bytes are written.
   * @throws TesseraConfigError('invalid-layers') for a rendered layer the GPU compressor cannot
   *   write on this device; ('budget-too-small') when the render targets do not fit. Nothing
   *   changes then.
   */
  choose(vt: number, source: TileSource, poolLayerSource: Int8Array): void {
    if (!(source instanceof RenderedTileSource)) {
      this.byTexture[vt] = null;
      return;
    }
    const created = this.stage === null;
    const stage = this.stage ?? this.createStage();
    try {
      stage.attach(vt, source, poolLayerSource, this.options.makeRoom);
    } catch (error) {
      if (created) {
        stage.dispose();
        this.stage = null;
        this.rendered = null;
      }
      throw error;
    }
    this.byTexture[vt] = this.rendered;
  }

  /** The producer of texture `vt`'s pages; null when its loaded bytes are written. */
  of(vt: number): PageProducer | null {
    return this.byTexture[vt];
  }

  /** Texture `vt` was removed: its producer forgets it (the render targets stay for others). */
  release(vt: number): void {
    this.byTexture[vt] = null;
    this.stage?.detach(vt);
  }

  /** Before the frame's uploads: re-renders of invalidated pages take up to half the render bound. */
  beginFrame(streamer: VirtualTextureStreamer, pool: PoolTextures): void {
    this.stage?.beginFrame(streamer, pool);
  }

  /** After the frame's uploads: re-renders take what new pages left of the render bound. */
  endFrame(streamer: VirtualTextureStreamer, pool: PoolTextures): void {
    this.stage?.refreshPages(streamer, pool);
  }

  /**
   * Marks the resident pages of texture `vt` (named `name`, served by `source`) overlapping `rect`
   * for a re-render: `rect` in uv of the whole texture, or with `'world'` in the world units of its
   * rendered source. Returns the pages marked.
   * @throws TesseraConfigError('invalid-option') when `vt` is not rendered, or for a malformed rect.
   */
  invalidate(
    vt: number,
    name: string,
    source: TileSource,
    rect: UvRect | WorldRect,
    units: 'uv' | 'world',
    streamer: VirtualTextureStreamer,
  ): number {
    const stage = this.stage;
    if (!(source instanceof RenderedTileSource) || stage === null || this.byTexture[vt] !== this.rendered) {
      throw new TesseraConfigError(
        'invalid-option',
        `'${name}' is not rendered: only a RenderedTileSource re-renders`,
      );
    }
    const uv = units === 'world' ? source.worldToUv(rect as WorldRect, worldUv) : (rect as UvRect);
    checkUvRect(uv);
    return stage.invalidate(vt, streamer, uv);
  }

  /**
   * The pool was rebuilt without a GPU copy (only pinned pages written back from CPU copies):
   * rendered pages, which have no CPU copy, render again now.
   */
  poolRebuilt(streamer: VirtualTextureStreamer, pool: PoolTextures): void {
    this.stage?.renderResident(streamer, pool);
  }

  /** Most pages of rendered textures rendered per frame. */
  get maxRendersPerFrame(): number {
    return this.maxRenders;
  }

  set maxRendersPerFrame(pages: number) {
    this.maxRenders = pages;
    if (this.stage !== null) this.stage.maxPerFrame = pages;
  }

  /** Render counters (zeros while no rendered texture was ever added). */
  get renderCounters(): Readonly<TileRenderCounters> {
    return this.stage?.counters ?? NO_RENDERS;
  }

  /** Bytes of render targets and compressor buffers allocated now, in bytes. */
  get allocatedBytes(): number {
    return this.stage?.allocatedBytes ?? 0;
  }

  /** Bytes reserved for them now (category `staging`), in bytes. */
  get reservedBytes(): number {
    return this.stage?.reservedBytes ?? 0;
  }

  /** Bytes the pool must leave to them: the reservation, or the targets while reserving them. */
  get budgetedBytes(): number {
    return this.stage?.budgetedBytes ?? 0;
  }

  /** Moves onto a new renderer (device loss): render targets are recreated on first use. */
  recover(bridge: BackendBridge): void {
    this.bridge = bridge;
    this.stage?.recover(bridge);
  }

  /** Frees the render targets, compressors and their reservation. */
  dispose(): void {
    this.stage?.dispose();
    this.byTexture.fill(null);
  }

  private createStage(): TileRenderStage {
    const { budget, poolFormats, tileSize, layers } = this.options;
    const stage = new TileRenderStage(this.bridge, budget, poolFormats, tileSize, this.maxRenders, layers);
    this.stage = stage;
    this.rendered = {
      admit: stage.admit,
      produce: (vt, pool, slot, pageId) => stage.render(vt, pool, slot, pageId),
    };
    return stage;
  }
}
