import { TesseraConfigError } from '../errors';
import { MAX_MIP, MAX_PAGES_PER_SIDE } from './page-id';
import type { TileSourceInfo } from './tile-source';

/** Largest number of layers (albedo, normal, ...) one virtual texture may have. */
export const MAX_LAYERS = 8;
/** Default tile side including its border, in texels (id Tech 5 / Unreal). */
export const DEFAULT_TILE_SIZE = 128;
/** Default border inside each tile side, in texels. */
export const DEFAULT_BORDER = 4;
/**
 * Default number of pinned (always resident) coarsest mips: 3, i.e. the levels of at most 4x4 pages
 * of a square texture (1 + 4 + 16 = 21 pages). Enough that bilinear fallback never hits nothing and
 * small enough that many textures can share one pool.
 */
export const DEFAULT_PINNED_MIPS = 3;

/** Options of a {@link VirtualTextureLayout}. */
export interface VirtualTextureLayoutOptions {
  /** Width of mip 0, in pages (power of two, 1..4096). */
  widthPages: number;
  /** Height of mip 0, in pages (power of two, 1..4096). */
  heightPages: number;
  /** Tile side including the border, in texels (a multiple of 4, 8..1024). Default 128. */
  tileSize?: number;
  /** Border inside each side of a tile, in texels (0..tileSize/4). Default 4. */
  border?: number;
  /** Number of layers sharing the page table (1..8). Default 1. */
  layers?: number;
  /** Coarsest mips kept resident forever (1..mipCount). Default min(3, mipCount). */
  pinnedMipCount?: number;
  /**
   * Texels of mip 0 holding content, from the top-left corner (the rest is padding to whole
   * power-of-two pages), 1..widthPages x payload. Default: the whole width.
   */
  contentWidth?: number;
  /** Texels of mip 0 holding content, from the top, 1..heightPages x payload. Default: the whole height. */
  contentHeight?: number;
}

function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;
}

function contentExtent(name: string, value: number | undefined, full: number): number {
  if (value === undefined) return full;
  if (!Number.isInteger(value) || value < 1 || value > full) {
    throw new TesseraConfigError('invalid-size', `${name} must be an integer in 1..${full}, got ${value}`);
  }
  return value;
}

/**
 * Validated geometry of one virtual texture: size in pages per mip, tile and border sizes, layer
 * count and which mips are pinned. Immutable; every invalid option throws a
 * {@link TesseraConfigError} here, never later.
 */
export class VirtualTextureLayout {
  /** Width of mip 0, in pages. */
  readonly widthPages: number;
  /** Height of mip 0, in pages. */
  readonly heightPages: number;
  /** Tile side including the border, in texels. */
  readonly tileSize: number;
  /** Border inside each tile side, in texels. */
  readonly border: number;
  /** Usable texels per tile side (tileSize - 2 x border). */
  readonly payloadSize: number;
  /** Layers sharing the page table. */
  readonly layerCount: number;
  /** Number of mips, down to a single page: log2(max(w, h)) + 1. */
  readonly mipCount: number;
  /** Number of pinned coarsest mips. */
  readonly pinnedMipCount: number;
  /** Finest pinned mip: mips >= this are pinned. */
  readonly firstPinnedMip: number;
  /** Width of each mip, in pages (index = mip). */
  readonly mipWidths: Uint16Array;
  /** Height of each mip, in pages (index = mip). */
  readonly mipHeights: Uint16Array;
  /** Pages in all mips together. */
  readonly totalPages: number;
  /** Pages in the pinned mips together (slots they hold forever). */
  readonly pinnedPages: number;
  /** Texels of mip 0 holding content from the left edge (at most widthPages x payloadSize). */
  readonly contentWidth: number;
  /** Texels of mip 0 holding content from the top edge (at most heightPages x payloadSize). */
  readonly contentHeight: number;

