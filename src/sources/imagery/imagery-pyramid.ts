/**
 * The contract between imagery people already have (a Cloud-Optimized GeoTIFF, a PMTiles archive,
 * an XYZ tile server, a IIIF or Deep Zoom pyramid) and {@link ImageryTileSource}, which turns any
 * such pyramid into virtual-texture pages with borders. A pyramid only says which tiles exist and
 * returns their texels; page geometry, borders, derived coarse levels and fallbacks are the
 * adapter's.
 */

import type { TileSourceRequestCounters } from '../../core/vt/tile-source';
import type { ImageryTile } from '../io/tile-decoder';

/** One level of a tiled image pyramid. */
export interface ImageryLevel {
  /** Width of the whole level, in texels. */
  readonly width: number;
  /** Height of the whole level, in texels. */
  readonly height: number;
  /**
   * Width of the tile grid's cells, in texels: tile (x, y) covers texels
   * `[x * tileWidth, min((x + 1) * tileWidth, width))` of the level (overlap, as Deep Zoom has,
   * is removed by the pyramid).
   */
  readonly tileWidth: number;
  /** Height of the tile grid's cells, in texels. */
  readonly tileHeight: number;
}

/** What a pyramid tells the adapter. */
export interface ImageryPyramidInfo {
  /**
   * Levels from the finest (index 0, full resolution) to the coarsest. Level `i` is the image at
   * scale `2^-i`: its size is within one texel of `ceil(level0 / 2^i)`. A pyramid need not reach
   * one tile: the adapter derives coarser levels from its coarsest.
   */
  readonly levels: readonly ImageryLevel[];
  /**
   * How the image continues past its left and right edges: `'repeat'` for a whole-world web map
   * (longitude wraps, so borders at the antimeridian come from the other side), `'clamp'` (the
   * edge texels repeat, as `ClampToEdgeWrapping`) otherwise. Default `'clamp'`.
   */
  readonly wrapX?: 'clamp' | 'repeat';
  /** Credit line the imagery's licence asks the application to show, if any. */
  readonly attribution?: string;
}

// The decoders (shared with the archive, in io/) produce it; it is part of the pyramid contract.
export type { ImageryTile } from '../io/tile-decoder';

/**
 * A tiled image pyramid, read tile by tile. Implementations must reject with an `AbortError`
 * promptly once `signal` aborts.
 */
export interface ImageryPyramid {
  /** Its levels (finest first), tile sizes, wrapping and attribution. */
  readonly info: ImageryPyramidInfo;
  /**
   * The request counts of the HTTP client the pyramid reads through, live (absent when it does not
   * read over HTTP); {@link ImageryTileSource} hands them on as its `requestCounters`.
   */
  readonly requestCounters?: TileSourceRequestCounters;
  /**
   * Loads tile (`x`, `y`) of level `level` (index into {@link ImageryPyramidInfo.levels}).
   * Resolves `null` when the tile does not exist (HTTP 404 or 204, an empty tile, outside the
   * coverage): that is not an error, the adapter falls back to the coarser level, or transparent
   * where no level has the area. Rejects with a `TileSourceError` on failure (its `retryable`
   * says whether trying again may help).
   */
  loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null>;
  /** Releases connections, workers and caches. */
  dispose?(): void;
}
