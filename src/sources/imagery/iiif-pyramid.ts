/**
 * IIIF Image API 2 and 3 services as pyramids: the `info.json` states the image's size and its
 * tiles (`width`, `height`, `scaleFactors`), and tile (x, y) of scale factor s is the request
 * `{id}/{x·w·s},{y·h·s},{w·s},{h·s}/{size}/0/default.{format}` in full-resolution texels.
 * Level 0 services are static files, so only the exact URLs their generator wrote exist: this
 * pyramid asks for the canonical forms libvips (`vips dzsave --layout iiif|iiif3`, sharp's
 * `tile()`) writes: region `full` when a tile covers the whole image, size `w,` (API 2) or `w,h`
 * (API 3), where the tile's size is its region's divided by s, rounded up.
 */

import { TileSourceError } from '../../core/errors';
import type { HttpClientCounters } from '../io/http/http-client';
import { MAX_IMAGE_TEXELS } from '../io/image-decoding';
import { type SourceIo, type SourceIoOptions, sourceIo } from '../io/source-runtime';
import type { ImageDecoder } from '../io/tile-decoder';
import type { ImageryLevel, ImageryPyramid, ImageryPyramidInfo, ImageryTile } from './imagery-pyramid';
import { halvingLevels } from './pyramid-levels';

/** Tile formats a IIIF pyramid can ask for (those the image decoders read everywhere). */
export type IiifTileFormat = 'jpg' | 'png' | 'webp';

/** Options of {@link openIiifPyramid}. */
export interface IiifPyramidOptions extends SourceIoOptions {
  /**
   * Decodes the tiles. Default: the runtime's decode workers. A decoder given is the caller's, as
   * for every source ({@link SourceIoOptions}): `dispose()` leaves it running.
   */
  decoder?: ImageDecoder;
  /**
   * The tile format to ask for. Default: what the `info.json` prefers (`preferredFormats`), else
   * `jpg` where it may be served, else the first listed format. A level 0 API 3 pyramid whose
   * tiles are not JPEG (sharp's `iiif3` layout with PNG tiles) does not say so: pass it here.
   */
  format?: IiifTileFormat;
  /**
   * The image service's base URL, used instead of the `info.json`'s `id` (`@id`): for a static
   * pyramid served from somewhere other than the address its generator was given.
   */
  serviceId?: string;
  /** How the image continues past its left and right edges. Default `'clamp'`. */
  wrapX?: 'clamp' | 'repeat';
  /**
   * Credit line to show. Default the `info.json`'s `attribution` (API 2) or `requiredStatement`
   * (API 3), when it is plain text.
   */
  attribution?: string;
  /** Aborts fetching the `info.json`. */
  signal?: AbortSignal;
}

/** What an `info.json` says, as this pyramid uses it. */
export interface IiifImageService {
  /** Image API major version. */
  readonly version: 2 | 3;
  /** Base URL of the tile requests, without a trailing slash. */
  readonly id: string;
  /** Compliance level of the service: 0 serves only pre-generated tiles. */
  readonly complianceLevel: 0 | 1 | 2;
  /** Full-resolution width, texels. */
  readonly width: number;
  /** Full-resolution height, texels. */
  readonly height: number;
  /** Tile width, texels of the scaled image. */
  readonly tileWidth: number;
  /** Tile height, texels of the scaled image. */
  readonly tileHeight: number;
  /** Consecutive scale factors 1, 2, 4, ... the service has tiles for (level `i` uses `2^i`). */
  readonly levelCount: number;
  /** The format tiles are requested in. */
  readonly format: IiifTileFormat;
  /** Plain-text credit line of the service, if any. */
  readonly attribution?: string;
}

/** A IIIF pyramid opened by {@link openIiifPyramid}. */
export interface IiifPyramid extends ImageryPyramid {
  /** The parsed `info.json`. */
  readonly service: IiifImageService;
}

/** Largest width or height an `info.json` may state, texels: keeps the level arithmetic exact. */
const MAX_IMAGE_SIDE = 2 ** 31;
/** Tile side a service without a `tiles` list is asked for (levels 1 and 2 cut any region). */
const DEFAULT_TILE_SIZE = 512;
const FORMATS: readonly IiifTileFormat[] = ['jpg', 'png', 'webp'];

