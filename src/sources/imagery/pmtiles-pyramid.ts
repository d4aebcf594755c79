/**
 * Raster PMTiles archives (v3): a whole web map (PNG, JPEG, WebP or AVIF tiles, zoom `z` being
 * `2^z x 2^z` tiles of Web Mercator) in one file read by HTTP `Range`. The `pmtiles` package walks
 * the archive's directories; this module gives it byte ranges through an {@link HttpRangeReader}
 * (so retries, timeouts and the per-host cap of an {@link HttpClient} apply), a directory cache
 * that forgets failed reads instead of keeping them, and typed errors. The header and root
 * directory are read once, at open; a tile the directories do not list costs no request.
 */

import type { Cache, Compression, Entry, Header, PMTiles, RangeResponse, Source } from 'pmtiles';
import { isAbortError, TesseraError, TileSourceError } from '../../core/errors';
import type { HttpClientCounters } from '../io/http/http-client';
import { HttpRangeReader } from '../io/http-range-reader';
import { MAX_IMAGE_TEXELS } from '../io/image-decoding';
import { type SourceIo, type SourceIoOptions, sourceIo } from '../io/source-runtime';
import type { ImageDecoder } from '../io/tile-decoder';
import type { ImageryPyramid, ImageryPyramidInfo, ImageryTile } from './imagery-pyramid';
import { optionalPeerError } from './optional-peer';
import { raceAbort } from './race-abort';
import { isTileOfZoom, webMapLevels, zoomOfLevel } from './web-map-levels';

/** Options of {@link openPmtilesPyramid}. */
export interface PmtilesPyramidOptions extends SourceIoOptions {
  /**
   * Decodes the tiles. Default: the runtime's decode workers. A decoder given is the caller's, as
   * for every source ({@link SourceIoOptions}): `dispose()` leaves it running.
   */
  decoder?: ImageDecoder;
  /**
   * Side of the archive's tiles, texels (a power of two). Default: the size of the first tile
   * the archive stores, decoded at open (one more request), or 256 when it stores none.
   */
  tileSize?: number;
  /** Credit line to show. Default the `attribution` of the archive's metadata, if any. */
  attribution?: string;
  /** Leaf directories kept in memory (each covers many tiles; the root is always kept). Default 64. */
  maxCachedDirectories?: number;
  /** Aborts opening. */
  signal?: AbortSignal;
}

/** A PMTiles archive opened by {@link openPmtilesPyramid}. */
export interface PmtilesPyramid extends ImageryPyramid {
  /** The archive's header (zooms, tile type, compression, bounds). */
  readonly header: Header;
  /** Side of the tiles, texels. */
  readonly tileSize: number;
  /** Lets go of the runtime's decoder and drops its directories; later loads reject. */
  dispose(): void;
}

/** Bytes read to open an archive: the reference readers' choice, which holds header and root. */
const OPEN_BYTES = 16384;
const HEADER_BYTES = 127;
/** PMTiles tile ids address zooms up to 26. */
const MAX_PMTILES_ZOOM = 26;

/** pmtiles' module, loaded on the first open (see {@link loadPmtiles}). */
type PmtilesModule = typeof import('pmtiles');

let pmtilesModule: Promise<PmtilesModule> | undefined;

/**
 * Loads pmtiles when an archive is first opened, not when the imagery entry is imported: it is
 * an optional peer dependency, which an application that opens no PMTiles archive need not install.
 * @throws TesseraConfigError `missing-dependency` when pmtiles is not installed.
 */
function loadPmtiles(): Promise<PmtilesModule> {
  pmtilesModule ??= (async () => {
    try {
      return await import('pmtiles');
    } catch (error) {
      throw optionalPeerError('pmtiles', error);
    }
  })();
  pmtilesModule.catch(() => {
    pmtilesModule = undefined;
  });
  return pmtilesModule;
}

