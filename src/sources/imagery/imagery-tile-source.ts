/**
 * A virtual texture over an image pyramid people already have (a COG, PMTiles, XYZ tiles, IIIF,
 * Deep Zoom), without baking. Standard tiles carry no border while the pool's pages do, and their
 * size (256 or 512) rarely matches a page's payload, so each page is composed: its texel rectangle
 * at its mip, border included, is copied from whichever source tiles cover it (shared through a
 * decoded-tile cache), the border coming from the neighbouring tiles exactly as the whole image
 * has it. Hence no seam under any filter: every page holds what a texture of the whole image holds
 * around it. Past the image's edges the border repeats the edge texels (`clamp`), or comes from
 * the other side (`repeat`, a whole-world web map's longitude).
 *
 * Tiles the pyramid lacks (404, empty, outside the coverage) are filled from the nearest coarser
 * level that has the area, magnified as the GPU's bilinear sampler would magnify it, so a sparse
 * pyramid shows its coarser imagery, smooth, rather than holes, blocks or errors; where no level
 * has it, the texels are transparent. Mips coarser than the pyramid's coarsest level are
 * box-filtered from it once, in memory, as are the mips of a non-square texture past its short
 * side's last page, which halve only the long side (a page table's mip keeps one page across the
 * short side, so its scale there stops shrinking); texels without data (alpha 0) are left out of
 * those averages, so no-data never darkens the coarse mips.
 */

import { warnDeprecated } from '../../core/deprecation';
import { TesseraConfigError, TileSourceError } from '../../core/errors';
import { MAX_PAGES_PER_SIDE } from '../../core/vt/page-id';
import type {
  TileData,
  TileSource,
  TileSourceInfo,
  TileSourceRequestCounters,
} from '../../core/vt/tile-source';
import { linearToSrgbByte, SRGB_BYTE_TO_LINEAR } from '../color/srgb';
import { downsampleRgba8SkippingNoData } from '../mips/box-downsample';
import type { ImageryLevel, ImageryPyramid, ImageryTile } from './imagery-pyramid';
import { type CachedTile, ImageryTileCache, tileKey } from './imagery-tile-cache';
import { raceAbort } from './race-abort';

/** Options of {@link ImageryTileSource}. */
export interface ImageryTileSourceOptions {
  /**
   * Page side including the border, in texels. Default: the system's, adopted at
   * `VirtualTextureSystem.add` (before that, 128, or the smallest power of two up to 1024 that
   * keeps 4096 pages a side). Given, it must equal the system's.
   */
  tileSize?: number;
  /** Border inside each page side, in texels. Default: the system's (before `add`, 4). */
  border?: number;
  /** Decoded source tiles kept for neighbouring pages, in bytes. Default 32 MiB. */
  cacheBytes?: number;
  /**
   * The texels' colour space, as three's `texture.colorSpace` values: `'srgb'` (three's
   * `SRGBColorSpace`) for colour imagery, `'srgb-linear'` (`LinearSRGBColorSpace`) for linear data
   * (elevation, masks). `'linear'` is the deprecated spelling of `'srgb-linear'` (warns once).
   * Default `'srgb'`; any other value is refused by the constructor.
   */
  colorSpace?: 'srgb' | 'srgb-linear' | 'linear';
  /** Name of the texture's one layer. Default `'color'`. */
  layerName?: string;
  /**
   * The part of the image this texture covers, in texels of the finest level (default: all of
   * it). A texture has at most 4096 pages per side, so a web map deeper than about z11 is drawn
   * as a whole-world texture plus textures of regions at the finest zooms. The borders of pages
   * at the region's edges come from the image around it, so region and whole-world textures meet
   * without a seam. `x` and `y` must be multiples of `2^(mips - 1)` (the texture's coarsest mip),
   * so that every mip of the region starts on a texel.
   */
  region?: { x: number; y: number; width: number; height: number };
}

/** Offset of stand-in tiles' cache keys past pyramid levels (a level is < 32: 2^31 texels at most). */
const STAND_IN_KEY_LEVELS = 32;

/**
 * Source tiles a page's border may wait for at once (see {@link ImageryTileSource.watchPages}); past
 * it the oldest are forgotten (a page at the edge of a view long left keeps its stood-in border).
 */
const MAX_WAITING_TILES = 8192;

/** Key of page (`mip`, `x`, `y`) in the waiting lists (x and y < 4096). */
function pageKey(mip: number, x: number, y: number): number {
  return (mip * 4096 + y) * 4096 + x;
}

/** Largest coarsest level from which coarser mips are derived in memory, in texels. */
const MAX_DERIVED_BASE_TEXELS = 4096 * 4096;

