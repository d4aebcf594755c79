import type { DataTexture } from 'three';
import { TesseraConfigError, TesseraError } from '../core/errors';
import type { UvRect } from '../core/vt/page-rect';
import type { PageTable } from '../core/vt/page-table/page-table';
import type { PageTableGeometry } from '../core/vt/page-table/page-table-blocks';
import type { UastcTarget } from '../core/vt/residency/pool-format';
import {
  isNormalWithYInAlpha,
  type TileEncoding,
  type TileLayerInfo,
  type TileLayerUsage,
  type TileSource,
} from '../core/vt/tile-source';
import type { VirtualTextureLayout } from '../core/vt/vt-layout';
import type { RenderedBc7Modes, RenderedLayerStorage, WorldRect } from './page-producers';
import type { PageTableTextures } from './page-table/page-table-textures';
import type { SamplingContext } from './sampling/sampling-context';
import type { SampledVirtualTexture } from './sampling/virtual-texture-graph';

/**
 * One virtual texture of a {@link VirtualTextureSystem}: what `virtualTexture(tex, uv)` samples.
 * Created by `system.add(source)`; its GPU page table lives until `system.remove(vt)` or the
 * system is disposed.
 */
export class VirtualTexture implements SampledVirtualTexture {
  /** Index in page ids and feedback (0..15). */
  readonly id: number;
  /** Name given at `add` (used in GPU labels). */
  readonly name: string;
  /** Where tiles come from. */
  readonly source: TileSource;
  /** Validated geometry (pages per mip, tile and border sizes). */
  readonly layout: VirtualTextureLayout;
  /** CPU page table (core), mirrored to {@link pageTableIndirection} and {@link pageTableAtlas}. */
  readonly pageTable: PageTable;
  /** @internal the system's sampling context. */
  readonly context: SamplingContext;
  /**
   * Source layer written into each pool layer (index = pool layer, value = index into
   * `source.info.layers`, -1 when this texture leaves that pool layer unused).
   */
  readonly poolLayerSource: Int8Array;
  private table: PageTableTextures;
  private released = false;
  private readonly layerNames: readonly string[];

  /** @internal made by {@link VirtualTextureSystem.add}. */
  constructor(
    id: number,
    name: string,
    source: TileSource,
    layout: VirtualTextureLayout,
    pageTable: PageTable,
    table: PageTableTextures,
    context: SamplingContext,
    poolLayerSource: Int8Array,
  ) {
    this.id = id;
    this.name = name;
    this.source = source;
    this.layout = layout;
    this.pageTable = pageTable;
    this.table = table;
    this.context = context;
    this.layerNames = source.info.layers.map((layer) => layer.name);
    this.poolLayerSource = poolLayerSource;
  }

  /**
   * True once {@link VirtualTextureSystem.remove} released this texture: its pages, page table and
   * loads are gone; nodes already in materials draw transparent black and request nothing, and
   * `virtualTexture(vt)` or the system's methods throw TesseraError('unknown-texture').
   */
  get removed(): boolean {
    return this.released;
  }

  /** @internal marks the texture removed and frees its page-table textures (called by the system). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.table.dispose();
  }

  /**
   * Makes the pages showing `rect` render again, for a texture whose source is a
   * `RenderedTileSource` (after its decals or the data its nodes read changed): the resident pages
   * whose tiles (borders included) overlap it, at every mip, re-render within a few frames
   * (`maxRendersPerFrame`), each keeping its old content bound until the new one is copied in (no
   * flash). `rect` is in the texture's uv (`uvSpace: 'virtual'`: the whole texture, v down) or,
   * with `'world'`, in the source's world units. Returns the pages marked (see
   * `stats().rendering`).
   * @throws TesseraConfigError('invalid-option') for another kind of source or a malformed rect;
   *   TesseraError('unknown-texture') once removed.
   */
  invalidate(rect: UvRect): number;
  /**
   * As the other overload, with `rect` in the source's world units (`units` `'world'`).
   * @throws as the other overload.
   */
  invalidate(rect: WorldRect, units: 'world'): number;
  invalidate(rect: UvRect | WorldRect, units: 'uv' | 'world' = 'uv'): number {
    if (this.released) {
      throw new TesseraError('unknown-texture', `virtual texture '${this.name}' was removed`);
    }
    return this.context.invalidatePages(this, rect, units);
  }

  /**
   * @internal Swaps in `table` (page-table textures recreated, and fully uploaded, after a device
   * loss) and frees the old ones.
   */
  replacePageTableTextures(table: PageTableTextures): void {
    this.table.dispose();
    this.table = table;
  }

  /** Recreates the block atlas at the page table's current capacity (the caller rebuilds graphs). */
  resizePageTableAtlas(): void {
    this.table.resizeAtlas();
  }

