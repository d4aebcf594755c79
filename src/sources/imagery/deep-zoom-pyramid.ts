/**
 * Deep Zoom (`.dzi`) pyramids, as OpenSeadragon reads them and libvips (`vips dzsave`, sharp's
 * `tile()`), Deep Zoom Composer and most slide scanners' exporters write them: a small XML (or
 * JSON) descriptor and a folder `<name>_files/<level>/<column>_<row>.<format>` of tiles, numbered
 * from the 1 x 1 texel level (0) up to full resolution. Neighbouring tiles share `Overlap` texels
 * on each inner edge; this pyramid strips them so each tile is exactly its grid cell.
 */

import { TileSourceError } from '../../core/errors';
import type { HttpClientCounters } from '../io/http/http-client';
import { MAX_IMAGE_TEXELS } from '../io/image-decoding';
import { type SourceIo, type SourceIoOptions, sourceIo } from '../io/source-runtime';
import type { ImageDecoder } from '../io/tile-decoder';
import type { ImageryLevel, ImageryPyramid, ImageryPyramidInfo, ImageryTile } from './imagery-pyramid';
import { halvingLevels, levelCountToOneTexel } from './pyramid-levels';

/** Options of {@link openDeepZoomPyramid}. */
export interface DeepZoomPyramidOptions extends SourceIoOptions {
  /**
   * Decodes the tiles. Default: the runtime's decode workers. A decoder given is the caller's, as
   * for every source ({@link SourceIoOptions}): `dispose()` leaves it running.
   */
  decoder?: ImageDecoder;
  /** How the image continues past its left and right edges. Default `'clamp'`. */
  wrapX?: 'clamp' | 'repeat';
  /** Credit line to show with the image, if its licence asks for one. */
  attribution?: string;
  /** Aborts fetching the descriptor. */
  signal?: AbortSignal;
}

/** What a `.dzi` descriptor says. */
export interface DeepZoomDescriptor {
  /** Full-resolution width, texels. */
  readonly width: number;
  /** Full-resolution height, texels. */
  readonly height: number;
  /** Tile grid cell size, texels (tiles are larger by the overlap on inner edges). */
  readonly tileSize: number;
  /** Texels each tile repeats from its neighbour on every inner edge. */
  readonly overlap: number;
  /** Tile file extension, e.g. `jpg` or `png`. */
  readonly format: string;
  /** Where the tiles' folder is, when the descriptor says so (`Url`, the JSON flavour's). */
  readonly url?: string;
}

/** A Deep Zoom pyramid opened by {@link openDeepZoomPyramid}. */
export interface DeepZoomPyramid extends ImageryPyramid {
  /** The parsed descriptor. */
  readonly descriptor: DeepZoomDescriptor;
}

/** Largest width or height a descriptor may state, texels: keeps the level arithmetic exact. */
const MAX_IMAGE_SIDE = 2 ** 31;

/**
 * Opens the Deep Zoom image whose descriptor (`.dzi` or `.xml`, or the JSON flavour
 * `{"Image": {...}}`) is at `url`. Tiles are fetched from `<url without extension>_files/`
 * (or the descriptor's `Url`), keeping `url`'s query string. Levels run from full resolution
 * (index 0) down to 1 x 1 texel.
 * @throws TileSourceError `corrupt` (not a Deep Zoom descriptor, or impossible values),
 *   `unsupported` (a Deep Zoom collection), `oversized` (tiles over the decoder's limit),
 *   `http-status`, `network`, `timeout`; an abort error once `options.signal` aborts.
 */
export async function openDeepZoomPyramid(
  url: string,
  options: DeepZoomPyramidOptions = {},
): Promise<DeepZoomPyramid> {
  const signal = options.signal ?? new AbortController().signal;
  // The client only hears aborts that happen while a request is in flight.
  signal.throwIfAborted();
  const io = sourceIo(options, options.decoder);
  const client = io.http;
  try {
    const text = await client.getText(url, signal);
    const descriptor = parseDeepZoomDescriptor(text, url);
    const { path, query } = splitQuery(url);
    const tilesBase =
      descriptor.url !== undefined
        ? withTrailingSlash(resolveUrl(descriptor.url, path))
        : `${path.replace(/\.[^/.]*$/, '')}_files/`;
    return new DeepZoomImage(descriptor, tilesBase, query, io, options);
  } catch (error) {
    io.release();
    throw error;
  }
}