/** Counts of an {@link ImageryTileSource}, for statistics. */
export interface ImageryTileSourceCounters {
  /** Pages composed. */
  pages: number;
  /** Source tiles loaded from the pyramid (cache misses). */
  sourceTiles: number;
  /** Source tiles the pyramid did not have (filled from a coarser level or transparent). */
  missingTiles: number;
  /** Source tile reads answered from the cache. */
  cacheHits: number;
}

/** One tile grid: a pyramid level, or a derived level held whole in memory as one tile. */
interface Grid extends ImageryLevel {
  /** The derived image, for levels coarser than the pyramid's coarsest. */
  image: ImageryTile | null;
}

/** Page sizes tried, in order, for the cut made before the system's is adopted. */
const PROVISIONAL_PAGE_SIZES = [128, 256, 512, 1024] as const;

/**
 * A {@link TileSource} over an {@link ImageryPyramid}: mip 0 is the pyramid's finest level, uv
 * [0, 1] of `virtualTexture(vt)` spans the whole image.
 */
export class ImageryTileSource implements TileSource {
  /** Pages, page geometry and layer, fixed once the texture is added (see {@link followPageGeometry}). */
  info!: TileSourceInfo;
  /** The credit line the imagery asks to show (the pyramid's), if any. */
  readonly attribution: string | undefined;
  private tileSize = 0;
  private border = 0;
  private payload = 0;
  /** True when the options gave a page geometry: the system's must then match it. */
  private readonly geometryGiven: boolean;
  /** True once a system's geometry was adopted (another system must then match it). */
  private adopted = false;
  private readonly layerName: string;
  private readonly regionWidth: number;
  private readonly regionHeight: number;
  private readonly repeatX: boolean;
  private readonly srgb: boolean;
  /** The pyramid's levels, as grids (never an image). */
  private readonly levelGrids: Grid[] = [];
  /** Each mip's grid: the pyramid level of the same index, or a derived image. */
  private grids: Grid[] = [];
  /** First mip derived in memory: past the pyramid's coarsest level or its last square mip. */
  private firstDerivedMip = 0;
  /** log2 of each mip's horizontal and vertical scale down from mip 0 (they differ past the short side). */
  private xShift = new Uint8Array(0);
  private yShift = new Uint8Array(0);
  private readonly cache: ImageryTileCache;
  private derived: Promise<void> | null = null;
  private disposed = false;
  private readonly pageCounters = { pages: 0 };
  /** Texel of the finest level where the region starts. */
  private readonly regionX: number;
  private readonly regionY: number;
  /** The system's callback for pages composed again better (see {@link watchPages}); null: none. */
  private onImproved: ((mip: number, x: number, y: number) => void) | null = null;
  /**
   * Pages whose border stood in for a source tile neither loaded nor loading, by that tile's key:
   * each is reported to {@link onImproved} once the tile settles. Insertion order is age: past
   * {@link MAX_WAITING_TILES} keys the oldest are forgotten.
   */
  private readonly waiting = new Map<number, Set<number>>();

  /** The pyramid's HTTP request counts (see {@link TileSource.requestCounters}). */
  get requestCounters(): TileSourceRequestCounters | undefined {
    return this.pyramid.requestCounters;
  }