  /** Width of mip 0, in pages. */
  get widthPages(): number {
    return this.layout.widthPages;
  }
  /** Height of mip 0, in pages. */
  get heightPages(): number {
    return this.layout.heightPages;
  }
  /** Number of mips. */
  get mipCount(): number {
    return this.layout.mipCount;
  }
  /** Tile side including border, in texels. */
  get tileSize(): number {
    return this.layout.tileSize;
  }
  /** Border inside each tile side, in texels. */
  get border(): number {
    return this.layout.border;
  }
  /**
   * Width of the content in mip 0, in texels (a baked image's own width; the rest of the
   * `widthPages x payload` texels is padding). What uv [0, 1] spans by default.
   */
  get contentWidth(): number {
    return this.layout.contentWidth;
  }

  /** Height of the content in mip 0, in texels (see {@link contentWidth}). */
  get contentHeight(): number {
    return this.layout.contentHeight;
  }

  /** Width / height of the content: the aspect a plane showing it edge to edge should have. */
  get aspect(): number {
    return this.layout.contentWidth / this.layout.contentHeight;
  }

  /** The page table's indirection texture (r32uint, one level per mip below the tail). */
  get pageTableIndirection(): DataTexture {
    return this.table.indirection;
  }
  /** The page table's block atlas (rg32uint: each entry and its parent's). */
  get pageTableAtlas(): DataTexture {
    return this.table.atlas;
  }
  /** Block geometry of the page table (its tail mip; whether it is stored densely). */
  get pageTableGeometry(): PageTableGeometry {
    return this.pageTable.geometry;
  }
  /** GPU bytes of the page table now (indirection plus atlas), in bytes. */
  get pageTableBytes(): number {
    return this.table.bytes;
  }
  /** True once every page has a resident fallback (the coarsest mip is loaded). */
  get isReady(): boolean {
    return this.pageTable.isResident(this.layout.mipCount - 1, 0, 0);
  }

  /**
   * @internal Uploads the page table's dirty rectangles (only those) to the GPU and clears them.
   * Called by the system after uploads; allocates nothing.
   */
  flushPageTable(): void {
    this.table.upload();
  }

  /** True when pool layer `layer` holds a normal map with y in alpha (`NormalChannels` 'red-alpha'). */
  normalYInAlpha(layer: number): boolean {
    const from = this.poolLayerSource[layer] ?? -1;
    return from >= 0 && isNormalWithYInAlpha(this.source.info.layers[from]);
  }

  /**
   * Pool layer holding the source layer called `name` (what sampling nodes read); throws
   * `unknown-texture` for a name the source lacks or a layer not mapped into the pool.
   */
  layerIndex(name: string): number {
    const sourceLayer = this.layerNames.indexOf(name);
    const poolLayer = sourceLayer < 0 ? -1 : this.poolLayerSource.indexOf(sourceLayer);
    if (poolLayer < 0) {
      throw new TesseraError(
        'unknown-texture',
        `virtual texture '${this.name}' has no layer '${name}' in the pool`,
      );
    }
    return poolLayer;
  }
}

/** One pool layer of a {@link VirtualTextureSystem}: a name sources map onto, and its texel format. */
export interface VirtualTexturePoolLayer {
  /** Name matched against source layer names (e.g. 'albedo', 'normal'). */
  name: string;
  /**
   * Encoding of the tiles it receives; a source layer mapped here must have the same. UASTC
   * layers are transcoded to the device's best block format (see `choosePoolFormat`).
   */
  format: TileEncoding;
  /** What its texels mean (picks the block format of a UASTC layer). Default 'color'. */
  usage?: TileLayerUsage;
  /**
   * Whether a UASTC colour layer's texels carry alpha. Default true; false (opaque content such as
   * photographs and terrain) lets the transcoder skip alpha: BC7 and ETC2 transcode several times
   * faster. Normal layers never carry alpha.
   */
  alpha?: boolean;
  /**
   * Forces the target of a UASTC layer (tests, or to avoid a format); throws
   * `TesseraConfigError('invalid-option')` at construction when the device lacks it. Default: the
   * best the device offers.
   */
  target?: UastcTarget;
  /**
   * Marks a layer written only by `RenderedTileSource`s (an rgba8 encoding): `'compressed'` keeps
   * its pages in BC7 (sRGB for an sRGB layer), `'compressed-rg'` in BC5 (red and green only, for a
   * normal whose z the app rebuilds), each page compressed on the GPU as it renders, where the
   * device can (WebGPU with `texture-compression-bc`), else rgba8 (WebGL2, no BC: documented in
   * ARCHITECTURE.md); `'rgba8'` keeps rgba8 everywhere. `stats().poolFormats` says which it got.
   * Unset: an ordinary layer. Any other source mapped onto a layer with this set throws
   * `TesseraConfigError('invalid-layers')` at `add`.
   */
  rendered?: RenderedLayerStorage;
  /** BC7 modes of a `rendered: 'compressed'` layer (see `GpuTileCompressorOptions`). Default 'mode6'. */
  renderedBc7Modes?: RenderedBc7Modes;
}

