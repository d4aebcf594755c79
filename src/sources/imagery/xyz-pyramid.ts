/**
 * Web-map tile servers: XYZ ("slippy map", `{z}/{x}/{y}` as OpenStreetMap, Leaflet and MapLibre
 * address them), TMS (rows counted from the bottom) and WMTS in its RESTful form
 * (`{TileMatrix}/{TileRow}/{TileCol}`). The whole world is one Web Mercator image, zoom `z` being
 * `2^z x 2^z` tiles; the finest zoom is level 0 and longitude wraps (`wrapX: 'repeat'`).
 */

import { TesseraConfigError, TileSourceError } from '../../core/errors';
import type { HttpClient, HttpClientCounters } from '../io/http/http-client';
import { MAX_IMAGE_TEXELS } from '../io/image-decoding';
import { type SourceIo, type SourceIoOptions, sourceIo } from '../io/source-runtime';
import type { ImageDecoder } from '../io/tile-decoder';
import type { ImageryPyramid, ImageryPyramidInfo, ImageryTile } from './imagery-pyramid';
import { isTileOfZoom, webMapLevels, zoomOfLevel } from './web-map-levels';

/** Options of {@link XyzPyramid}. */
export interface XyzPyramidOptions extends SourceIoOptions {
  /**
   * Tile URL template. Placeholders: `{z}`, `{x}`, `{y}` (the row in `scheme`'s numbering),
   * `{-y}` (the row counted from the bottom, TMS, whatever `scheme` says), `{s}` (one of
   * `subdomains`), `{r}` (replaced by nothing: Tessera asks for standard-resolution tiles), and the
   * WMTS RESTful ones `{TileMatrix}` (see `tileMatrix`), `{TileCol}`, `{TileRow}` (rows from the
   * top). It must name a zoom, a column and a row.
   */
  url: string;
  /** Finest zoom the server has (level 0), 0..30. */
  maxZoom: number;
  /** Coarsest zoom to use (the last level). Default 0. */
  minZoom?: number;
  /** Side of the server's tiles, texels: a power of two, usually 256 or 512. Default 256. */
  tileSize?: number;
  /**
   * How `{y}` counts rows: `'xyz'` from the top (OpenStreetMap, Google), `'tms'` from the bottom.
   * Default `'xyz'`.
   */
  scheme?: 'xyz' | 'tms';
  /**
   * Host names for `{s}`, as a string of one-letter names (`'abc'`) or a list. A tile always gets
   * the same one, so the browser's cache and connections are reused. Default `'abc'`, as Leaflet.
   */
  subdomains?: string | readonly string[];
  /**
   * The WMTS `TileMatrix` identifier of zoom `z`. Default `String(z)` (the identifiers of
   * `GoogleMapsCompatible` and most Web Mercator tile matrix sets).
   */
  tileMatrix?: (z: number) => string;
  /** Credit line the server's licence asks the application to show. */
  attribution?: string;
  /**
   * Decodes the tiles. Default: the runtime's decode workers. A decoder passed here is left
   * running.
   */
  decoder?: ImageDecoder;
}

/**
 * Request counts of an {@link XyzPyramid}. `requests`, `retries`, `failures` and `cacheHits` are its
 * {@link HttpClient}'s, so they include every other source sharing that client.
 */
export interface XyzPyramidCounters extends HttpClientCounters {
  /** Tiles this pyramid found missing: HTTP 404, 410 or 204, or an empty body. */
  missing: number;
}

type TemplatePart =
  | string
  | { readonly kind: 'z' | 'x' | 'y' | 'flippedY' | 'topY' | 'subdomain' | 'retina' | 'tileMatrix' };

const PLACEHOLDERS: Record<string, TemplatePart> = {
  z: { kind: 'z' },
  x: { kind: 'x' },
  y: { kind: 'y' },
  '-y': { kind: 'flippedY' },
  s: { kind: 'subdomain' },
  r: { kind: 'retina' },
  TileMatrix: { kind: 'tileMatrix' },
  TileCol: { kind: 'x' },
  TileRow: { kind: 'topY' },
};

/** A web-map tile server as an {@link ImageryPyramid}. */
export class XyzPyramid implements ImageryPyramid {
  readonly info: ImageryPyramidInfo;
  /** The client the tiles are fetched through (the one given, or the runtime's). */
  readonly client: HttpClient;
  /** The client's request counts (see {@link ImageryPyramid.requestCounters}). */
  get requestCounters(): HttpClientCounters {
    return this.client.counters;
  }
  /** Finest zoom (level 0). */
  readonly maxZoom: number;
  /** Coarsest zoom (the last level). */
  readonly minZoom: number;
  /** Side of the tiles, texels. */
  readonly tileSize: number;
  private readonly parts: readonly TemplatePart[];
  private readonly scheme: 'xyz' | 'tms';
  private readonly subdomains: readonly string[];
  private readonly tileMatrix: (z: number) => string;
  private readonly io: SourceIo;
  private missing = 0;
  private disposed = false;