/**
 * Opens a raster PMTiles v3 archive at `source` (a URL, read by HTTP `Range`, or any pmtiles
 * `Source`). Levels run from the header's `maxZoom` (level 0) to its `minZoom`; longitude wraps.
 * @throws TileSourceError `bad-magic` (not PMTiles), `bad-version` (not v3), `unsupported`
 *   (vector tiles, brotli or zstd compression), `corrupt`, `truncated`, `range-ignored`,
 *   `wrong-size` (a first tile that is not square), `http-status`, `network`, `timeout`; an abort
 *   error once `options.signal` aborts.
 * @throws TesseraConfigError `not-power-of-two` (`options.tileSize`, or the tiles stored);
 *   `missing-dependency` when the optional peer dependency `pmtiles` is not installed
 *   (`npm install pmtiles`).
 */
export async function openPmtilesPyramid(
  source: string | Source,
  options: PmtilesPyramidOptions = {},
): Promise<PmtilesPyramid> {
  const signal = options.signal ?? new AbortController().signal;
  signal.throwIfAborted();
  const io = sourceIo(options, options.decoder);
  try {
    return await openArchive(source, options, signal, io);
  } catch (error) {
    io.release();
    throw error;
  }
}

async function openArchive(
  source: string | Source,
  options: PmtilesPyramidOptions,
  signal: AbortSignal,
  io: SourceIo,
): Promise<PmtilesPyramid> {
  const pm = await raceAbort(loadPmtiles(), signal);
  const client = typeof source === 'string' ? io.http : undefined;
  const checked = new CheckedSource(
    typeof source === 'string' ? new RangeReaderSource(new HttpRangeReader(source, { client })) : source,
  );
  const key = checked.getKey();
  const first = new Uint8Array((await checked.getBytes(0, OPEN_BYTES, signal)).data);
  const header = parseHeader(pm, first, key);
  const sliceOrRead = async (offset: number, length: number): Promise<ArrayBuffer> =>
    offset + length <= first.length
      ? first.slice(offset, offset + length).buffer
      : (await checked.getBytes(offset, length, signal)).data;
  const root = parseDirectory(
    pm,
    await decompress(
      pm,
      await sliceOrRead(header.rootDirectoryOffset, header.rootDirectoryLength),
      header.internalCompression,
    ),
    key,
  );
  let attribution = options.attribution;
  if (attribution === undefined && header.jsonMetadataLength > 0) {
    const json = await decompress(
      pm,
      await sliceOrRead(header.jsonMetadataOffset, header.jsonMetadataLength),
      header.internalCompression,
    );
    let metadata: unknown;
    try {
      metadata = JSON.parse(new TextDecoder().decode(json));
    } catch (e) {
      throw new TileSourceError('corrupt', `${key}: metadata is not JSON`, false, { cause: e });
    }
    const credit = (metadata as { attribution?: unknown } | null)?.attribution;
    if (typeof credit === 'string' && credit !== '') attribution = credit;
  }
  const cache = new DirectoryCache(pm, header, root, options.maxCachedDirectories ?? 64);
  const pmtiles = new pm.PMTiles(checked, cache, (buffer, compression) =>
    decompress(pm, buffer, compression),
  );
  try {
    const tileSize =
      options.tileSize ??
      (await firstTileSize(pm, pmtiles, cache, checked, header, root, io.decoder, signal)) ??
      256;
    return new PmtilesArchive(pmtiles, cache, header, tileSize, attribution, io, client?.counters);
  } catch (error) {
    cache.dispose();
    throw error;
  }
}

