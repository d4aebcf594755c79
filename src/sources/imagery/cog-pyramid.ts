/**
 * Cloud-Optimized GeoTIFF (and any tiled, pyramidal TIFF: GDAL's COG driver, `gdaladdo`
 * overviews, libvips' `tiffsave --tile --pyramid`, sharp's `tiff({ tile, pyramid })`) as an
 * {@link ImageryPyramid}, read by HTTP `Range` requests: geotiff parses the header and the image
 * file directories (through a small block cache, {@link CogMetadataSource}), and each tile is one
 * request for exactly its bytes, decoded by geotiff's codecs (inline, or on a geotiff `Pool`),
 * WebP tiles and 8-bit YCbCr or RGB JPEG tiles (spliced with the IFD's `JPEGTables`, see
 * `cog-jpeg.ts`) by Tessera's image decoder. Full resolution is level 0; each reduced-resolution IFD
 * whose size halves level 0 `k` times becomes level `k`.
 */

import type { GeoTIFF, GeoTIFFImage } from 'geotiff';
import { TesseraConfigError, TileSourceError } from '../../core/errors';
import { defaultDecodeWorkerCount } from '../io/default-tile-decoder';
import type { HttpClientCounters } from '../io/http/http-client';
import { HttpRangeReader } from '../io/http-range-reader';
import { MAX_IMAGE_TEXELS } from '../io/image-decoding';
import { MemoryRangeReader, type RangeReader } from '../io/range-reader';
import { type SourceIo, type SourceIoOptions, sourceIo } from '../io/source-runtime';
import type { ImageDecoder } from '../io/tile-decoder';
import { type CogGeoreference, readCogGeoreference } from './cog-georeference';
import { applyRgbNodata, cogJpegColour, spliceCogJpeg } from './cog-jpeg';
import { CogMetadataSource } from './cog-metadata-source';
import {
  type CogRampStop,
  CogTexelConverter,
  type CogTexelLayout,
  cogSampleType,
  rampProblem,
} from './cog-texels';
import type { ImageryLevel, ImageryPyramid, ImageryPyramidInfo, ImageryTile } from './imagery-pyramid';
import { optionalPeerError } from './optional-peer';
import { raceAbort } from './race-abort';

/**
 * Decodes compressed TIFF tiles off the calling thread: geotiff's `Pool` (`new Pool()` from
 * `geotiff`, whose workers start from a Blob URL, so it survives bundlers; a page whose CSP
 * forbids `blob:` workers cannot use it) or anything with the same `bindParameters`.
 */
export interface CogDecoderPool {
  /** A decoder for one compression and one IFD's parameters (tile size, predictor, JPEG tables). */
  bindParameters(
    compression: number,
    parameters: Record<string, unknown>,
  ): { decode(buffer: ArrayBufferLike): Promise<ArrayBufferLike> };
}

/** The geotiff pool every COG pyramid given none shares, and how many hold it. */
let sharedGeotiffPool: { pool: GeotiffPool; users: number } | null = null;

type GeotiffPool = InstanceType<GeotiffModule['Pool']>;

/**
 * A hold on the geotiff `Pool` shared by every COG pyramid given no pool: started at the first
 * compressed tile, its workers stopped when the last pyramid holding it is disposed.
 */
function leaseGeotiffPool(geotiff: GeotiffModule): { pool: CogDecoderPool; release: () => void } {
  if (sharedGeotiffPool === null) {
    const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator
      ?.hardwareConcurrency;
    sharedGeotiffPool = { pool: new geotiff.Pool(defaultDecodeWorkerCount(cores)), users: 0 };
  }
  const shared = sharedGeotiffPool;
  shared.users++;
  let released = false;
  return {
    pool: shared.pool as unknown as CogDecoderPool,
    release: () => {
      if (released) return;
      released = true;
      if (--shared.users > 0) return;
      void shared.pool.destroy();
      if (sharedGeotiffPool === shared) sharedGeotiffPool = null;
    },
  };
}