  /**
   * @throws TesseraConfigError `invalid-tile` (bad page geometry), `too-large` (more than 4096
   *   pages per side at this page size: use larger pages), `invalid-size` (a pyramid without
   *   levels, or whose coarsest level is too large to derive coarser mips from), `invalid-option`
   *   (a `colorSpace` other than `'srgb'`, `'srgb-linear'` and the deprecated `'linear'`).
   */
  constructor(
    /** The image's pyramid, whose tiles the pages are cut from (disposed with this source). */
    readonly pyramid: ImageryPyramid,
    options: ImageryTileSourceOptions = {},
  ) {
    const levels = pyramid.info.levels;
    if (levels.length === 0) throw new TesseraConfigError('invalid-size', 'the pyramid has no levels');
    for (const level of levels) {
      if (!(level.width >= 1 && level.height >= 1 && level.tileWidth >= 1 && level.tileHeight >= 1)) {
        throw new TesseraConfigError('invalid-size', 'a pyramid level has no texels or no tile size');
      }
    }
    this.repeatX = pyramid.info.wrapX === 'repeat';
    const colorSpace = options.colorSpace ?? 'srgb';
    if (colorSpace === 'linear') {
      warnDeprecated(
        "ImageryTileSourceOptions.colorSpace 'linear'",
        "'srgb-linear' (three's LinearSRGBColorSpace)",
      );
    } else if (colorSpace !== 'srgb' && colorSpace !== 'srgb-linear') {
      throw new TesseraConfigError(
        'invalid-option',
        `colorSpace must be 'srgb' (SRGBColorSpace) or 'srgb-linear' (LinearSRGBColorSpace), got '${colorSpace as string}'`,
      );
    }
    this.srgb = colorSpace === 'srgb';
    this.attribution = pyramid.info.attribution;
    this.layerName = options.layerName ?? 'color';
    const region = options.region ?? { x: 0, y: 0, width: levels[0].width, height: levels[0].height };
    const { width, height } = region;
    if (
      ![region.x, region.y, width, height].every(Number.isInteger) ||
      region.x < 0 ||
      region.y < 0 ||
      width < 1 ||
      height < 1 ||
      region.x + width > levels[0].width ||
      region.y + height > levels[0].height
    ) {
      throw new TesseraConfigError(
        'invalid-size',
        `region ${region.x},${region.y} ${width}x${height} is not inside the ${levels[0].width}x${levels[0].height} image`,
      );
    }
    this.regionX = region.x;
    this.regionY = region.y;
    this.regionWidth = width;
    this.regionHeight = height;
    for (const level of levels) this.levelGrids.push({ ...level, image: null });
    this.cache = new ImageryTileCache(options.cacheBytes ?? 32 * 2 ** 20);
    this.cache.onSettled = (key) => this.tileSettled(key);
    this.geometryGiven = options.tileSize !== undefined || options.border !== undefined;
    if (this.geometryGiven) {
      this.cut(options.tileSize ?? 128, options.border ?? 4);
      return;
    }
    // A provisional cut until the system's geometry is adopted at add(): the smallest page that
    // fits 4096 pages a side, so that an image too large for 128-texel pages is not refused here.
    for (const size of PROVISIONAL_PAGE_SIZES) {
      try {
        this.cut(size, 4);
        return;
      } catch (error) {
        if ((error as TesseraConfigError).code !== 'too-large' || size === PROVISIONAL_PAGE_SIZES.at(-1))
          throw error;
      }
    }
  }

  /**
   * Adopts the system's page geometry (called by `VirtualTextureSystem.add`, before any load) when
   * none was given: the system owns page size and border, the source cuts its pages to them.
   * @throws TesseraConfigError as the constructor for a geometry this image cannot use.
   */
  followPageGeometry(tileSize: number, border: number): void {
    if (this.geometryGiven || (tileSize === this.tileSize && border === this.border)) return;
    if (this.adopted) {
      // A second system with other pages would change the layout the first one streams.
      throw new TesseraConfigError(
        'invalid-tile',
        `this source's pages are ${this.tileSize}/${this.border} (its first system's), not ${tileSize}/${border}`,
      );
    }
    this.cut(tileSize, border);
    this.adopted = true;
  }

  /**
   * Called by `VirtualTextureSystem.add` with the function to call when a resident page can be
   * composed better (and with `null` at `remove`). While one is set, a page loads only the source
   * tiles under its payload: a tile its border alone reaches is read when it is already loaded or
   * loading, else the border repeats the payload's edge texels (what a bilinear sampler shows at
   * the edge of a page whose neighbour is not resident either) and the page is reported once that
   * tile settles, so its border becomes the neighbour's texels without a seam. Pages whose payload
   * is one source tile (system `tileSize` = the pyramid's tile + 2 x border) then read one tile
   * each, as one texture per tile does, instead of the ring of tiles around the view.
   */
  watchPages(onImproved: ((mip: number, x: number, y: number) => void) | null): void {
    this.onImproved = onImproved;
    this.waiting.clear();
  }

  /** A source tile settled: the pages whose border waited for it are reported. */
  private tileSettled(key: number): void {
    const pages = this.waiting.get(key);
    if (pages === undefined) return;
    this.waiting.delete(key);
    const onImproved = this.onImproved;
    if (onImproved === null) return;
    for (const page of pages)
      onImproved(Math.floor(page / 16777216), page % 4096, Math.floor(page / 4096) % 4096);
  }

  /** Page (`mip`, `x`, `y`) waits for tile `key` (see {@link waiting}). */
  private waitFor(key: number, mip: number, x: number, y: number): void {
    let pages = this.waiting.get(key);
    if (pages === undefined) {
      if (this.waiting.size >= MAX_WAITING_TILES) {
        const oldest = this.waiting.keys().next().value as number;
        this.waiting.delete(oldest);
      }
      pages = new Set();
      this.waiting.set(key, pages);
    }
    pages.add(pageKey(mip, x, y));
  }