/**
 * Parses a Deep Zoom descriptor: the XML of the Deep Zoom schema (namespace prefixes and
 * attribute order free) or the JSON flavour OpenSeadragon accepts (`{"Image": {"Format",
 * "Overlap", "TileSize", "Size": {"Width", "Height"}, "Url"?}}`, numbers or numeric strings).
 * `source` names the document in error messages.
 * @throws TileSourceError `corrupt`, `unsupported` (a collection), `oversized`.
 */
export function parseDeepZoomDescriptor(text: string, source = 'descriptor'): DeepZoomDescriptor {
  const trimmed = text.trim();
  let image: Record<string, unknown>;
  let size: Record<string, unknown>;
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (e) {
      throw new TileSourceError('corrupt', `${source}: not JSON`, false, { cause: e });
    }
    const root = isRecord(json) ? json.Image : undefined;
    if (!isRecord(root) || !isRecord(root.Size)) {
      throw new TileSourceError('corrupt', `${source}: no Image with a Size`, false);
    }
    image = root;
    size = root.Size;
  } else {
    if (/<(?:[\w.-]+:)?Collection[\s>]/.test(trimmed)) {
      throw new TileSourceError('unsupported', `${source}: a Deep Zoom collection, not one image`, false);
    }
    const imageTag = /<(?:[\w.-]+:)?Image\b([^>]*)>/.exec(trimmed);
    const sizeTag = /<(?:[\w.-]+:)?Size\b([^>]*?)\/?>/.exec(trimmed);
    if (imageTag === null || sizeTag === null) {
      throw new TileSourceError('corrupt', `${source}: no <Image> with a <Size>`, false);
    }
    image = parseAttributes(imageTag[1]);
    size = parseAttributes(sizeTag[1]);
  }
  const width = integerField(size.Width, 1, source, 'Width');
  const height = integerField(size.Height, 1, source, 'Height');
  const tileSize = integerField(image.TileSize, 1, source, 'TileSize');
  const overlap = integerField(image.Overlap ?? 0, 0, source, 'Overlap');
  const format = image.Format;
  if (typeof format !== 'string' || !/^[A-Za-z0-9]+$/.test(format)) {
    throw new TileSourceError(
      'corrupt',
      `${source}: Format ${JSON.stringify(format)} is not a file extension`,
      false,
    );
  }
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw new TileSourceError('oversized', `${source}: ${width}x${height} texels`, false);
  }
  const side = tileSize + 2 * overlap;
  if (side * side > MAX_IMAGE_TEXELS) {
    throw new TileSourceError(
      'oversized',
      `${source}: tiles of ${side}x${side} texels (at most ${MAX_IMAGE_TEXELS} texels)`,
      false,
    );
  }
  const tilesUrl = typeof image.Url === 'string' && image.Url !== '' ? image.Url : undefined;
  return { width, height, tileSize, overlap, format, ...(tilesUrl !== undefined ? { url: tilesUrl } : {}) };
}

class DeepZoomImage implements DeepZoomPyramid {
  readonly info: ImageryPyramidInfo;
  private readonly io: SourceIo;
  /** Deep Zoom's number of the full-resolution level (its levels count up from 1 x 1). */
  private readonly finestDzLevel: number;
  private disposed = false;

  /** The client's request counts (see {@link ImageryPyramid.requestCounters}). */
  get requestCounters(): HttpClientCounters {
    return this.io.http.counters;
  }

  constructor(
    readonly descriptor: DeepZoomDescriptor,
    private readonly tilesBase: string,
    private readonly query: string,
    io: SourceIo,
    options: DeepZoomPyramidOptions,
  ) {
    const { width, height, tileSize } = descriptor;
    const count = levelCountToOneTexel(width, height);
    this.finestDzLevel = count - 1;
    this.info = {
      levels: halvingLevels(width, height, tileSize, tileSize, count),
      ...(options.wrapX !== undefined ? { wrapX: options.wrapX } : {}),
      ...(options.attribution !== undefined ? { attribution: options.attribution } : {}),
    };
    this.io = io;
  }