/** Options of {@link openCogPyramid}. */
export interface CogPyramidOptions extends SourceIoOptions {
  /**
   * Where deflate, LZW, zstd, LERC and PackBits tiles (and JPEG tiles other than 8-bit YCbCr or
   * RGB, which {@link decoder} decodes) are decoded. Default: where `Worker`
   * exists (browsers), one geotiff `Pool` shared by every COG (as many workers as the decode
   * pool's), stopped when the last COG using it is disposed; elsewhere (Node) inline. `null`: inline, in the calling
   * thread. A pool given is the caller's, as for every source ({@link SourceIoOptions}):
   * `dispose()` leaves it running.
   */
  pool?: CogDecoderPool | null;
  /**
   * Decodes WebP tiles (browsers' codecs; geotiff's own needs a DOM) and 8-bit YCbCr or RGB JPEG
   * tiles (as libjpeg decodes them for GDAL: chroma interpolated, which geotiff's decoder does not).
   * Default: the runtime's decode workers, started at the first such tile. A decoder given is the
   * caller's, as for every source ({@link SourceIoOptions}): `dispose()` leaves it running.
   */
  decoder?: ImageDecoder;
  /**
   * Colour ramp for single-band images (elevation, temperature, classes), stops in ascending
   * value. Default: black to white over the sample type's range (0..255, 0..65535, 0..1 for
   * floating point), reversed for `WhiteIsZero` images. Palette images use their `ColorMap`.
   */
  ramp?: readonly CogRampStop[];
  /**
   * Sample value of texels without data, drawn transparent (for RGB, texels whose three colour
   * samples all equal it). Default the file's `GDAL_NODATA`; `null` ignores the file's.
   */
  nodata?: number | null;
  /** How the image continues past its left and right edges. Default `'clamp'`. */
  wrapX?: 'clamp' | 'repeat';
  /** Credit line to show with the image, if its licence asks for one. Default none. */
  attribution?: string;
  /**
   * Bytes per block of the header and directory cache (a COG's directories sit near the start,
   * so the first block usually holds them all). Default 16384.
   */
  metadataBlockBytes?: number;
  /** Aborts opening. */
  signal?: AbortSignal;
}

/** Compressions with a decoder here: none, LZW, JPEG, deflate (both codes), PackBits, LERC, zstd, WebP. */
const SUPPORTED_COMPRESSIONS = new Set([1, 5, 7, 8, 32946, 32773, 34887, 50000, 50001]);
const WEBP = 50001;
const JPEG = 7;
/** More IFDs than this is a loop in a damaged file, not a pyramid. */
const MAX_IFDS = 256;
/** Directory blocks kept by the metadata cache. */
const METADATA_BLOCKS = 64;
/** TIFF `NewSubfileType` bits. */
const REDUCED_RESOLUTION = 1;
const TRANSPARENCY_MASK = 4;

/** geotiff's module, loaded on the first open (see {@link loadGeotiff}). */
type GeotiffModule = typeof import('geotiff');

let geotiffModule: Promise<GeotiffModule> | undefined;

/**
 * Loads geotiff when a GeoTIFF is first opened, not when the imagery entry is imported: it is an
 * optional peer dependency (an application that opens no GeoTIFF need not install it), and its
 * worker shim (`web-worker`) runs code at import that throws inside Node worker threads started
 * without `workerData` (test runners' thread pools), which must not break every other pyramid.
 * @throws TesseraConfigError `missing-dependency` when geotiff is not installed.
 */
function loadGeotiff(): Promise<GeotiffModule> {
  geotiffModule ??= (async () => {
    try {
      return await import('geotiff');
    } catch (error) {
      throw optionalPeerError('geotiff', error);
    }
  })();
  geotiffModule.catch(() => {
    geotiffModule = undefined;
  });
  return geotiffModule;
}