  /** Cuts the image into pages of `tileSize` texels with `border` (the layout of every mip). */
  private cut(tileSize: number, border: number): void {
    if (!Number.isInteger(tileSize) || !Number.isInteger(border) || border < 0 || tileSize - 2 * border < 1) {
      throw new TesseraConfigError(
        'invalid-tile',
        `page ${tileSize} with border ${border} leaves no payload`,
      );
    }
    const levels = this.pyramid.info.levels;
    const payload = tileSize - 2 * border;
    const width = this.regionWidth;
    const height = this.regionHeight;
    const widthPages = nextPowerOfTwo(Math.ceil(width / payload));
    const heightPages = nextPowerOfTwo(Math.ceil(height / payload));
    if (widthPages > MAX_PAGES_PER_SIDE || heightPages > MAX_PAGES_PER_SIDE) {
      throw new TesseraConfigError(
        'too-large',
        `${width}x${height} texels need ${widthPages}x${heightPages} pages of ${payload}; ` +
          `a virtual texture has at most ${MAX_PAGES_PER_SIDE} per side (use larger pages or a coarser finest level)`,
      );
    }
    const mipCount = Math.log2(Math.max(widthPages, heightPages)) + 1;
    const alignment = 2 ** (mipCount - 1);
    if (this.regionX % alignment !== 0 || this.regionY % alignment !== 0) {
      throw new TesseraConfigError(
        'invalid-size',
        `region origin ${this.regionX},${this.regionY} must be a multiple of ${alignment} texels (its coarsest mip)`,
      );
    }
    const maxXShift = Math.log2(widthPages);
    const maxYShift = Math.log2(heightPages);
    const xShift = new Uint8Array(mipCount);
    const yShift = new Uint8Array(mipCount);
    for (let m = 0; m < mipCount; m++) {
      xShift[m] = Math.min(m, maxXShift);
      yShift[m] = Math.min(m, maxYShift);
    }
    const firstDerivedMip = Math.min(levels.length, Math.min(maxXShift, maxYShift) + 1);
    if (mipCount > firstDerivedMip) {
      const base = levels[firstDerivedMip - 1];
      if (base.width * base.height > MAX_DERIVED_BASE_TEXELS) {
        throw new TesseraConfigError(
          'invalid-size',
          `mips past ${base.width}x${base.height} texels are derived in memory: ` +
            'add overviews down to a few tiles, or use a less elongated region',
        );
      }
    }
    const grids: Grid[] = [];
    for (let m = 0; m < mipCount; m++) {
      if (m < firstDerivedMip) grids.push(this.levelGrids[m]);
      else {
        const w = Math.max(1, levels[0].width >> xShift[m]);
        const h = Math.max(1, levels[0].height >> yShift[m]);
        grids.push({ width: w, height: h, tileWidth: w, tileHeight: h, image: null });
      }
    }
    // Nothing was loaded yet (the system adopts before any load): only the layout changes.
    this.tileSize = tileSize;
    this.border = border;
    this.payload = payload;
    this.xShift = xShift;
    this.yShift = yShift;
    this.firstDerivedMip = firstDerivedMip;
    this.grids = grids;
    this.derived = null;
    this.info = {
      widthPages,
      heightPages,
      tileSize,
      border,
      layers: [{ name: this.layerName, format: this.srgb ? 'rgba8unorm-srgb' : 'rgba8unorm' }],
      contentWidth: width,
      contentHeight: height,
    };
  }

  /** Pages composed, source tiles loaded and missing, cache hits. */
  get counters(): ImageryTileSourceCounters {
    const c = this.cache.counters;
    return {
      pages: this.pageCounters.pages,
      sourceTiles: c.loads,
      missingTiles: c.missing,
      cacheHits: c.hits,
    };
  }

  /** Decoded source tiles held for neighbouring pages, bytes (CPU memory). */
  get cacheBytes(): number {
    return this.cache.bytes;
  }