  /**
   * @throws TesseraConfigError `invalid-option` (a template without a zoom, column or row, an
   *   unknown placeholder, `{s}` with no subdomains, impossible zooms), `not-power-of-two`
   *   (`tileSize`), `too-large` (tiles over the decoder's limit).
   */
  constructor(options: XyzPyramidOptions) {
    this.minZoom = options.minZoom ?? 0;
    this.maxZoom = options.maxZoom;
    this.tileSize = options.tileSize ?? 256;
    const levels = webMapLevels(this.minZoom, this.maxZoom, this.tileSize);
    if (this.tileSize * this.tileSize > MAX_IMAGE_TEXELS) {
      throw new TesseraConfigError('too-large', `tileSize ${this.tileSize}: over ${MAX_IMAGE_TEXELS} texels`);
    }
    this.scheme = options.scheme ?? 'xyz';
    this.subdomains = [...(options.subdomains ?? 'abc')];
    this.tileMatrix = options.tileMatrix ?? String;
    this.parts = parseTemplate(options.url, this.subdomains.length > 0);
    this.info = {
      levels,
      wrapX: 'repeat',
      ...(options.attribution !== undefined ? { attribution: options.attribution } : {}),
    };
    this.io = sourceIo(options, options.decoder);
    this.client = this.io.http;
  }

  /** Requests, retries, failed attempts and Range cache hits of the client, and the tiles found missing. */
  get counters(): XyzPyramidCounters {
    const { requests, retries, failures, cacheHits } = this.client.counters;
    return { requests, retries, failures, cacheHits, missing: this.missing };
  }

  /**
   * The URL of tile (`x`, `y`) of zoom `z`, rows counted from the top (as XYZ numbers them,
   * whatever the server's `scheme`).
   */
  tileUrl(z: number, x: number, y: number): string {
    const flipped = 2 ** z - 1 - y;
    let url = '';
    for (const part of this.parts) {
      if (typeof part === 'string') {
        url += part;
        continue;
      }
      switch (part.kind) {
        case 'z':
          url += z;
          break;
        case 'x':
          url += x;
          break;
        case 'y':
          url += this.scheme === 'tms' ? flipped : y;
          break;
        case 'flippedY':
          url += flipped;
          break;
        case 'topY':
          url += y;
          break;
        case 'subdomain':
          // Leaflet's choice, so a page mixing Leaflet and Tessera hits the same cached URLs.
          url += this.subdomains[(x + y) % this.subdomains.length];
          break;
        case 'tileMatrix':
          url += this.tileMatrix(z);
          break;
        case 'retina':
          break;
      }
    }
    return url;
  }

  /**
   * Loads tile (`x`, `y`) (rows from the top) of level `level` (zoom `maxZoom - level`).
   * Resolves `null` for a tile outside the world or one the server does not have (404, 410,
   * 204, an empty body).
   * @throws RangeError for a level outside `info.levels`.
   * @throws TileSourceError `wrong-size` (not `tileSize x tileSize`), `decode-failed`,
   *   `http-status`, `network`, `timeout` (retryable after the client's retries),
   *   `source-disposed`; an abort error once `signal` aborts.
   */
  async loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    const z = zoomOfLevel(level, this.maxZoom, this.info.levels.length);
    if (this.disposed) throw new TileSourceError('source-disposed', 'the XYZ pyramid was disposed', false);
    if (!isTileOfZoom(z, x, y)) return null;
    signal.throwIfAborted();
    const url = this.tileUrl(z, x, y);
    const bytes = await this.client.getBytes(url, signal);
    if (bytes === null || bytes.length === 0) {
      this.missing++;
      return null;
    }
    const tile = await this.io.decoder.decodeImage(bytes, MAX_IMAGE_TEXELS, signal);
    if (tile.width !== this.tileSize || tile.height !== this.tileSize) {
      throw new TileSourceError(
        'wrong-size',
        `${url}: ${tile.width}x${tile.height} texels, expected ${this.tileSize}x${this.tileSize}`,
        false,
      );
    }
    return tile;
  }

  /** Stops the decoder if this pyramid made it; later loads reject with `source-disposed`. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.io.release();
  }
}

/**
 * A web-map tile server as an {@link ImageryPyramid}; the same as `new XyzPyramid(options)`.
 * @throws TesseraConfigError as the {@link XyzPyramid} constructor.
 */
export function xyzPyramid(options: XyzPyramidOptions): XyzPyramid {
  return new XyzPyramid(options);
}

/** Splits a URL template into literal text and placeholders, checking it addresses a tile. */
function parseTemplate(template: string, hasSubdomains: boolean): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const seen = new Set<string>();
  const pattern = /\{([^{}]*)\}/g;
  let from = 0;
  for (let match = pattern.exec(template); match !== null; match = pattern.exec(template)) {
    const part = PLACEHOLDERS[match[1]];
    if (part === undefined) {
      throw new TesseraConfigError('invalid-option', `url template: unknown placeholder {${match[1]}}`);
    }
    if (typeof part !== 'string' && part.kind === 'subdomain' && !hasSubdomains) {
      throw new TesseraConfigError('invalid-option', 'url template: {s} with no subdomains');
    }
    if (match.index > from) parts.push(template.slice(from, match.index));
    parts.push(part);
    if (typeof part !== 'string') seen.add(part.kind);
    from = match.index + match[0].length;
  }
  if (from < template.length) parts.push(template.slice(from));
  const hasZoom = seen.has('z') || seen.has('tileMatrix');
  const hasRow = seen.has('y') || seen.has('flippedY') || seen.has('topY');
  if (!hasZoom || !seen.has('x') || !hasRow) {
    throw new TesseraConfigError(
      'invalid-option',
      `url template ${template}: needs a zoom ({z} or {TileMatrix}), a column ({x} or {TileCol}) and a row ({y}, {-y} or {TileRow})`,
    );
  }
  return parts;
}