/** One level: its IFD, geometry and lazily made decoding state. */
interface CogLevelState {
  readonly image: GeoTIFFImage;
  readonly level: ImageryLevel;
  readonly tilesAcross: number;
  readonly tilesDown: number;
  readonly compression: number;
  /** `null` for WebP, whose tiles decode straight to rgba8. */
  readonly layout: CogTexelLayout | null;
  /** Largest payload a tile may have, bytes (a bound against damaged byte counts). */
  readonly maxTileBytes: number;
  table: Promise<TileTable> | undefined;
  decoder: Promise<{ decode(buffer: ArrayBufferLike): Promise<ArrayBufferLike> }> | undefined;
  converter: CogTexelConverter | undefined;
  /** JPEG levels decoded by the image decoder: the IFD's `JPEGTables` (`null`: none), read once. */
  jpegTables?: Promise<Uint8Array | null>;
}

/** Where each tile's bytes are: `TileOffsets` and `TileByteCounts`. */
interface TileTable {
  readonly offsets: ArrayLike<number>;
  readonly counts: ArrayLike<number>;
}

/** A Cloud-Optimized GeoTIFF opened by {@link openCogPyramid}. */
export class CogPyramid implements ImageryPyramid {
  /** Its levels (full resolution and each halving overview), tile sizes and attribution. */
  readonly info: ImageryPyramidInfo;
  /**
   * Where the image lies on the Earth, read from the first IFD's GeoKeys and transform when it is
   * opened: EPSG:4326 or EPSG:3857 bounds, to place the image on a globe with `geographicUv`
   * (`@tessera-vt/tessera/three`). `null` for a TIFF without georeferencing and for one in
   * any other system, or rotated, or tied by ground control points (opening never fails for it).
   */
  readonly georeference: CogGeoreference | null;
  private readonly lifetime: AbortController;
  private readonly io: SourceIo;
  /** The pool tiles decode on: the caller's, one of this pyramid's own (browsers), or none. */
  private pool: CogDecoderPool | null | undefined;
  /** This pyramid's hold on the shared geotiff pool (see {@link leaseGeotiffPool}). */
  private poolLease: (() => void) | null = null;
  private disposed = false;

  /** The HTTP client's request counts when the GeoTIFF is read over HTTP (see {@link ImageryPyramid.requestCounters}). */
  get requestCounters(): HttpClientCounters | undefined {
    return this.reader instanceof HttpRangeReader ? this.reader.client.counters : undefined;
  }

  /** @internal use {@link openCogPyramid}. */
  constructor(
    private readonly geotiff: GeotiffModule,
    private readonly tiff: GeoTIFF,
    private readonly reader: RangeReader,
    private readonly metadata: CogMetadataSource,
    private readonly states: readonly CogLevelState[],
    private readonly options: CogPyramidOptions,
    lifetime: AbortController,
    io: SourceIo,
  ) {
    this.lifetime = lifetime;
    this.info = {
      levels: states.map((s) => s.level),
      wrapX: options.wrapX ?? 'clamp',
      attribution: options.attribution,
    };
    this.georeference = readCogGeoreference(states[0].image);
    this.io = io;
  }