/** Checks the header of a PMTiles archive and reads it. */
function parseHeader(pm: PmtilesModule, first: Uint8Array, key: string): Header {
  const { Compression, TileType } = pm;
  const magic = 'PMTiles';
  for (let i = 0; i < magic.length; i++) {
    if (first[i] !== magic.charCodeAt(i))
      throw new TileSourceError('bad-magic', `${key}: not a PMTiles archive`, false);
  }
  if (first[7] !== 3) {
    throw new TileSourceError('bad-version', `${key}: PMTiles version ${first[7]}, only 3 is read`, false);
  }
  if (first.length < HEADER_BYTES)
    throw new TileSourceError('truncated', `${key}: shorter than its header`, false);
  const header = pm.bytesToHeader(first.slice(0, HEADER_BYTES).buffer);
  if (header.tileType === TileType.Mvt || header.tileType === TileType.Mlt) {
    throw new TileSourceError(
      'unsupported',
      `${key}: vector tiles (${header.tileType === TileType.Mvt ? 'MVT' : 'MLT'}); only raster archives are imagery`,
      false,
    );
  }
  for (const [what, compression] of [
    ['directories', header.internalCompression],
    ['tiles', header.tileCompression],
  ] as const) {
    if (
      compression !== Compression.None &&
      compression !== Compression.Gzip &&
      compression !== Compression.Unknown
    ) {
      throw new TileSourceError(
        'unsupported',
        `${key}: ${what} compressed with ${Compression[compression]}`,
        false,
      );
    }
  }
  if (header.minZoom > header.maxZoom || header.maxZoom > MAX_PMTILES_ZOOM) {
    throw new TileSourceError('corrupt', `${key}: zooms ${header.minZoom}..${header.maxZoom}`, false);
  }
  return header;
}

/** Size of the first tile the archive stores (the coarsest, as tiles are in tile-id order), or null. */
async function firstTileSize(
  pm: PmtilesModule,
  pmtiles: PMTiles,
  cache: DirectoryCache,
  source: Source,
  header: Header,
  root: Entry[],
  decoder: ImageDecoder,
  signal: AbortSignal,
): Promise<number | null> {
  let entries = root;
  // Directories nest at most four deep (the root and three levels of leaves).
  for (let depth = 0; depth < 4; depth++) {
    const entry = entries[0];
    if (entry === undefined) return null;
    if (entry.runLength === 0) {
      entries = await cache.getDirectory(
        source,
        header.leafDirectoryOffset + entry.offset,
        entry.length,
        header,
        signal,
      );
      continue;
    }
    const [z, x, y] = pm.tileIdToZxy(entry.tileId);
    const response = await getTile(pmtiles, z, x, y, signal);
    if (response === undefined || response.data.byteLength === 0) return null;
    const tile = await decoder.decodeImage(new Uint8Array(response.data), MAX_IMAGE_TEXELS, signal);
    if (tile.width !== tile.height) {
      throw new TileSourceError(
        'wrong-size',
        `${source.getKey()}: tile ${z}/${x}/${y} is ${tile.width}x${tile.height} texels, not square`,
        false,
      );
    }
    return tile.width;
  }
  return null;
}

class PmtilesArchive implements PmtilesPyramid {
  readonly info: ImageryPyramidInfo;
  private disposed = false;

  constructor(
    private readonly pmtiles: PMTiles,
    private readonly cache: DirectoryCache,
    readonly header: Header,
    readonly tileSize: number,
    attribution: string | undefined,
    private readonly io: SourceIo,
    /** The HTTP client's request counts when the archive is read over HTTP (see {@link ImageryPyramid.requestCounters}). */
    readonly requestCounters: HttpClientCounters | undefined,
  ) {
    this.info = {
      levels: webMapLevels(header.minZoom, header.maxZoom, tileSize),
      wrapX: 'repeat',
      ...(attribution !== undefined ? { attribution } : {}),
    };
  }

