/**
 * Web-map tile servers: XYZ ("slippy map", `{z}/{x}/{y}` as OpenStreetMap, Leaflet and MapLibre
 * address them), TMS (rows counted from the bottom) and WMTS in its RESTful form
 * (`{TileMatrix}/{TileRow}/{TileCol}`). The whole world is one Web Mercator image, zoom `z` being
 * `2^z x 2^z` tiles; the finest zoom is level 0 and longitude wraps (`wrapX: 'repeat'`).
 */

import { warnDeprecated } from '../../core/deprecation';
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
   * Where the server has tiles, `[west, south, east, north]` in degrees (TileJSON's `bounds`):
   * tiles wholly outside are missing without a request. Default: the whole world.
   */
  bounds?: readonly [number, number, number, number];
  /**
   * Decodes the tiles. Default: the runtime's decode workers. A decoder given is the caller's, as
   * for every source ({@link SourceIoOptions}): `dispose()` leaves it running.
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
  /** Its levels (one per zoom, finest first), tile size, wrapping and attribution. */
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
  /** Where the server has tiles, `[west, south, east, north]` in degrees (undefined: everywhere). */
  readonly bounds: readonly [number, number, number, number] | undefined;
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
    this.bounds = options.bounds === undefined ? undefined : checkedBounds(options.bounds);
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
    if (this.bounds !== undefined && !tileMeetsBounds(z, x, y, this.bounds)) {
      this.missing++;
      return null;
    }
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
 * @deprecated Use {@link openXyzPyramid}, or `new XyzPyramid(options)`.
 * @throws TesseraConfigError as the {@link XyzPyramid} constructor.
 */
export function xyzPyramid(options: XyzPyramidOptions): XyzPyramid {
  warnDeprecated('xyzPyramid', 'openXyzPyramid(url) or new XyzPyramid(options)');
  return new XyzPyramid(options);
}

/** Options of {@link openXyzPyramid}: those of {@link XyzPyramid} less the URL, which it takes. */
export interface OpenXyzPyramidOptions extends Omit<XyzPyramidOptions, 'url' | 'maxZoom'> {
  /** Finest zoom, 0..30: required with a template; with a TileJSON, overrides its `maxzoom`. */
  maxZoom?: number;
  /** Aborts reading the TileJSON. */
  signal?: AbortSignal;
}

/**
 * Opens a web-map tile server, as every imagery source opens (`open<Kind>Pyramid(url)`): `url` is
 * either a tile URL template (see {@link XyzPyramidOptions.url}; give `maxZoom`) or a TileJSON
 * document (no `{`), whose `tiles` (the first; relative to the document), `minzoom`, `maxzoom`,
 * `scheme`, `attribution` and `bounds` it reads, the options overriding them. The TileJSON is read
 * through the source's client.
 * @throws TesseraConfigError `invalid-option` (a template without `maxZoom`, or as the
 *   {@link XyzPyramid} constructor); TileSourceError `corrupt` (a TileJSON without tiles or with
 *   bad zooms or bounds), the client's `http-status`, `network`, `timeout`; an abort error once
 *   `options.signal` aborts.
 */
export async function openXyzPyramid(url: string, options: OpenXyzPyramidOptions = {}): Promise<XyzPyramid> {
  if (url.includes('{')) {
    if (options.maxZoom === undefined) {
      throw new TesseraConfigError('invalid-option', `${url}: a tile URL template needs maxZoom`);
    }
    return new XyzPyramid({ ...options, url, maxZoom: options.maxZoom });
  }
  const signal = options.signal ?? new AbortController().signal;
  signal.throwIfAborted();
  const io = sourceIo(options);
  try {
    const tileJson = parseTileJson(await io.http.getJson(url, signal), url);
    // The tiles go through the client that read the TileJSON (built before the lease is let go).
    return new XyzPyramid({
      ...options,
      http: io.http,
      client: undefined,
      url: tileJson.tiles,
      maxZoom: options.maxZoom ?? tileJson.maxZoom,
      minZoom: options.minZoom ?? tileJson.minZoom,
      scheme: options.scheme ?? tileJson.scheme,
      attribution: options.attribution ?? tileJson.attribution,
      bounds: options.bounds ?? tileJson.bounds,
    });
  } finally {
    io.release();
  }
}

/** What a TileJSON document says of a raster tile set (see {@link parseTileJson}). */
export interface TileJsonFields {
  /** The first tile URL template, resolved against the document's URL. */
  tiles: string;
  /** Coarsest zoom (`minzoom`, default 0). */
  minZoom: number;
  /** Finest zoom (`maxzoom`, default 30). */
  maxZoom: number;
  /** Row numbering (`scheme`, default 'xyz'). */
  scheme: 'xyz' | 'tms';
  /** Credit line, if any. */
  attribution: string | undefined;
  /** `[west, south, east, north]` in degrees, if given. */
  bounds: [number, number, number, number] | undefined;
}

/**
 * The fields of a TileJSON (2.x / 3.0) document read from `source`, the first tile URL resolved
 * against it. @throws TileSourceError('corrupt') for a document without tiles or with bad fields.
 */
export function parseTileJson(json: unknown, source: string): TileJsonFields {
  const doc = (json ?? {}) as Record<string, unknown>;
  const tiles = doc.tiles;
  if (!Array.isArray(tiles) || typeof tiles[0] !== 'string' || tiles[0] === '') {
    throw new TileSourceError('corrupt', `${source}: TileJSON without tiles`, false);
  }
  const zoom = (name: string, fallback: number): number => {
    const value = doc[name] ?? fallback;
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 30) {
      throw new TileSourceError(
        'corrupt',
        `${source}: TileJSON ${name} ${String(value)} is not a zoom 0..30`,
        false,
      );
    }
    return value as number;
  };
  const minZoom = zoom('minzoom', 0);
  const maxZoom = zoom('maxzoom', 30);
  if (minZoom > maxZoom) throw new TileSourceError('corrupt', `${source}: TileJSON minzoom > maxzoom`, false);
  const scheme = doc.scheme === 'tms' ? 'tms' : 'xyz';
  const attribution =
    typeof doc.attribution === 'string' && doc.attribution !== '' ? doc.attribution : undefined;
  let bounds: [number, number, number, number] | undefined;
  if (doc.bounds !== undefined) {
    const b = doc.bounds;
    if (!Array.isArray(b) || b.length !== 4 || !b.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw new TileSourceError('corrupt', `${source}: TileJSON bounds must be four numbers`, false);
    }
    bounds = [b[0], b[1], b[2], b[3]];
  }
  const base = typeof location === 'object' ? location.href : undefined;
  // Template braces are not URL-safe: resolve the URL with them escaped, then restore them.
  const resolved = new URL(tiles[0].replaceAll('{', '%7B').replaceAll('}', '%7D'), new URL(source, base))
    .href;
  return {
    tiles: resolved.replaceAll('%7B', '{').replaceAll('%7D', '}'),
    minZoom,
    maxZoom,
    scheme,
    attribution,
    bounds,
  };
}

/** `bounds` checked: finite degrees, west <= east, south <= north, within the world. */
function checkedBounds(bounds: readonly number[]): [number, number, number, number] {
  const [west, south, east, north] = bounds;
  const ok =
    bounds.length === 4 &&
    bounds.every(Number.isFinite) &&
    west >= -180 &&
    east <= 180 &&
    west <= east &&
    south >= -90 &&
    north <= 90 &&
    south <= north;
  if (!ok)
    throw new TesseraConfigError(
      'invalid-option',
      `bounds [${bounds.join(', ')}] are not [west, south, east, north] degrees`,
    );
  return [west, south, east, north];
}

/** True when Web Mercator tile `z/x/y` (rows from the top) overlaps `bounds` (degrees). */
function tileMeetsBounds(
  z: number,
  x: number,
  y: number,
  bounds: readonly [number, number, number, number],
): boolean {
  const n = 2 ** z;
  const west = (x / n) * 360 - 180;
  const east = ((x + 1) / n) * 360 - 180;
  const latitude = (row: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * row) / n))) * 180) / Math.PI;
  const north = latitude(y);
  const south = latitude(y + 1);
  return east > bounds[0] && west < bounds[2] && north > bounds[1] && south < bounds[3];
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