/**
 * Opens the IIIF Image API 2 or 3 service whose `info.json` is at `infoJsonUrl`. Levels come
 * from the first `tiles` entry's scale factors 1, 2, 4, ... up to the first one missing (a
 * service listing no tiles but cutting any region, levels 1 and 2, gets 512-texel tiles down to
 * one tile).
 * @throws TileSourceError `corrupt` (not an image service description, or impossible values),
 *   `unsupported` (Image API 1, no scale factor 1, a level 0 service without tiles),
 *   `oversized` (tiles over the decoder's limit), `http-status`, `network`, `timeout`; an abort
 *   error once `options.signal` aborts.
 */
export async function openIiifPyramid(
  infoJsonUrl: string,
  options: IiifPyramidOptions = {},
): Promise<IiifPyramid> {
  const signal = options.signal ?? new AbortController().signal;
  // The client only hears aborts that happen while a request is in flight.
  signal.throwIfAborted();
  const io = sourceIo(options, options.decoder);
  const client = io.http;
  try {
    const json = await client.getJson(infoJsonUrl, signal);
    const service = parseIiifInfo(json, infoJsonUrl, options);
    return new IiifImage(service, io, options);
  } catch (error) {
    io.release();
    throw error;
  }
}

/**
 * Parses an Image API 2 or 3 `info.json` (`source`: its URL, which relative ids resolve
 * against and error messages name). `options.format` and `options.serviceId` override what it says.
 * @throws TileSourceError `corrupt`, `unsupported`, `oversized`.
 */
export function parseIiifInfo(
  json: unknown,
  source: string,
  options: Pick<IiifPyramidOptions, 'format' | 'serviceId'> = {},
): IiifImageService {
  if (!isRecord(json)) throw new TileSourceError('corrupt', `${source}: not a JSON object`, false);
  const version = apiVersion(json, source);
  const width = integerField(json.width, source, 'width');
  const height = integerField(json.height, source, 'height');
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw new TileSourceError('oversized', `${source}: ${width}x${height} texels`, false);
  }
  const complianceLevel = complianceLevelOf(version === 3 ? json.profile : firstOf(json.profile));
  const id = serviceIdOf(json, version, source, options.serviceId);

  let tileWidth: number;
  let tileHeight: number;
  let levelCount: number;
  const tiles = Array.isArray(json.tiles) ? json.tiles : [];
  if (tiles.length > 0) {
    const entry = tiles.find(
      (t) => isRecord(t) && Array.isArray(t.scaleFactors) && t.scaleFactors.includes(1),
    );
    if (!isRecord(entry)) {
      throw new TileSourceError('unsupported', `${source}: no tiles entry has scale factor 1`, false);
    }
    tileWidth = integerField(entry.width, source, 'tiles.width');
    tileHeight = entry.height === undefined ? tileWidth : integerField(entry.height, source, 'tiles.height');
    const factors = entry.scaleFactors as unknown[];
    levelCount = 0;
    while (factors.includes(2 ** levelCount)) levelCount++;
  } else if (json.tiles === undefined && complianceLevel > 0) {
    tileWidth = DEFAULT_TILE_SIZE;
    tileHeight = DEFAULT_TILE_SIZE;
    levelCount = 1;
    while (Math.max(width, height) > DEFAULT_TILE_SIZE * 2 ** (levelCount - 1)) levelCount++;
  } else {
    throw new TileSourceError('unsupported', `${source}: a level 0 service with no tiles`, false);
  }
  if (tileWidth * tileHeight > MAX_IMAGE_TEXELS) {
    throw new TileSourceError(
      'oversized',
      `${source}: tiles of ${tileWidth}x${tileHeight} texels (at most ${MAX_IMAGE_TEXELS} texels)`,
      false,
    );
  }
  const format = options.format ?? preferredFormat(json, version, complianceLevel);
  const attribution = attributionOf(json, version);
  return {
    version,
    id,
    complianceLevel,
    width,
    height,
    tileWidth,
    tileHeight,
    levelCount,
    format,
    ...(attribution !== undefined ? { attribution } : {}),
  };
}