  /**
   * Loads tile (`x`, `y`) of level `level` as rgba8, `tileWidth x tileHeight` texels (edge tiles
   * keep the TIFF's padding). Resolves `null` outside the grid and for sparse tiles (no bytes,
   * as GDAL writes with `SPARSE_OK`).
   * @throws TileSourceError `decode-failed`, `oversized` (a byte count beyond any tile of this
   *   size), `source-disposed`, the reader's `http-status`, `network`, `timeout`, `truncated`;
   *   `signal.reason` once `signal` aborts.
   */
  async loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    if (signal.aborted) throw signal.reason;
    if (this.disposed) throw disposedError();
    const state = this.states[level];
    if (state === undefined || !Number.isInteger(x) || !Number.isInteger(y)) return null;
    if (x < 0 || y < 0 || x >= state.tilesAcross || y >= state.tilesDown) return null;
    const table = await raceAbort(this.tileTable(state), signal);
    if (this.disposed) throw disposedError();
    const index = y * state.tilesAcross + x;
    const offset = Number(table.offsets[index]);
    const count = Number(table.counts[index]);
    if (!(count > 0)) return null;
    if (count > state.maxTileBytes) {
      throw new TileSourceError(
        'oversized',
        `${this.where()}: tile ${x},${y} of level ${level} claims ${count} bytes`,
        false,
      );
    }
    const both = AbortSignal.any([signal, this.lifetime.signal]);
    const bytes = await this.reader.read(offset, offset + count, both);
    if (signal.aborted) throw signal.reason;
    const { tileWidth, tileHeight } = state.level;
    if (state.layout === null) {
      return this.io.decoder.decodeImage(bytes, MAX_IMAGE_TEXELS, both);
    }
    const jpegColour = state.compression === JPEG ? cogJpegColour(state.layout) : null;
    if (jpegColour !== null) {
      // The platform's JPEG decoder (the browser's, in the decode workers) interpolates chroma
      // as libjpeg does for GDAL; geotiff's replicates it, tens of levels off along colour edges.
      let tile: ImageryTile;
      try {
        const tables = await raceAbort(this.jpegTables(state), signal);
        const stream = spliceCogJpeg(tables, bytes, jpegColour);
        tile = await this.io.decoder.decodeImage(stream, MAX_IMAGE_TEXELS, both);
      } catch (error) {
        throw this.decodeError(error, signal, x, y, level);
      }
      if (this.disposed) throw disposedError();
      if (tile.width !== tileWidth || tile.height !== tileHeight) {
        throw new TileSourceError(
          'wrong-size',
          `${this.where()}: tile ${x},${y} of level ${level} is a ${tile.width}x${tile.height} JPEG, ` +
            `expected ${tileWidth}x${tileHeight}`,
          false,
        );
      }
      if (jpegColour === 'rgb') applyRgbNodata(tile.data, state.layout.nodata);
      return tile;
    }
    let decoded: ArrayBufferLike;
    try {
      const decoder = await raceAbort(this.decoder(state), signal);
      decoded = await raceAbort(decoder.decode(ownBuffer(bytes)), signal);
    } catch (error) {
      throw this.decodeError(error, signal, x, y, level);
    }
    if (this.disposed) throw disposedError();
    state.converter ??= new CogTexelConverter(state.layout, this.options.ramp);
    const data = state.converter.convert(decoded as ArrayBuffer, tileWidth * tileHeight);
    return { width: tileWidth, height: tileHeight, data };
  }

  /**
   * What a load throws when decoding tile (`x`, `y`) of `level` threw `error`, by either decoder:
   * the abort's reason, `source-disposed` once disposed, else a `TileSourceError` naming the file
   * and the tile (a typed error keeps its code and `retryable`; anything else is `decode-failed`).
   */
  private decodeError(error: unknown, signal: AbortSignal, x: number, y: number, level: number): unknown {
    if (signal.aborted) return signal.reason;
    if (this.disposed) return disposedError();
    const where = `${this.where()}: tile ${x},${y} of level ${level}`;
    if (error instanceof TileSourceError) {
      return new TileSourceError(error.code, `${where}: ${error.message}`, error.retryable, { cause: error });
    }
    return new TileSourceError('decode-failed', `${where}: ${(error as Error).message}`, false, {
      cause: error,
    });
  }

  /** Lets go of the runtime's decoder, stops the owned geotiff pool, fails pending loads with `source-disposed` and drops caches. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.lifetime.abort(disposedError());
    this.metadata.clear();
    this.io.release();
    this.poolLease?.();
    this.poolLease = null;
    void this.tiff.close();
  }

  /** The caller's pool, else the geotiff `Pool` every COG shares where workers exist. */
  private decodePool(): CogDecoderPool | null {
    // A decoder made after dispose() (its parameters were awaited) must not take the shared pool.
    if (this.disposed) throw disposedError();
    if (this.pool !== undefined) return this.pool;
    if (this.options.pool !== undefined) {
      this.pool = this.options.pool;
    } else if (typeof (globalThis as { Worker?: unknown }).Worker === 'function') {
      const lease = leaseGeotiffPool(this.geotiff);
      this.poolLease = lease.release;
      this.pool = lease.pool;
    } else {
      this.pool = null;
    }
    return this.pool;
  }

  private where(): string {
    return this.reader instanceof HttpRangeReader ? this.reader.url : 'GeoTIFF';
  }

  private tileTable(state: CogLevelState): Promise<TileTable> {
    if (state.table === undefined) {
      const load = Promise.all([
        this.loadArray(state.image, 'TileOffsets'),
        this.loadArray(state.image, 'TileByteCounts'),
      ]).then(([offsets, counts]) => {
        const tiles = state.tilesAcross * state.tilesDown;
        if (offsets.length < tiles || counts.length < tiles) {
          throw new TileSourceError('corrupt', `${this.where()}: fewer tile offsets than tiles`, false);
        }
        return { offsets, counts };
      });
      state.table = load;
      // A failed read is forgotten, so a later tile tries again.
      load.catch(() => {
        if (state.table === load) state.table = undefined;
      });
    }
    return state.table;
  }

  /**
   * One offset array, read in one request. geotiff's own deferred arrays read one entry per
   * request, keep a failed read forever and assume little-endian, so the array is read here.
   */
  private async loadArray(
    image: GeoTIFFImage,
    tag: 'TileOffsets' | 'TileByteCounts',
  ): Promise<ArrayLike<number>> {
    const ifd = image.fileDirectory;
    const code = tag === 'TileOffsets' ? 324 : 325;
    const deferred = ifd.deferredArrays.get(code);
    if (deferred === undefined) {
      // Not deferred: geotiff parsed it with the directory (getValue's typing only admits eager tags).
      const value = (ifd.getValue as (tag: number) => ArrayLike<number> | number | undefined)(code);
      if (value === undefined) throw new TileSourceError('corrupt', `${this.where()}: no ${tag}`, false);
      return typeof value === 'number' ? [value] : value;
    }
    const size =
      deferred.fieldType === 3 ? 2 : deferred.fieldType === 4 ? 4 : deferred.fieldType === 16 ? 8 : 0;
    if (size === 0) {
      throw new TileSourceError(
        'corrupt',
        `${this.where()}: ${tag} of field type ${deferred.fieldType}`,
        false,
      );
    }
    const [buffer] = await this.metadata.fetch([
      { offset: deferred.arrayOffset, length: deferred.length * size },
    ]);
    if (buffer.byteLength < deferred.length * size) {
      throw new TileSourceError('truncated', `${this.where()}: ${tag} runs past the end of the file`, false);
    }
    const view = new DataView(buffer);
    const le = this.tiff.littleEndian;
    const out = new Float64Array(deferred.length);
    for (let i = 0; i < out.length; i++) {
      const p = i * size;
      out[i] =
        size === 2
          ? view.getUint16(p, le)
          : size === 4
            ? view.getUint32(p, le)
            : Number(view.getBigUint64(p, le));
    }
    return out;
  }

  /** The level's `JPEGTables`, read once (a failed read is forgotten, so a later tile tries again). */
  private jpegTables(state: CogLevelState): Promise<Uint8Array | null> {
    if (state.jpegTables === undefined) {
      const load = state.image.fileDirectory
        .loadValue('JPEGTables')
        .then((value) =>
          value === undefined || value === null ? null : Uint8Array.from(value as ArrayLike<number>),
        );
      state.jpegTables = load;
      load.catch(() => {
        if (state.jpegTables === load) state.jpegTables = undefined;
      });
    }
    return state.jpegTables;
  }

  private decoder(
    state: CogLevelState,
  ): Promise<{ decode(buffer: ArrayBufferLike): Promise<ArrayBufferLike> }> {
    if (state.decoder === undefined) {
      const make = async () => {
        const parameters = await decoderParameters(state.image, state.compression);
        const pool = this.decodePool();
        return pool
          ? pool.bindParameters(state.compression, parameters)
          : this.geotiff.getDecoder(
              state.compression,
              parameters as unknown as Parameters<GeotiffModule['getDecoder']>[1],
            );
      };
      const made = make();
      state.decoder = made;
      made.catch(() => {
        if (state.decoder === made) state.decoder = undefined;
      });
    }
    return state.decoder;
  }
}