  /**
   * Loads tile (`x`, `y`) (rows from the top) of level `level` (zoom `maxZoom - level`).
   * Resolves `null` for a tile the archive does not hold, without reading anything but
   * directories.
   * @throws RangeError for a level outside `info.levels`.
   * @throws TileSourceError `wrong-size` (not `tileSize x tileSize`), `decode-failed`, `corrupt`,
   *   `truncated`, `http-status`, `network`, `timeout`, `source-disposed`; an abort error once
   *   `signal` aborts.
   */
  async loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    const z = zoomOfLevel(level, this.header.maxZoom, this.info.levels.length);
    if (this.disposed)
      throw new TileSourceError('source-disposed', 'the PMTiles pyramid was disposed', false);
    if (!isTileOfZoom(z, x, y)) return null;
    signal.throwIfAborted();
    const response = await getTile(this.pmtiles, z, x, y, signal);
    if (response === undefined || response.data.byteLength === 0) return null;
    const tile = await this.io.decoder.decodeImage(new Uint8Array(response.data), MAX_IMAGE_TEXELS, signal);
    if (tile.width !== this.tileSize || tile.height !== this.tileSize) {
      throw new TileSourceError(
        'wrong-size',
        `${this.pmtiles.source.getKey()}: tile ${z}/${x}/${y} is ${tile.width}x${tile.height} texels, expected ${this.tileSize}`,
        false,
      );
    }
    return tile;
  }

  /** Lets go of the runtime's decoder and drops the directories; later loads reject. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.cache.dispose();
    this.io.release();
  }
}

/** `pmtiles.getZxy` with its untyped errors (a bad directory) made `corrupt`. */
async function getTile(
  pmtiles: PMTiles,
  z: number,
  x: number,
  y: number,
  signal: AbortSignal,
): Promise<RangeResponse | undefined> {
  try {
    return await pmtiles.getZxy(z, x, y, signal);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof TesseraError || isAbortError(error)) throw error;
    throw new TileSourceError('corrupt', `${pmtiles.source.getKey()}: ${(error as Error).message}`, false, {
      cause: error,
    });
  }
}

/** A pmtiles `Source` reading through an {@link HttpRangeReader}. */
class RangeReaderSource implements Source {
  constructor(private readonly reader: HttpRangeReader) {}

  getKey(): string {
    return this.reader.url;
  }

  async getBytes(offset: number, length: number, signal?: AbortSignal): Promise<RangeResponse> {
    const live = signal ?? new AbortController().signal;
    // The opening read asks for more than a small archive has; any other read must be whole.
    const bytes =
      offset === 0
        ? await this.reader.readAtMost(0, length, live)
        : await this.reader.read(offset, offset + length, live);
    return { data: toArrayBuffer(bytes) };
  }
}

/**
 * Wraps any pmtiles `Source` so its failures are typed: a plain error becomes a retryable
 * `network` error, and a short answer to a read past the opening one is `truncated`.
 */
class CheckedSource implements Source {
  constructor(private readonly inner: Source) {}

  getKey(): string {
    return this.inner.getKey();
  }

  async getBytes(
    offset: number,
    length: number,
    signal?: AbortSignal,
    etag?: string,
  ): Promise<RangeResponse> {
    let response: RangeResponse;
    try {
      response = await this.inner.getBytes(offset, length, signal, etag);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof TesseraError || isAbortError(error)) throw error;
      throw new TileSourceError('network', `${this.getKey()}: ${(error as Error).message}`, true, {
        cause: error,
      });
    }
    if (offset !== 0 && response.data.byteLength !== length) {
      throw new TileSourceError(
        'truncated',
        `${this.getKey()}: ${response.data.byteLength} bytes at ${offset}, expected ${length}`,
        false,
      );
    }
    return response;
  }
}

/**
 * The archive's directories for `pmtiles`: the header and root read at open, kept for the
 * pyramid's life, and the most recently used leaf directories. Unlike the package's own caches,
 * a failed read is forgotten (the next tile tries again), and a leaf read is not cancelled when
 * the tile that asked for it is (other tiles wait on it), only on dispose.
 */
class DirectoryCache implements Cache {
  /** Leaf directories by offset, least recently used first. */
  private readonly leaves = new Map<number, Promise<Entry[]>>();
  private readonly controller = new AbortController();

  constructor(
    private readonly pm: PmtilesModule,
    private readonly header: Header,
    private readonly root: Entry[],
    private readonly capacity: number,
  ) {}

  getHeader(): Promise<Header> {
    return Promise.resolve(this.header);
  }