/**
 * The canonical request path (after the service id) of tile (`x`, `y`) at scale factor `scale`
 * of a `service`-shaped image: what a level 0 generator writes, so the only form a static
 * service is sure to answer.
 */
export function iiifTilePath(
  service: Pick<IiifImageService, 'version' | 'width' | 'height' | 'tileWidth' | 'tileHeight' | 'format'>,
  scale: number,
  x: number,
  y: number,
): string {
  const { width, height, tileWidth, tileHeight } = service;
  const left = x * tileWidth * scale;
  const top = y * tileHeight * scale;
  const regionWidth = Math.min(tileWidth * scale, width - left);
  const regionHeight = Math.min(tileHeight * scale, height - top);
  const region =
    left === 0 && top === 0 && regionWidth === width && regionHeight === height
      ? 'full'
      : `${left},${top},${regionWidth},${regionHeight}`;
  const sizeWidth = Math.ceil(regionWidth / scale);
  const size = service.version === 3 ? `${sizeWidth},${Math.ceil(regionHeight / scale)}` : `${sizeWidth},`;
  return `${region}/${size}/0/default.${service.format}`;
}

class IiifImage implements IiifPyramid {
  readonly info: ImageryPyramidInfo;
  private readonly io: SourceIo;
  private disposed = false;

  /** The client's request counts (see {@link ImageryPyramid.requestCounters}). */
  get requestCounters(): HttpClientCounters {
    return this.io.http.counters;
  }

  constructor(
    readonly service: IiifImageService,
    io: SourceIo,
    options: IiifPyramidOptions,
  ) {
    const attribution = options.attribution ?? service.attribution;
    this.info = {
      levels: halvingLevels(
        service.width,
        service.height,
        service.tileWidth,
        service.tileHeight,
        service.levelCount,
      ),
      ...(options.wrapX !== undefined ? { wrapX: options.wrapX } : {}),
      ...(attribution !== undefined ? { attribution } : {}),
    };
    this.io = io;
  }

  /**
   * Loads tile (`x`, `y`) of `level` (scale factor `2^level`).
   * @throws RangeError for a level outside `info.levels`.
   * @throws TileSourceError `wrong-size` (more than one texel smaller than requested),
   *   `decode-failed`, `http-status`, `network`, `timeout`, `source-disposed`; an abort error
   *   once `signal` aborts.
   */
  async loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    const levels = this.info.levels;
    if (!Number.isInteger(level) || level < 0 || level >= levels.length) {
      throw new RangeError(`level ${level} is not in 0..${levels.length - 1}`);
    }
    if (this.disposed) throw new TileSourceError('source-disposed', 'the IIIF pyramid was disposed', false);
    const { width, height, tileWidth, tileHeight } = levels[level] as ImageryLevel;
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0) return null;
    if (x * tileWidth >= width || y * tileHeight >= height) return null;
    const url = `${this.service.id}/${iiifTilePath(this.service, 2 ** level, x, y)}`;
    signal.throwIfAborted();
    const bytes = await this.io.http.getBytes(url, signal);
    if (bytes === null) return null;
    const tile = await this.io.decoder.decodeImage(bytes, MAX_IMAGE_TEXELS, signal);
    const cellWidth = Math.min(tileWidth, width - x * tileWidth);
    const cellHeight = Math.min(tileHeight, height - y * tileHeight);
    return fitTile(tile, cellWidth, cellHeight, url);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.io.release();
  }
}

/**
 * `tile` as exactly `width x height` texels. A service computing the height of a `w,` request by
 * rounding rather than rounding up may answer one texel short: the last row or column then
 * repeats. Larger answers are cropped.
 * @throws TileSourceError `wrong-size` when more than one texel is missing.
 */
function fitTile(tile: ImageryTile, width: number, height: number, url: string): ImageryTile {
  if (tile.width === width && tile.height === height) return tile;
  if (tile.width < width - 1 || tile.height < height - 1) {
    throw new TileSourceError(
      'wrong-size',
      `${url}: ${tile.width}x${tile.height} texels, expected ${width}x${height}`,
      false,
    );
  }
  const data = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row++) {
    const sourceRow = Math.min(row, tile.height - 1);
    const copied = Math.min(width, tile.width);
    const from = sourceRow * tile.width * 4;
    data.set(tile.data.subarray(from, from + copied * 4), row * width * 4);
    if (copied < width)
      data.copyWithin(
        row * width * 4 + copied * 4,
        row * width * 4 + (copied - 1) * 4,
        row * width * 4 + copied * 4,
      );
  }
  return { width, height, data };
}