  constructor(options: VirtualTextureLayoutOptions) {
    const { widthPages, heightPages } = options;
    const tileSize = options.tileSize ?? DEFAULT_TILE_SIZE;
    const border = options.border ?? DEFAULT_BORDER;
    const layers = options.layers ?? 1;
    for (const [name, value] of [
      ['widthPages', widthPages],
      ['heightPages', heightPages],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new TesseraConfigError('invalid-size', `${name} must be a positive integer, got ${value}`);
      }
      if (!isPowerOfTwo(value)) {
        throw new TesseraConfigError('not-power-of-two', `${name} must be a power of two, got ${value}`);
      }
      if (value > MAX_PAGES_PER_SIDE) {
        throw new TesseraConfigError('too-large', `${name} must be <= ${MAX_PAGES_PER_SIDE}, got ${value}`);
      }
    }
    // Any multiple of 4 (whole 4x4 blocks per slot for block-compressed pools), not only powers of
    // two: imagery pages whose payload equals the source's tiles (264 = 256 + 2 x 4) read one tile each.
    if (!Number.isInteger(tileSize) || tileSize % 4 !== 0 || tileSize < 8 || tileSize > 1024) {
      throw new TesseraConfigError(
        'invalid-tile',
        `tileSize must be a multiple of 4 in 8..1024, got ${tileSize}`,
      );
    }
    if (!Number.isInteger(border) || border < 0 || border > tileSize / 4) {
      throw new TesseraConfigError(
        'invalid-tile',
        `border must be an integer in 0..${tileSize / 4}, got ${border}`,
      );
    }
    if (!Number.isInteger(layers) || layers < 1 || layers > MAX_LAYERS) {
      throw new TesseraConfigError(
        'invalid-layers',
        `layers must be an integer in 1..${MAX_LAYERS}, got ${layers}`,
      );
    }
    this.widthPages = widthPages;
    this.heightPages = heightPages;
    this.tileSize = tileSize;
    this.border = border;
    this.payloadSize = tileSize - 2 * border;
    this.layerCount = layers;
    this.mipCount = Math.log2(Math.max(widthPages, heightPages)) + 1;
    if (this.mipCount - 1 > MAX_MIP) {
      throw new TesseraConfigError('too-large', `mip count ${this.mipCount} exceeds ${MAX_MIP + 1}`);
    }
    const pinned = options.pinnedMipCount ?? Math.min(DEFAULT_PINNED_MIPS, this.mipCount);
    if (!Number.isInteger(pinned) || pinned < 1 || pinned > this.mipCount) {
      throw new TesseraConfigError(
        'invalid-option',
        `pinnedMipCount must be an integer in 1..${this.mipCount}, got ${pinned}`,
      );
    }
    this.pinnedMipCount = pinned;
    this.firstPinnedMip = this.mipCount - pinned;
    this.mipWidths = new Uint16Array(this.mipCount);
    this.mipHeights = new Uint16Array(this.mipCount);
    let total = 0;
    let pinnedPages = 0;
    for (let m = 0; m < this.mipCount; m++) {
      const w = Math.max(1, widthPages >> m);
      const h = Math.max(1, heightPages >> m);
      this.mipWidths[m] = w;
      this.mipHeights[m] = h;
      total += w * h;
      if (m >= this.firstPinnedMip) pinnedPages += w * h;
    }
    this.totalPages = total;
    this.pinnedPages = pinnedPages;
    this.contentWidth = contentExtent('contentWidth', options.contentWidth, widthPages * this.payloadSize);
    this.contentHeight = contentExtent(
      'contentHeight',
      options.contentHeight,
      heightPages * this.payloadSize,
    );
  }

  /** Builds a layout from what a tile source reports (layers from `info.layers.length`). */
  static fromSourceInfo(info: TileSourceInfo, pinnedMipCount?: number): VirtualTextureLayout {
    return new VirtualTextureLayout({
      widthPages: info.widthPages,
      heightPages: info.heightPages,
      tileSize: info.tileSize,
      border: info.border,
      layers: info.layers.length,
      pinnedMipCount,
      contentWidth: info.contentWidth,
      contentHeight: info.contentHeight,
    });
  }

  /** True when (`mip`, `x`, `y`) addresses a page of this texture (coordinates in pages at that mip). */
  contains(mip: number, x: number, y: number): boolean {
    return (
      mip >= 0 &&
      mip < this.mipCount &&
      x >= 0 &&
      y >= 0 &&
      x < this.mipWidths[mip] &&
      y < this.mipHeights[mip]
    );
  }

  /** Bytes a dense r32uint page table of this layout would take (4 bytes per page of every mip): what the sparse one avoids. */
  get pageTableBytes(): number {
    return this.totalPages * 4;
  }

  /** True when `mip` is one of the pinned coarsest levels. */
  isPinnedMip(mip: number): boolean {
    return mip >= this.firstPinnedMip;
  }

  /** Bytes of one tile across all layers at `bytesPerTexel` (default 4, rgba8). */
  tileBytes(bytesPerTexel = 4): number {
    return this.tileSize * this.tileSize * bytesPerTexel * this.layerCount;
  }
}