/**
 * Opens a tiled (Cloud-Optimized) GeoTIFF: a URL read by `Range` requests through an
 * {@link HttpClient}, the file's bytes in memory, or any {@link RangeReader} (a local file in
 * Node). Reads the header and directories, usually in one or two requests.
 * @throws TesseraConfigError `invalid-option` (a bad `ramp`); `missing-dependency` when the
 *   optional peer dependency `geotiff` is not installed (`npm install geotiff`).
 * @throws TileSourceError `unsupported` (a stripped TIFF, separate planes, a compression, sample
 *   format or photometric interpretation without a decoder here), `bad-magic` (not a TIFF),
 *   `corrupt`, and the reader's `http-status`, `network`, `timeout`, `range-ignored`; an abort
 *   error once `options.signal` aborts.
 */
export async function openCogPyramid(
  source: string | ArrayBuffer | RangeReader,
  options: CogPyramidOptions = {},
): Promise<CogPyramid> {
  if (options.ramp !== undefined) {
    const problem = rampProblem(options.ramp);
    if (problem !== null) throw new TesseraConfigError('invalid-option', problem);
  }
  const blockBytes = options.metadataBlockBytes ?? 16384;
  if (!Number.isInteger(blockBytes) || blockBytes < 512) {
    throw new TesseraConfigError(
      'invalid-option',
      `metadataBlockBytes must be an integer >= 512, got ${blockBytes}`,
    );
  }
  const signal = options.signal ?? new AbortController().signal;
  if (signal.aborted) throw signal.reason;
  const io = sourceIo(options, options.decoder);
  const reader =
    typeof source === 'string'
      ? new HttpRangeReader(source, { client: io.http })
      : source instanceof ArrayBuffer
        ? new MemoryRangeReader(new Uint8Array(source))
        : source;
  const where = typeof source === 'string' ? source : 'GeoTIFF';
  const lifetime = new AbortController();
  const metadata = new CogMetadataSource(reader, blockBytes, METADATA_BLOCKS, lifetime.signal);
  try {
    const geotiff = await raceAbort(loadGeotiff(), signal);
    const tiff = await raceAbort(
      geotiff.GeoTIFF.fromSource(metadata as unknown as Parameters<typeof GeoTIFF.fromSource>[0], {
        cache: false,
      }),
      signal,
    );
    const images = await raceAbort(readImages(tiff, where), signal);
    const states = await raceAbort(buildLevels(images, options, where), signal);
    return new CogPyramid(geotiff, tiff, reader, metadata, states, options, lifetime, io);
  } catch (error) {
    lifetime.abort();
    io.release();
    if (signal.aborted) throw signal.reason;
    if (error instanceof TileSourceError || error instanceof TesseraConfigError) throw error;
    const message = (error as Error).message;
    if (/byte order|magic number|offset byte-size/i.test(message)) {
      throw new TileSourceError('bad-magic', `${where}: not a TIFF (${message})`, false, { cause: error });
    }
    throw new TileSourceError('corrupt', `${where}: ${message}`, false, { cause: error });
  }
}