/**
 * How a source's layers land in the pool (`system.add(source, { layers })`): an array lists, per
 * pool layer, the source layer name written there (`['albedo', 'normal']`, `null` to leave a pool
 * layer unused); an object maps source layer names to pool layers by index or pool-layer name
 * (`{ albedo: 0, normal: 'normal' }`).
 */
export type VirtualTextureLayerMapping =
  | readonly (string | null)[]
  | Readonly<Record<string, number | string>>;

/**
 * Resolves `mapping` into "source layer of each pool layer" (-1 = unused), validating it against
 * the source's layers and the pool's. Without a mapping, pool layers are matched by name when every
 * pool layer name exists in the source, else positionally (source layer i into pool layer i).
 * @throws TesseraConfigError('invalid-layers') for a missing layer, a format mismatch, two source
 *   layers in one pool layer, or pool layer 0 (what `virtualTexture(vt)` samples) left unused.
 */
export function mapSourceLayers(
  textureName: string,
  sourceLayers: readonly TileLayerInfo[],
  poolLayers: readonly VirtualTexturePoolLayer[],
  mapping?: VirtualTextureLayerMapping,
): Int8Array {
  const result = new Int8Array(poolLayers.length).fill(-1);
  const sourceIndex = (name: string): number => {
    const index = sourceLayers.findIndex((layer) => layer.name === name);
    if (index < 0) {
      throw new TesseraConfigError('invalid-layers', `'${textureName}' has no source layer '${name}'`);
    }
    return index;
  };
  const poolIndex = (target: number | string): number => {
    const index =
      typeof target === 'number' ? target : poolLayers.findIndex((layer) => layer.name === target);
    if (!Number.isInteger(index) || index < 0 || index >= poolLayers.length) {
      throw new TesseraConfigError(
        'invalid-layers',
        `'${textureName}': no pool layer ${JSON.stringify(target)} (the pool has ${poolLayers.map((l) => l.name).join(', ')})`,
      );
    }
    return index;
  };
  const assign = (pool: number, source: number): void => {
    if (result[pool] >= 0) {
      throw new TesseraConfigError(
        'invalid-layers',
        `'${textureName}': two layers mapped to pool layer ${pool}`,
      );
    }
    if (sourceLayers[source].format !== poolLayers[pool].format) {
      throw new TesseraConfigError(
        'invalid-layers',
        `'${textureName}': layer '${sourceLayers[source].name}' is ${sourceLayers[source].format}, pool layer '${poolLayers[pool].name}' is ${poolLayers[pool].format}`,
      );
    }
    const { normalChannels, usage } = sourceLayers[source];
    if (normalChannels !== undefined && normalChannels !== 'red-green' && normalChannels !== 'red-alpha') {
      throw new TesseraConfigError(
        'invalid-layers',
        `'${textureName}': layer '${sourceLayers[source].name}' has unknown normalChannels '${normalChannels as string}'`,
      );
    }
    if (normalChannels === 'red-alpha' && usage !== 'normal') {
      throw new TesseraConfigError(
        'invalid-layers',
        `'${textureName}': layer '${sourceLayers[source].name}' has normalChannels 'red-alpha' but usage '${usage ?? 'color'}'`,
      );
    }
    result[pool] = source;
  };
  if (mapping === undefined) {
    const byName = poolLayers.every((layer) => sourceLayers.some((s) => s.name === layer.name));
    if (byName) {
      for (let pool = 0; pool < poolLayers.length; pool++) assign(pool, sourceIndex(poolLayers[pool].name));
    } else {
      if (sourceLayers.length > poolLayers.length) {
        throw new TesseraConfigError(
          'invalid-layers',
          `'${textureName}' has ${sourceLayers.length} layers, the pool ${poolLayers.length}`,
        );
      }
      for (let i = 0; i < sourceLayers.length; i++) assign(i, i);
    }
  } else if (Array.isArray(mapping)) {
    if (mapping.length > poolLayers.length) {
      throw new TesseraConfigError(
        'invalid-layers',
        `'${textureName}': ${mapping.length} layers listed, the pool has ${poolLayers.length}`,
      );
    }
    mapping.forEach((name, pool) => {
      if (name !== null) assign(pool, sourceIndex(name));
    });
  } else {
    for (const [name, target] of Object.entries(mapping as Record<string, number | string>)) {
      assign(poolIndex(target), sourceIndex(name));
    }
  }
  if (result[0] < 0) {
    throw new TesseraConfigError(
      'invalid-layers',
      `'${textureName}': pool layer 0 must receive a source layer`,
    );
  }
  return result;
}