  getDirectory(source: Source, offset: number, length: number, _header: Header, signal?: AbortSignal) {
    if (offset === this.header.rootDirectoryOffset && length === this.header.rootDirectoryLength) {
      return Promise.resolve(this.root);
    }
    let directory = this.leaves.get(offset);
    if (directory !== undefined) {
      this.leaves.delete(offset);
    } else {
      const read = readDirectory(this.pm, source, offset, length, this.header, this.controller.signal);
      directory = read;
      read.catch(() => {
        if (this.leaves.get(offset) === read) this.leaves.delete(offset);
      });
      if (this.leaves.size >= Math.max(1, this.capacity)) {
        this.leaves.delete(this.leaves.keys().next().value as number);
      }
    }
    this.leaves.set(offset, directory);
    return raceAbort(directory, signal);
  }

  invalidate(): Promise<void> {
    this.leaves.clear();
    return Promise.resolve();
  }

  dispose(): void {
    this.controller.abort(new TileSourceError('source-disposed', 'the PMTiles pyramid was disposed', false));
    this.leaves.clear();
  }
}

async function readDirectory(
  pm: PmtilesModule,
  source: Source,
  offset: number,
  length: number,
  header: Header,
  signal: AbortSignal,
): Promise<Entry[]> {
  const response = await source.getBytes(offset, length, signal, header.etag);
  const entries = parseDirectory(
    pm,
    await decompress(pm, response.data, header.internalCompression),
    source.getKey(),
  );
  if (entries.length === 0)
    throw new TileSourceError('corrupt', `${source.getKey()}: empty leaf directory`, false);
  return entries;
}

/**
 * Decodes a PMTiles directory: the entry count, then the columns tile-id delta, run length,
 * length and offset (0 meaning right after the previous entry), all varints.
 * @throws TileSourceError `corrupt` (cut short, or ids not increasing).
 */
function parseDirectory(pm: PmtilesModule, buffer: ArrayBuffer, key: string): Entry[] {
  const position = { buf: new Uint8Array(buffer), pos: 0 };
  const next = () => {
    if (position.pos >= position.buf.length)
      throw new TileSourceError('corrupt', `${key}: directory cut short`, false);
    return pm.readVarint(position);
  };
  const count = next();
  // Each entry takes at least four bytes, which bounds a corrupt count before allocating for it.
  if (count * 4 > position.buf.length)
    throw new TileSourceError('corrupt', `${key}: directory of ${count} entries`, false);
  const entries: Entry[] = [];
  let tileId = 0;
  for (let i = 0; i < count; i++) {
    const delta = next();
    if (i > 0 && delta === 0)
      throw new TileSourceError('corrupt', `${key}: directory ids not increasing`, false);
    tileId += delta;
    entries.push({ tileId, offset: 0, length: 0, runLength: 1 });
  }
  for (const entry of entries) entry.runLength = next();
  for (const entry of entries) entry.length = next();
  for (let i = 0; i < count; i++) {
    const value = next();
    const previous = entries[i - 1];
    entries[i].offset = value === 0 && previous !== undefined ? previous.offset + previous.length : value - 1;
  }
  return entries;
}

/** Inflates a directory, the metadata or a tile as the header says it is compressed. */
async function decompress(
  pm: PmtilesModule,
  buffer: ArrayBuffer,
  compression: Compression,
): Promise<ArrayBuffer> {
  const { Compression } = pm;
  if (compression === Compression.None || compression === Compression.Unknown) return buffer;
  if (compression !== Compression.Gzip) {
    throw new TileSourceError('unsupported', `PMTiles: ${Compression[compression]} compression`, false);
  }
  try {
    const inflated = new Blob([buffer]).stream().pipeThrough(new DecompressionStream('gzip'));
    return await new Response(inflated).arrayBuffer();
  } catch (e) {
    throw new TileSourceError('corrupt', 'PMTiles: gzip data does not inflate', false, { cause: e });
  }
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
    ? bytes.buffer
    : bytes.slice().buffer;
}