/** Every IFD, following the chain until its end. */
async function readImages(tiff: GeoTIFF, where: string): Promise<GeoTIFFImage[]> {
  const images: GeoTIFFImage[] = [];
  for (let i = 0; ; i++) {
    if (i === MAX_IFDS) throw new TileSourceError('corrupt', `${where}: more than ${MAX_IFDS} IFDs`, false);
    const image = await tiff.getImage(i);
    images.push(image);
    if (!image.fileDirectory.nextIFDByteOffset) return images;
  }
}

/**
 * Level 0 from the first IFD, level `k` from the first reduced-resolution IFD within one texel
 * of `ceil(size / 2^k)`, stopping at the first missing level (the contract's levels are
 * consecutive; the adapter derives coarser ones from the last).
 */
async function buildLevels(
  images: readonly GeoTIFFImage[],
  options: CogPyramidOptions,
  where: string,
): Promise<CogLevelState[]> {
  const full = images[0];
  if (!full.isTiled) {
    throw new TileSourceError(
      'unsupported',
      `${where}: a stripped TIFF, not a tiled one: make it a Cloud-Optimized GeoTIFF ` +
        '(gdal_translate -of COG, or vips tiffsave --tile --pyramid)',
      false,
    );
  }
  const width = full.getWidth();
  const height = full.getHeight();
  const byLevel = new Map<number, GeoTIFFImage>([[0, full]]);
  for (let i = 1; i < images.length; i++) {
    const image = images[i];
    const ifd = image.fileDirectory;
    const subfile = Number(ifd.getValue('NewSubfileType') ?? 0);
    if (subfile & TRANSPARENCY_MASK || ifd.getValue('PhotometricInterpretation') === 4) continue;
    if (!(subfile & REDUCED_RESOLUTION) || !image.isTiled) continue;
    const k = Math.round(Math.log2(width / image.getWidth()));
    if (k < 1 || byLevel.has(k)) continue;
    const withinOneTexel =
      Math.abs(image.getWidth() - Math.ceil(width / 2 ** k)) <= 1 &&
      Math.abs(image.getHeight() - Math.ceil(height / 2 ** k)) <= 1;
    if (withinOneTexel) byLevel.set(k, image);
  }
  const states: CogLevelState[] = [];
  for (let k = 0; byLevel.has(k); k++) {
    const image = byLevel.get(k) as GeoTIFFImage;
    const described = await describeLevel(image, options);
    if (typeof described === 'string') {
      if (k === 0) throw new TileSourceError('unsupported', `${where}: ${described}`, false);
      // An overview this build cannot decode is a gap: the adapter derives the rest from above.
      break;
    }
    states.push(described);
  }
  return states;
}