function apiVersion(json: Record<string, unknown>, source: string): 2 | 3 {
  const contexts = (Array.isArray(json['@context']) ? json['@context'] : [json['@context']]).filter(
    (c): c is string => typeof c === 'string',
  );
  if (contexts.some((c) => c.includes('iiif.io/api/image/3'))) return 3;
  if (contexts.some((c) => c.includes('iiif.io/api/image/2'))) return 2;
  if (contexts.some((c) => c.includes('iiif.io/api/image/'))) {
    throw new TileSourceError('unsupported', `${source}: IIIF Image API ${contexts.join(' ')}`, false);
  }
  if (json.type === 'ImageService3') return 3;
  if (typeof json['@id'] === 'string') return 2;
  throw new TileSourceError('corrupt', `${source}: not a IIIF Image API info.json (no @context)`, false);
}

function serviceIdOf(
  json: Record<string, unknown>,
  version: 2 | 3,
  source: string,
  override: string | undefined,
): string {
  const stated = version === 3 ? (json.id ?? json['@id']) : (json['@id'] ?? json.id);
  // Without an id, the info.json's own folder is the service, as the spec lays the files out.
  const id =
    override ??
    (typeof stated === 'string' && stated !== '' ? stated : source.replace(/\/info\.json(?:[?#].*)?$/, ''));
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  let resolved = id;
  try {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(id)) resolved = new URL(id, new URL(source, page)).href;
  } catch (e) {
    throw new TileSourceError('corrupt', `${source}: id ${JSON.stringify(id)} is not a URL`, false, {
      cause: e,
    });
  }
  return resolved.replace(/\/+$/, '');
}

/** The compliance level of an API 2 profile URI or an API 3 profile name. */
function complianceLevelOf(profile: unknown): 0 | 1 | 2 {
  if (typeof profile !== 'string') return 0;
  const match = /level([012])(?:\.json)?$/.exec(profile);
  return match === null ? 0 : (Number(match[1]) as 0 | 1 | 2);
}

/**
 * The format to ask for: the first decodable one the service prefers; else JPEG, which every
 * service at level 1 or more produces; else (a level 0 service, whose generator wrote only what
 * it lists) the first decodable one listed; else JPEG.
 */
function preferredFormat(
  json: Record<string, unknown>,
  version: 2 | 3,
  complianceLevel: number,
): IiifTileFormat {
  const preferred = decodableFormats(json.preferredFormats);
  if (preferred.length > 0) return preferred[0];
  const listed =
    version === 3
      ? decodableFormats(json.extraFormats)
      : (Array.isArray(json.profile) ? json.profile : []).flatMap((p) =>
          isRecord(p) ? decodableFormats(p.formats) : [],
        );
  if (listed.length === 0 || listed.includes('jpg')) return 'jpg';
  // API 2 services list all their formats, so one listing no JPEG does not serve it, whatever its level.
  if (version === 2 || complianceLevel === 0) return listed[0];
  return 'jpg';
}

function decodableFormats(value: unknown): IiifTileFormat[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((f) => (f === 'jpeg' ? 'jpg' : f))
    .filter((f): f is IiifTileFormat => FORMATS.includes(f as IiifTileFormat));
}

/** A plain-text credit line: API 2 `attribution` (a string), API 3 `requiredStatement.value` (a language map). */
function attributionOf(json: Record<string, unknown>, version: 2 | 3): string | undefined {
  if (version === 2) return typeof json.attribution === 'string' ? json.attribution : undefined;
  const statement = json.requiredStatement;
  if (!isRecord(statement) || !isRecord(statement.value)) return undefined;
  const values = Object.values(statement.value).flat();
  return typeof values[0] === 'string' ? values[0] : undefined;
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function integerField(value: unknown, source: string, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TileSourceError(
      'corrupt',
      `${source}: ${name} ${JSON.stringify(value)} is not an integer >= 1`,
      false,
    );
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