  /**
   * Loads the grid cell (`x`, `y`) of `level` without the overlap its file carries.
   * @throws RangeError for a level outside `info.levels`.
   * @throws TileSourceError `wrong-size` (the file is not the size the descriptor implies),
   *   `decode-failed`, `http-status`, `network`, `timeout`, `source-disposed`; an abort error
   *   once `signal` aborts.
   */
  async loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    const levels = this.info.levels;
    if (!Number.isInteger(level) || level < 0 || level >= levels.length) {
      throw new RangeError(`level ${level} is not in 0..${levels.length - 1}`);
    }
    if (this.disposed)
      throw new TileSourceError('source-disposed', 'the Deep Zoom pyramid was disposed', false);
    const { width, height, tileWidth, tileHeight } = levels[level] as ImageryLevel;
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0) return null;
    const left = x * tileWidth;
    const top = y * tileHeight;
    if (left >= width || top >= height) return null;
    const url = `${this.tilesBase}${this.finestDzLevel - level}/${x}_${y}.${this.descriptor.format}${this.query}`;
    signal.throwIfAborted();
    const bytes = await this.io.http.getBytes(url, signal);
    if (bytes === null) return null;
    const tile = await this.io.decoder.decodeImage(bytes, MAX_IMAGE_TEXELS, signal);
    const overlap = this.descriptor.overlap;
    const cellWidth = Math.min(tileWidth, width - left);
    const cellHeight = Math.min(tileHeight, height - top);
    // The file spans the cell plus `overlap` texels on each side that has a neighbour.
    const fileLeft = Math.max(0, left - overlap);
    const fileTop = Math.max(0, top - overlap);
    const fileWidth = Math.min(width, left + cellWidth + overlap) - fileLeft;
    const fileHeight = Math.min(height, top + cellHeight + overlap) - fileTop;
    if (tile.width !== fileWidth || tile.height !== fileHeight) {
      throw new TileSourceError(
        'wrong-size',
        `${url}: ${tile.width}x${tile.height} texels, expected ${fileWidth}x${fileHeight}`,
        false,
      );
    }
    return copyRegion(tile, left - fileLeft, top - fileTop, cellWidth, cellHeight);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.io.release();
  }
}

/** The `width x height` texels of `tile` from (`left`, `top`); `tile` itself when that is all of it. */
function copyRegion(
  tile: ImageryTile,
  left: number,
  top: number,
  width: number,
  height: number,
): ImageryTile {
  if (left === 0 && top === 0 && width === tile.width && height === tile.height) return tile;
  const data = new Uint8Array(width * height * 4);
  const rowBytes = width * 4;
  for (let row = 0; row < height; row++) {
    const from = ((top + row) * tile.width + left) * 4;
    data.set(tile.data.subarray(from, from + rowBytes), row * rowBytes);
  }
  return { width, height, data };
}

/** Attributes of an XML start tag's inside, entity references resolved. */
function parseAttributes(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  const pattern = /([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  for (let match = pattern.exec(source); match !== null; match = pattern.exec(source)) {
    const name = match[1].includes(':') ? match[1].slice(match[1].indexOf(':') + 1) : match[1];
    out[name] = decodeEntities(match[2] ?? match[3] ?? '');
  }
  return out;
}

function decodeEntities(value: string): string {
  return value.replace(/&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g, (_, hex, dec, name) => {
    if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16));
    if (dec !== undefined) return String.fromCodePoint(Number(dec));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[name as 'amp'];
  });
}

function integerField(value: unknown, min: number, source: string, name: string): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) {
    throw new TileSourceError(
      'corrupt',
      `${source}: ${name} ${JSON.stringify(value)} is not an integer >= ${min}`,
      false,
    );
  }
  return n;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Splits `url` into what precedes its query and the query (with its `?`, or empty); drops any fragment. */
function splitQuery(url: string): { path: string; query: string } {
  const noFragment = url.split('#')[0];
  const at = noFragment.indexOf('?');
  return at < 0
    ? { path: noFragment, query: '' }
    : { path: noFragment.slice(0, at), query: noFragment.slice(at) };
}

/** `reference` resolved against `base`, itself resolved against the page's address where relative. */
function resolveUrl(reference: string, base: string): string {
  if (ABSOLUTE_URL.test(reference)) return reference;
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  try {
    return new URL(reference, new URL(base, page)).href;
  } catch (e) {
    throw new TileSourceError('corrupt', `${base}: cannot resolve ${reference}`, false, { cause: e });
  }
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:/i;

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