/** The level's geometry and texel layout, or why it cannot be read. */
async function describeLevel(
  image: GeoTIFFImage,
  options: CogPyramidOptions,
): Promise<CogLevelState | string> {
  const ifd = image.fileDirectory;
  const tileWidth = image.getTileWidth();
  const tileHeight = image.getTileHeight();
  if (!(tileWidth > 0 && tileHeight > 0) || tileWidth * tileHeight > MAX_IMAGE_TEXELS) {
    return `tiles of ${tileWidth} x ${tileHeight} texels`;
  }
  const compression = Number(ifd.getValue('Compression') ?? 1);
  if (!SUPPORTED_COMPRESSIONS.has(compression)) return `compression ${compression} has no decoder here`;
  const spp = image.getSamplesPerPixel();
  const planar = Number(ifd.getValue('PlanarConfiguration') ?? 1);
  if (planar === 2 && spp > 1) return 'separate sample planes (PlanarConfiguration 2)';
  const bits: ArrayLike<number> = ifd.getValue('BitsPerSample') ?? [1];
  for (let i = 1; i < bits.length; i++) if (bits[i] !== bits[0]) return 'samples of different sizes';
  const sampleType = cogSampleType(image.getSampleFormat(0), bits[0]);
  if (sampleType === null) return `${bits[0]}-bit samples of format ${image.getSampleFormat(0)}`;
  const photometric = Number(ifd.getValue('PhotometricInterpretation') ?? 1);
  const width = image.getWidth();
  const height = image.getHeight();
  const base = {
    image,
    level: { width, height, tileWidth, tileHeight },
    tilesAcross: Math.ceil(width / tileWidth),
    tilesDown: Math.ceil(height / tileHeight),
    compression,
    // Compressed data rarely exceeds raw; four times raw plus a header is beyond any real tile.
    maxTileBytes: tileWidth * tileHeight * Math.max(4, spp * (bits[0] / 8)) * 4 + 65536,
    table: undefined,
    decoder: undefined,
    converter: undefined,
  };
  if (compression === WEBP) {
    if (spp !== 3 && spp !== 4) return `WebP tiles of ${spp} samples`;
    return { ...base, layout: null };
  }
  let kind: CogTexelLayout['kind'];
  if (photometric === 0 || photometric === 1) kind = 'grey';
  else if (photometric === 2) kind = 'rgb';
  else if (photometric === 3) kind = 'palette';
  else if (photometric === 6 && compression === JPEG) kind = 'ycbcr';
  else return `photometric interpretation ${photometric}`;
  const colourSamples = kind === 'grey' || kind === 'palette' ? 1 : 3;
  if (spp < colourSamples) return `${spp} samples for photometric interpretation ${photometric}`;
  if (kind === 'ycbcr' && sampleType !== 'uint8') return 'non-8-bit YCbCr';
  if (kind === 'palette' && sampleType !== 'uint8' && sampleType !== 'uint16')
    return 'palette of non-integer samples';
  const extra: ArrayLike<number> | undefined = ifd.getValue('ExtraSamples');
  const extraKind = spp > colourSamples && extra !== undefined ? Number(extra[0]) : 0;
  const colorMap =
    kind === 'palette' ? ((await ifd.loadValue('ColorMap')) as ArrayLike<number> | undefined) : undefined;
  if (kind === 'palette' && colorMap === undefined) return 'a palette image without ColorMap';
  const nodata = options.nodata !== undefined ? options.nodata : image.getGDALNoData();
  const layout: CogTexelLayout = {
    kind,
    samplesPerPixel: spp,
    sampleType,
    littleEndian: image.littleEndian,
    alpha: extraKind === 1 ? 'premultiplied' : extraKind === 2 ? 'straight' : 'none',
    nodata,
    whiteIsZero: photometric === 0,
    colorMap,
  };
  return { ...base, layout };
}

/** geotiff's decoder parameters for one IFD (what its `getDecoderParameters` gathers, not exported). */
async function decoderParameters(image: GeoTIFFImage, compression: number): Promise<Record<string, unknown>> {
  const ifd = image.fileDirectory;
  const parameters: Record<string, unknown> = {
    tileWidth: image.getTileWidth(),
    tileHeight: image.getTileHeight(),
    planarConfiguration: await ifd.loadValue('PlanarConfiguration'),
    bitsPerSample: await ifd.loadValue('BitsPerSample'),
    predictor: (await ifd.loadValue('Predictor')) || 1,
  };
  if (compression === JPEG) parameters.JPEGTables = await ifd.loadValue('JPEGTables');
  if (compression === 34887) parameters.LercParameters = await ifd.loadValue('LercParameters');
  return parameters;
}

/** The tile's bytes as a whole `ArrayBuffer` of their own (decoders read, and a pool transfers, all of it). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  if (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  ) {
    return bytes.buffer;
  }
  return bytes.slice().buffer;
}

function disposedError(): TileSourceError {
  return new TileSourceError('source-disposed', 'the GeoTIFF pyramid was disposed', false);
}