  /**
   * Composes page (`x`, `y`) at `mip` from the pyramid's tiles under it (its border from the
   * neighbours'), a missing tile standing in from a coarser level.
   * @throws (rejects) TileSourceError `bad-index`, `source-disposed`, and the pyramid's failures
   *   (`network`, `http-status`, `timeout`, `decode-failed`, `wrong-size`, ...); `signal.reason`
   *   once it aborts.
   */
  async load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    if (this.disposed) throw new TileSourceError('source-disposed', 'imagery source disposed', false);
    if (signal.aborted) throw signal.reason;
    if (this.grids[mip] === undefined)
      throw new TileSourceError('bad-index', `mip ${mip} out of range`, false);
    if (mip >= this.firstDerivedMip) await this.deriveCoarseLevels(signal);
    const grid = this.grids[mip];
    const { tileSize: T, border: B, payload: P } = this;
    // The page's texel rectangle at its level, border included.
    const x0 = this.regionX / 2 ** this.xShift[mip] + x * P - B;
    const y0 = this.regionY / 2 ** this.yShift[mip] + y * P - B;
    // Per page, not per frame: loads overlap, so they cannot share scratch arrays.
    const columns = new Int32Array(T);
    const rows = new Int32Array(T);
    for (let i = 0; i < T; i++) {
      columns[i] = this.sourceColumn(grid, x0 + i);
      rows[i] = clamp(y0 + i, 0, grid.height - 1);
    }
    // Every source tile the rectangle touches, loaded in parallel (each at most three per side);
    // while the system watches for better pages, a tile only the border reaches only when it is
    // already loaded or loading (see watchPages).
    const tx0 = Math.floor(minOf(columns) / grid.tileWidth);
    const tx1 = Math.floor(maxOf(columns) / grid.tileWidth);
    const ty0 = Math.floor(rows[0] / grid.tileHeight);
    const ty1 = Math.floor(rows[T - 1] / grid.tileHeight);
    const payloadColumns = columns.subarray(B, T - B);
    const payloadTop = Math.floor(rows[B] / grid.tileHeight);
    const payloadBottom = Math.floor(rows[T - B - 1] / grid.tileHeight);
    const lazyBorder = this.onImproved !== null && grid.image === null && B > 0;
    const tiles = new Map<number, ImageryTile>();
    const pending: Promise<void>[] = [];
    /** Tiles only the border reaches (x, y pairs), read once the payload's are in (lazyBorder). */
    const borderTiles: number[] = [];
    const read = (tx: number, ty: number) =>
      pending.push(this.tile(mip, tx, ty, signal).then((tile) => void tiles.set(ty * 4194304 + tx, tile)));
    for (let ty = ty0; ty <= ty1; ty++) {
      for (let tx = tx0; tx <= tx1; tx++) {
        const left = tx * grid.tileWidth;
        if (!touches(columns, left, left + grid.tileWidth)) continue;
        const underPayload =
          ty >= payloadTop && ty <= payloadBottom && touches(payloadColumns, left, left + grid.tileWidth);
        if (lazyBorder && !underPayload) borderTiles.push(tx, ty);
        else read(tx, ty);
      }
    }
    await Promise.all(pending);
    if (signal.aborted) throw signal.reason;
    if (borderTiles.length > 0) {
      // Looked at once the payload's tiles are in, so that neighbours whose pages started loading
      // meanwhile are read (waiting for the rest of their load) rather than stood in for.
      pending.length = 0;
      for (let k = 0; k < borderTiles.length; k += 2) {
        const key = tileKey(mip, borderTiles[k], borderTiles[k + 1]);
        if (this.cache.has(key)) read(borderTiles[k], borderTiles[k + 1]);
        else this.waitFor(key, mip, x, y);
      }
      await Promise.all(pending);
      if (signal.aborted) throw signal.reason;
    }
    const out = new Uint8Array(T * T * 4);
    for (let j = 0; j < T; j++) {
      const sy = rows[j];
      const ty = Math.floor(sy / grid.tileHeight);
      const oy = sy - ty * grid.tileHeight;
      let i = 0;
      while (i < T) {
        const sx = columns[i];
        const tx = Math.floor(sx / grid.tileWidth);
        const tileLeft = tx * grid.tileWidth;
        // A run of destination columns reading consecutive columns of one tile.
        let n = 1;
        while (i + n < T && columns[i + n] === sx + n && columns[i + n] < tileLeft + grid.tileWidth) n++;
        const tile = tiles.get(ty * 4194304 + tx);
        if (tile === undefined) {
          // A border texel of a tile not read: the nearest payload texel stands in for it.
          for (let k = i; k < i + n; k++) this.standInBorderTexel(out, grid, tiles, columns, rows, k, j);
        } else {
          const from = (oy * tile.width + (sx - tileLeft)) * 4;
          out.set(tile.data.subarray(from, from + n * 4), (j * T + i) * 4);
        }
        i += n;
      }
    }
    this.pageCounters.pages++;
    return { layers: [out] };
  }

  /**
   * Texel (`i`, `j`) of a page whose source tile was not read (a border texel): the same row at
   * the payload's nearest column when that tile was read, else the same column at the payload's
   * nearest row, else the payload's nearest texel (which always was).
   */
  private standInBorderTexel(
    out: Uint8Array,
    grid: Grid,
    tiles: Map<number, ImageryTile>,
    columns: Int32Array,
    rows: Int32Array,
    i: number,
    j: number,
  ): void {
    const { tileSize: T, border: B } = this;
    const ci = clamp(i, B, T - B - 1);
    const rj = clamp(j, B, T - B - 1);
    for (let attempt = 0; attempt < 3; attempt++) {
      const c = attempt === 1 ? i : ci;
      const r = attempt === 0 ? j : rj;
      const tx = Math.floor(columns[c] / grid.tileWidth);
      const ty = Math.floor(rows[r] / grid.tileHeight);
      const tile = tiles.get(ty * 4194304 + tx);
      if (tile === undefined) continue;
      const from = ((rows[r] - ty * grid.tileHeight) * tile.width + (columns[c] - tx * grid.tileWidth)) * 4;
      out.set(tile.data.subarray(from, from + 4), (j * T + i) * 4);
      return;
    }
  }

  /** Frees the decoded tiles and the pyramid's connections and workers. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onImproved = null;
    this.waiting.clear();
    this.cache.clear();
    this.pyramid.dispose?.();
  }

  /** Column `cx` of a level, wrapped (`repeat`) or clamped to the image. */
  private sourceColumn(grid: Grid, cx: number): number {
    if (!this.repeatX) return clamp(cx, 0, grid.width - 1);
    const w = grid.width;
    return ((cx % w) + w) % w;
  }

  /** Tile (`tx`, `ty`) of mip `mip`'s grid: a derived mip's whole image, else {@link levelTile}. */
  private tile(mip: number, tx: number, ty: number, signal: AbortSignal): Promise<ImageryTile> {
    const image = this.grids[mip].image;
    return image !== null ? Promise.resolve(image) : this.levelTile(mip, tx, ty, signal);
  }

  /**
   * Tile (`tx`, `ty`) of pyramid level `level`, never null: the pyramid's tile (checked to hold
   * the whole valid part of its cell), or a stand-in for a missing one.
   */
  private async levelTile(level: number, tx: number, ty: number, signal: AbortSignal): Promise<ImageryTile> {
    const loaded = await this.cache.get(tileKey(level, tx, ty), signal, (s) =>
      this.loadSourceTile(level, tx, ty, s),
    );
    if (loaded !== null) return loaded;
    // Stand-ins are keyed past every pyramid level (a level of a web map reaches 22 and more, so
    // an offset of 16 would share keys with real tiles of coarse zooms).
    return this.cache.get(tileKey(level + STAND_IN_KEY_LEVELS, tx, ty), signal, (s) =>
      this.standIn(level, tx, ty, s),
    ) as Promise<ImageryTile>;
  }

  private async loadSourceTile(
    level: number,
    tx: number,
    ty: number,
    signal: AbortSignal,
  ): Promise<CachedTile> {
    const grid = this.levelGrids[level];
    const tile = await this.pyramid.loadTile(level, tx, ty, signal);
    if (tile === null) return null;
    const validWidth = Math.min(grid.tileWidth, grid.width - tx * grid.tileWidth);
    const validHeight = Math.min(grid.tileHeight, grid.height - ty * grid.tileHeight);
    if (
      tile.width < validWidth ||
      tile.height < validHeight ||
      tile.data.length < tile.width * tile.height * 4
    ) {
      throw new TileSourceError(
        'wrong-size',
        `level ${level} tile ${tx},${ty} is ${tile.width}x${tile.height}, its cell needs ${validWidth}x${validHeight}`,
        false,
      );
    }
    return tile;
  }

  /**
   * A missing tile's stand-in: its cell as the GPU's bilinear sampler magnifies the nearest
   * coarser pyramid level with a tile under it, `k` levels up. Texel `x` of the cell is level
   * `level + k` sampled at `(x + 0.5) / 2^k - 0.5` (texel centres aligned) with bilinear weights,
   * sRGB colour interpolated in linear light as the sampler of an sRGB pool filters it, so a
   * stand-in is as smooth as the coarser mip drawn magnified, not blocks of `2^k` texels. The
   * parent texels it reads, one beyond its footprint included, are what that level's pages hold
   * (its own missing tiles stood in for the same way, image edges clamped or wrapped as pages
   * are), so neighbouring stand-ins continue each other without a step. That texel beyond the
   * footprint can lie in a neighbouring parent tile, the one request a nearest-texel stand-in would
   * not make; a view of a sparse area usually loads it anyway, for the neighbouring cells' own
   * stand-ins or the coarser mip's pages. Past the coarsest level with nothing under the cell, the
   * stand-in is transparent.
   */
  private async standIn(level: number, tx: number, ty: number, signal: AbortSignal): Promise<ImageryTile> {
    const grid = this.levelGrids[level];
    const left = tx * grid.tileWidth;
    const top = ty * grid.tileHeight;
    const width = Math.min(grid.tileWidth, grid.width - left);
    const height = Math.min(grid.tileHeight, grid.height - top);
    const data = new Uint8Array(width * height * 4);
    // The nearest coarser level with a tile under the cell, asking level after level for the
    // tiles under it only, as a nearest-neighbour fallback would.
    let k = 0;
    for (let j = 1; k === 0 && level + j < this.levelGrids.length; j++) {
      const parent = this.levelGrids[level + j];
      const scale = 2 ** j;
      const pxs = Math.floor(Math.min(parent.width - 1, Math.floor(left / scale)) / parent.tileWidth);
      const pxe = Math.floor(
        Math.min(parent.width - 1, Math.floor((left + width - 1) / scale)) / parent.tileWidth,
      );
      const pys = Math.floor(Math.min(parent.height - 1, Math.floor(top / scale)) / parent.tileHeight);
      const pye = Math.floor(
        Math.min(parent.height - 1, Math.floor((top + height - 1) / scale)) / parent.tileHeight,
      );
      const found: Promise<CachedTile>[] = [];
      for (let py = pys; py <= pye; py++) {
        for (let px = pxs; px <= pxe; px++) {
          found.push(
            this.cache.get(tileKey(level + j, px, py), signal, (s) =>
              this.loadSourceTile(level + j, px, py, s),
            ),
          );
        }
      }
      if ((await Promise.all(found)).some((tile) => tile !== null)) k = j;
    }
    if (k === 0) return { width, height, data };
    const parentLevel = level + k;
    const parent = this.levelGrids[parentLevel];
    const scale = 2 ** k;
    // The parent's texels the samples read: the footprint and one texel around it.
    const firstColumn = Math.floor((left + 0.5) / scale - 0.5);
    const firstRow = Math.floor((top + 0.5) / scale - 0.5);
    const patchWidth = Math.floor((left + width - 0.5) / scale - 0.5) + 2 - firstColumn;
    const patchHeight = Math.floor((top + height - 0.5) / scale - 0.5) + 2 - firstRow;
    const columns = new Int32Array(patchWidth);
    const rows = new Int32Array(patchHeight);
    const tileColumns = new Set<number>();
    const tileRows = new Set<number>();
    for (let c = 0; c < patchWidth; c++) {
      columns[c] = this.sourceColumn(parent, firstColumn + c);
      tileColumns.add(Math.floor(columns[c] / parent.tileWidth));
    }
    for (let r = 0; r < patchHeight; r++) {
      rows[r] = clamp(firstRow + r, 0, parent.height - 1);
      tileRows.add(Math.floor(rows[r] / parent.tileHeight));
    }
    const parents = new Map<number, ImageryTile>();
    const pending: Promise<void>[] = [];
    for (const py of tileRows) {
      for (const px of tileColumns) {
        pending.push(
          this.levelTile(parentLevel, px, py, signal).then((t) => void parents.set(py * 4194304 + px, t)),
        );
      }
    }
    await Promise.all(pending);
    // The patch in the space the sampler filters in: linear light for sRGB colour.
    const patch = new Float32Array(patchWidth * patchHeight * 4);
    for (let r = 0; r < patchHeight; r++) {
      const py = Math.floor(rows[r] / parent.tileHeight);
      const oy = rows[r] - py * parent.tileHeight;
      for (let c = 0; c < patchWidth; c++) {
        const px = Math.floor(columns[c] / parent.tileWidth);
        const t = parents.get(py * 4194304 + px) as ImageryTile;
        const from = (oy * t.width + (columns[c] - px * parent.tileWidth)) * 4;
        const to = (r * patchWidth + c) * 4;
        for (let ch = 0; ch < 3; ch++) {
          patch[to + ch] = this.srgb ? SRGB_BYTE_TO_LINEAR[t.data[from + ch]] : t.data[from + ch];
        }
        patch[to + 3] = t.data[from + 3];
      }
    }
    const sampleColumn = new Int32Array(width);
    const weightX = new Float64Array(width);
    for (let x = 0; x < width; x++) {
      const u = (left + x + 0.5) / scale - 0.5;
      sampleColumn[x] = Math.floor(u) - firstColumn;
      weightX[x] = u - Math.floor(u);
    }
    for (let y = 0; y < height; y++) {
      const v = (top + y + 0.5) / scale - 0.5;
      const r0 = (Math.floor(v) - firstRow) * patchWidth;
      const r1 = r0 + patchWidth;
      const fy = v - Math.floor(v);
      for (let x = 0; x < width; x++) {
        const fx = weightX[x];
        const a = (r0 + sampleColumn[x]) * 4;
        const b = a + 4;
        const c = (r1 + sampleColumn[x]) * 4;
        const d = c + 4;
        const o = (y * width + x) * 4;
        for (let ch = 0; ch < 4; ch++) {
          const upper = patch[a + ch] + (patch[b + ch] - patch[a + ch]) * fx;
          const bottom = patch[c + ch] + (patch[d + ch] - patch[c + ch]) * fx;
          const value = upper + (bottom - upper) * fy;
          data[o + ch] = ch < 3 && this.srgb ? linearToSrgbByte(value) : Math.round(value);
        }
      }
    }
    return { width, height, data };
  }

  /** Builds the derived mips once (see {@link firstDerivedMip}). */
  private deriveCoarseLevels(signal: AbortSignal): Promise<void> {
    if (this.derived === null) {
      const controller = new AbortController();
      this.derived = this.buildCoarseLevels(controller.signal).catch((error: unknown) => {
        this.derived = null;
        throw error;
      });
    }
    return raceAbort(this.derived, signal);
  }

  /**
   * The whole image of the last pyramid level before {@link firstDerivedMip}, then each derived
   * mip from the one before, halved along the axes whose scale still shrinks.
   */
  private async buildCoarseLevels(signal: AbortSignal): Promise<void> {
    const base = this.firstDerivedMip - 1;
    const grid = this.levelGrids[base];
    const data = new Uint8Array(grid.width * grid.height * 4);
    const columnsOfTiles = Math.ceil(grid.width / grid.tileWidth);
    const rowsOfTiles = Math.ceil(grid.height / grid.tileHeight);
    const jobs: Promise<void>[] = [];
    for (let ty = 0; ty < rowsOfTiles; ty++) {
      for (let tx = 0; tx < columnsOfTiles; tx++) {
        jobs.push(
          this.levelTile(base, tx, ty, signal).then((tile) => {
            const left = tx * grid.tileWidth;
            const top = ty * grid.tileHeight;
            const w = Math.min(grid.tileWidth, grid.width - left);
            const h = Math.min(grid.tileHeight, grid.height - top);
            for (let y = 0; y < h; y++) {
              data.set(
                tile.data.subarray(y * tile.width * 4, (y * tile.width + w) * 4),
                ((top + y) * grid.width + left) * 4,
              );
            }
          }),
        );
      }
    }
    await Promise.all(jobs);
    let image: ImageryTile = { width: grid.width, height: grid.height, data };
    for (let m = base + 1; m < this.grids.length; m++) {
      image = halve(
        image,
        this.xShift[m] > this.xShift[m - 1],
        this.yShift[m] > this.yShift[m - 1],
        this.srgb,
      );
      // The derived grid is the halved image itself, so its size is what halving gave.
      this.grids[m] = {
        width: image.width,
        height: image.height,
        tileWidth: image.width,
        tileHeight: image.height,
        image,
      };
    }
  }
}

/**
 * `image` box-filtered by 2 along x, y or both, texels without data (alpha 0) left out of each
 * average (see `downsampleRgba8SkippingNoData`; an odd last column or row is counted twice).
 */
function halve(image: ImageryTile, alongX: boolean, alongY: boolean, srgb: boolean): ImageryTile {
  const { width, height, data } = image;
  if (!alongX && !alongY) return image;
  return {
    width: alongX ? Math.max(1, width >> 1) : width,
    height: alongY ? Math.max(1, height >> 1) : height,
    data: downsampleRgba8SkippingNoData(data, width, height, srgb, alongX, alongY),
  };
}

function nextPowerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function minOf(a: Int32Array): number {
  let m = a[0];
  for (let i = 1; i < a.length; i++) if (a[i] < m) m = a[i];
  return m;
}

function maxOf(a: Int32Array): number {
  let m = a[0];
  for (let i = 1; i < a.length; i++) if (a[i] > m) m = a[i];
  return m;
}

/** True when some entry of `columns` lies in [lo, hi). */
function touches(columns: Int32Array, lo: number, hi: number): boolean {
  for (let i = 0; i < columns.length; i++) if (columns[i] >= lo && columns[i] < hi) return true;
  return false;
}
