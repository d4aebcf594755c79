import { warnDeprecated } from '../../core/deprecation';
import { TileSourceError } from '../../core/errors';
import type {
  BasisLzGlobalData,
  EncodedPyramidSource,
  Etc1sPyramidFormat,
  StreamedTextureFormat,
  UastcPyramidFormat,
} from '../../core/streaming/mip-pyramid-source';
import type { HttpClient } from '../io/http/http-client';
import { HttpRangeReader, type HttpRangeReaderOptions } from '../io/http-range-reader';
import {
  KnownPrefixRangeReader,
  MemoryRangeReader,
  PrefixedRangeReader,
  type RangeReader,
} from '../io/range-reader';
import { defaultHttpClient, type SourceRuntime } from '../io/source-runtime';
import { KTX2_HEADER_BYTES, type Ktx2Layout, ktx2PrefixBytes, parseKtx2Layout } from './ktx2-layout';
import { inflateKtx2Level } from './ktx2-level-inflater';
import { LevelRangeBatcher } from './level-range-batcher';

/**
 * Bytes asked for by the first request of {@link Ktx2Source.open}: the header, a 13-level index
 * (8192² down to 1²), a DFD and a short key/value section fit; larger metadata takes one more request.
 */
export const KTX2_OPEN_BYTES = 1024;

/** Options of {@link Ktx2Source.open}. */
export interface Ktx2OpenOptions {
  /**
   * The runtime (a `TesseraRuntime`) whose network client reads the file. Default: the
   * process-wide default client, which every source given no runtime shares.
   */
  runtime?: Pick<SourceRuntime, 'http'>;
  /** A network client for this file instead of the runtime's. */
  http?: HttpClient;
  /** Aborts the opening requests. */
  signal?: AbortSignal;
  /** Where the one-time "server ignores Range" warning goes. Default `console.warn`. */
  warn?: (message: string) => void;
  /**
   * The file's first bytes, already held (a glTF's `TESSERA_texture_prefix`), and its length:
   * opening a URL then sends no request, and levels within those bytes are never requested. The
   * first level read checks the file against them (its length, and the last
   * `PREFIX_CHECK_BYTES` of the held bytes); should they differ, or should the held bytes not be
   * a KTX2 file's whole metadata, the file's own metadata is read instead (see
   * {@link onPrefixMismatch}). Ignored for a {@link RangeReader} source.
   */
  prefix?: Ktx2HeldPrefix;
  /**
   * Told when {@link prefix} does not match the file, with a `TileSourceError('prefix-mismatch')`:
   * the file is then read through its own metadata (nothing is lost when it has the same size and
   * format as the prefix said; else its levels fail with that error). Default: nobody is told.
   */
  onPrefixMismatch?: (error: TileSourceError) => void;
}

/** The first bytes of a KTX2 file held before opening it, and the file's length. */
export interface Ktx2HeldPrefix {
  /** Bytes [0, `bytes.length`) of the file: at least its metadata (header to global data). */
  readonly bytes: Uint8Array;
  /** Bytes of the whole file. */
  readonly fileBytes: number;
}

/**
 * Options of the deprecated {@link Ktx2Source.fromUrl}.
 * @deprecated Use {@link Ktx2OpenOptions}.
 */
export interface Ktx2UrlOptions extends HttpRangeReaderOptions {
  /** Aborts the opening requests. */
  signal?: AbortSignal;
  /** Where the one-time "server ignores Range" warning goes. Default `console.warn`. */
  warn?: (message: string) => void;
}

/** An opened KTX2 file: where its bytes come from and its checked metadata. */
export interface Ktx2Opened {
  /** Where the file's bytes are read from (levels by Range). */
  readonly reader: RangeReader;
  /** The file's checked metadata: size, format, supercompression and each level's bytes. */
  readonly layout: Ktx2Layout;
}

let warnedRangeIgnored = false;

/**
 * A mip pyramid read from a KTX2 file level by level: {@link open} reads only the metadata
 * (header, level index, DFD, key/value and global data) with one small HTTP Range request, then
 * each level with its own Range request when the streamer asks for it (the levels of one chain
 * in one request), so a view needing only coarse levels never downloads the fine ones.
 *
 * Payloads: uncompressed `R8G8B8A8` and the block formats WebGPU samples as stored (BC1/3/4/5/7,
 * ETC2/EAC, ASTC 4x4, see `ktx2-formats.ts`), and Basis Universal UASTC (`format` `uastc-4x4(-srgb)`:
 * levels are UASTC blocks, which `TextureStreamingSystem.add` transcodes in its workers
 * to the device's best block format), without supercompression or with zstd / zlib
 * supercompression, and Basis Universal ETC1S (BasisLZ: the codebooks come with the metadata, each
 * level's slices by Range, transcoded the same way). Cube maps, arrays and 3D textures are refused with
 * `TileSourceError('unsupported')`. Rows are uploaded as stored (rows from v = 0),
 * as three's KTX2Loader does.
 */
export class Ktx2Source implements EncodedPyramidSource {
  /** Width of level 0, texels. */
  readonly width: number;
  /** Height of level 0, texels. */
  readonly height: number;
  /** Levels stored in the file (level 0 the finest). */
  readonly mipLevelCount: number;
  /**
   * As stored, or `uastc-4x4(-srgb)` / `etc1s(-srgb)`: UASTC blocks or ETC1S slices a
   * `TextureStreamingSystem` transcodes.
   */
  readonly format: StreamedTextureFormat | UastcPyramidFormat | Etc1sPyramidFormat;
  /** UASTC / ETC1S: whether the payload carries alpha (from the DFD). */
  readonly hasAlpha: boolean;
  /** ETC1S: the BasisLZ codebooks (read with the metadata) and each level's slices. */
  readonly basisLz?: BasisLzGlobalData;
  /** Bytes read to open the file (its metadata; the whole file when the server ignored Range; 0 from a held prefix). */
  readonly openBytes: number;
  private opened: Ktx2Opened;
  private batcher: LevelRangeBatcher;
  /** Requests and bytes of the level readers replaced by a fallback. */
  private earlierRequests = 0;
  private earlierBytes = 0;
  /** Opens the file by its own metadata after a held prefix did not match it; null without a prefix. */
  private reopen: ((mismatch: TileSourceError) => Promise<Ktx2Opened>) | null = null;
  private reopening: Promise<void> | null = null;

  /**
   * @param input the whole KTX2 file in memory, or a file opened by {@link open}.
   * @param openBytes bytes read to open it (default: the whole file).
   * @throws TileSourceError as `parseKtx2Layout` (a typed code for every bad or unsupported file).
   */
  constructor(input: Uint8Array | Ktx2Opened, openBytes?: number) {
    const opened =
      input instanceof Uint8Array
        ? {
            reader: new MemoryRangeReader(input),
            layout: parseKtx2Layout(input.subarray(0, Math.min(input.length, prefixOf(input))), input.length),
          }
        : input;
    this.opened = opened;
    this.width = opened.layout.width;
    this.height = opened.layout.height;
    this.mipLevelCount = opened.layout.levelCount;
    this.format = opened.layout.format;
    this.hasAlpha = opened.layout.hasAlpha;
    if (opened.layout.basisLz !== null) this.basisLz = opened.layout.basisLz;
    this.openBytes = openBytes ?? opened.reader.length ?? 0;
    this.batcher = new LevelRangeBatcher(opened.reader);
  }

  /** The file's checked metadata (the file's own, once a held prefix turned out not to match it). */
  get layout(): Ktx2Layout {
    return this.opened.layout;
  }

  /** Bytes of the file, from the server's `Content-Range` (or the bytes given, or a held prefix's word). */
  get fileBytes(): number {
    return this.opened.reader.length ?? 0;
  }

  /** Level requests sent since opening (one per chain of adjacent levels). */
  get levelRequestCount(): number {
    return this.earlierRequests + this.batcher.requestCount;
  }

  /** Level bytes read since opening (from memory too, for a file given whole or downloaded whole). */
  get levelBytesRead(): number {
    return this.earlierBytes + this.batcher.bytesRead;
  }

  /**
   * Opens a KTX2 file over HTTP: one Range request for its metadata (a second only when the
   * metadata is longer than {@link KTX2_OPEN_BYTES}). A server that ignores Range (200 with the
   * whole file) is read from that one answer instead, with a warning once per page. Every request,
   * the level reads' included, goes through the client's retry policy (transient failures, 5xx,
   * timeouts, cut bodies and mismatched Range answers are retried with backoff).
   * A {@link RangeReader} instead of a URL (files, memory, custom transports) is read the same way.
   * @throws TileSourceError('network' | 'http-status' | 'timeout' | 'corrupt' | ...) with
   *   `retryable` set, after the client's last attempt; or as `parseKtx2Layout`.
   */
  static async open(
    source: string | RangeReader,
    options: Ktx2OpenOptions | AbortSignal = {},
  ): Promise<Ktx2Source> {
    if (options instanceof AbortSignal) options = { signal: options };
    if (typeof source !== 'string') {
      return Ktx2Source.openReader(source, options.signal ?? new AbortController().signal);
    }
    const client = options.http ?? options.runtime?.http ?? defaultHttpClient();
    const reader = new HttpRangeReader(source, { client });
    if (options.prefix !== undefined) {
      const held = Ktx2Source.openHeld(reader, options.prefix, options);
      if (held !== null) return held;
    }
    return Ktx2Source.openUrl(reader, options);
  }

  /**
   * A source over a held prefix (no request), or null, after telling `onPrefixMismatch`, when the
   * prefix is not a KTX2 file's whole metadata or contradicts the file's stated length.
   */
  private static openHeld(
    reader: HttpRangeReader,
    prefix: Ktx2HeldPrefix,
    options: Ktx2OpenOptions,
  ): Ktx2Source | null {
    let layout: Ktx2Layout;
    try {
      const metadataBytes = ktx2PrefixBytes(prefix.bytes);
      if (metadataBytes > prefix.bytes.length) {
        throw new TileSourceError(
          'truncated',
          `${prefix.bytes.length} bytes held, the metadata takes ${metadataBytes}`,
          false,
        );
      }
      if (!(Number.isSafeInteger(prefix.fileBytes) && prefix.fileBytes >= prefix.bytes.length)) {
        throw new TileSourceError(
          'corrupt',
          `a file of ${prefix.fileBytes} bytes holding ${prefix.bytes.length}`,
          false,
        );
      }
      layout = parseKtx2Layout(prefix.bytes.subarray(0, metadataBytes), prefix.fileBytes);
    } catch (error) {
      options.onPrefixMismatch?.(
        new TileSourceError(
          'prefix-mismatch',
          `${reader.url}: the prefix held is not this KTX2 file's start (${(error as Error).message}); reading the file's own`,
          false,
          { cause: error },
        ),
      );
      return null;
    }
    const source = new Ktx2Source(
      { reader: new KnownPrefixRangeReader(reader, prefix.bytes, prefix.fileBytes), layout },
      0,
    );
    let reported = false;
    source.reopen = async (mismatch) => {
      if (!reported && mismatch.code === 'prefix-mismatch') {
        reported = true;
        options.onPrefixMismatch?.(
          new TileSourceError(
            'prefix-mismatch',
            `${reader.url}: ${mismatch.message}; reading the file's own metadata`,
            false,
            { cause: mismatch },
          ),
        );
      }
      // Opened as any file (a server ignoring Range then gives the whole file, with the warning).
      const fresh = new HttpRangeReader(reader.url, { client: reader.client });
      return (await Ktx2Source.openOverHttp(fresh, options)).opened;
    };
    return source;
  }

  /**
   * Opens a KTX2 file by URL, with client options instead of a client.
   * @deprecated Use {@link open}, which takes a URL and `{ http }`.
   */
  static fromUrl(url: string, options: Ktx2UrlOptions = {}): Promise<Ktx2Source> {
    warnDeprecated('Ktx2Source.fromUrl', 'Ktx2Source.open(url)');
    return Ktx2Source.openUrl(new HttpRangeReader(url, options), options);
  }

  private static async openUrl(
    reader: HttpRangeReader,
    options: { signal?: AbortSignal; warn?: (message: string) => void },
  ): Promise<Ktx2Source> {
    const { opened, openBytes } = await Ktx2Source.openOverHttp(reader, options);
    return new Ktx2Source(opened, openBytes);
  }

  /** The file's metadata over HTTP, and the bytes read for it (see {@link open}). */
  private static async openOverHttp(
    reader: HttpRangeReader,
    options: { signal?: AbortSignal; warn?: (message: string) => void },
  ): Promise<{ opened: Ktx2Opened; openBytes: number }> {
    const url = reader.url;
    const signal = options.signal ?? new AbortController().signal;
    // A server ignoring Range answers 200 with the whole file: read from that one answer, not a
    // refused download plus another (level reads after a Range-answered open retry a 200 instead).
    const opened = await reader.readAtMostOrWhole(0, KTX2_OPEN_BYTES, signal);
    if (opened.whole) {
      if (!warnedRangeIgnored) {
        warnedRangeIgnored = true;
        (options.warn ?? console.warn)(
          `tessera: ${url}: the server ignores HTTP Range; KTX2 files are downloaded whole (warned once).`,
        );
      }
      const whole = opened.bytes;
      return {
        opened: {
          reader: new MemoryRangeReader(whole),
          layout: parseKtx2Layout(whole.subarray(0, Math.min(whole.length, prefixOf(whole))), whole.length),
        },
        openBytes: whole.length,
      };
    }
    const head = opened.bytes;
    const prefixBytes = ktx2PrefixBytes(head);
    let prefix = head;
    if (prefixBytes > head.length && head.length === KTX2_OPEN_BYTES) {
      prefix = new Uint8Array(prefixBytes);
      prefix.set(head);
      prefix.set(await reader.read(head.length, prefixBytes, signal), head.length);
    }
    if (reader.length === undefined) {
      throw new TileSourceError('corrupt', `${url}: no file length in Content-Range`, false);
    }
    const layout = parseKtx2Layout(prefix, reader.length);
    // Levels within the bytes already read (the coarsest, when stored right after the metadata) cost no request.
    return { opened: { reader: new PrefixedRangeReader(reader, prefix), layout }, openBytes: prefix.length };
  }

  private static async openReader(reader: RangeReader, signal: AbortSignal): Promise<Ktx2Source> {
    const head = await (reader.readAtMost ?? reader.read).call(reader, 0, KTX2_OPEN_BYTES, signal);
    const prefixBytes = ktx2PrefixBytes(head);
    const prefix = prefixBytes > head.length ? await reader.read(0, prefixBytes, signal) : head;
    if (reader.length === undefined) {
      throw new TileSourceError('corrupt', 'KTX2 reader has no file length', false);
    }
    return new Ktx2Source({ reader, layout: parseKtx2Layout(prefix, reader.length) }, prefix.length);
  }

  /**
   * The texel bytes of level `level` (read by Range, inflated when supercompressed).
   * @throws TileSourceError('bad-index') for a level the file lacks, or as the reader and
   *   `inflateKtx2Level`; an abort error once `signal` aborts.
   */
  async loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) throw new DOMException('Level load aborted.', 'AbortError');
    const layout = this.layout;
    if (!Number.isInteger(level) || level < 0 || level >= layout.levelCount) {
      throw new TileSourceError('bad-index', `No KTX2 level ${level}.`, false);
    }
    const offset = layout.levelOffsets[level];
    let stored: Uint8Array;
    try {
      stored = await this.batcher.read(offset, offset + layout.levelLengths[level], signal);
    } catch (error) {
      // Opened from a held prefix, the first read is the first word from the server: a file that
      // differs, or a server ignoring Range, is read as if opened without the prefix.
      const fallBack =
        error instanceof TileSourceError &&
        (error.code === 'prefix-mismatch' || error.code === 'range-ignored') &&
        this.reopen !== null;
      if (!fallBack) throw error;
      this.reopening ??= this.fallBack(error);
      await this.reopening;
      return this.loadLevel(level, signal);
    }
    return inflateKtx2Level(layout.supercompression, stored, layout.levelBytes[level]);
  }

  /**
   * After a held prefix turned out not to match the file: read the file's own metadata and its
   * levels by it from now on, when the file has the shape the prefix said, and for ETC1S the same
   * codebooks (levels already loaded from the prefix stand: the budget, the chains and the GPU
   * textures were sized by that shape). Otherwise every level load fails with the mismatch. A
   * failure to read the metadata (the network) is retried by the next level load.
   */
  private async fallBack(mismatch: TileSourceError): Promise<void> {
    // (`mismatch` may also be `range-ignored`: then the file is downloaded whole, and matches.)
    const reopen = this.reopen as (mismatch: TileSourceError) => Promise<Ktx2Opened>;
    let opened: Ktx2Opened;
    try {
      opened = await reopen(mismatch);
    } catch (error) {
      this.reopening = null;
      throw error;
    }
    const was = this.opened.layout;
    const now = opened.layout;
    const sameShape =
      now.width === was.width &&
      now.height === was.height &&
      now.levelCount === was.levelCount &&
      now.format === was.format &&
      now.hasAlpha === was.hasAlpha;
    // ETC1S levels decode with the codebooks read at opening, which a transcoder keeps.
    const sameCodebooks = sameBasisLz(now.basisLz, was.basisLz);
    if (!sameShape || !sameCodebooks) {
      const why = sameShape
        ? 'other ETC1S codebooks than the prefix'
        : `a ${now.width}x${now.height} ${now.format} of ${now.levelCount} levels, the prefix said ${was.width}x${was.height} ${was.format} of ${was.levelCount}`;
      throw new TileSourceError('prefix-mismatch', `${mismatch.message}; the file has ${why}`, false, {
        cause: mismatch,
      });
    }
    this.earlierRequests += this.batcher.requestCount;
    this.earlierBytes += this.batcher.bytesRead;
    this.opened = opened;
    this.batcher = new LevelRangeBatcher(opened.reader);
    this.reopen = null;
  }
}

/** Whether two files' BasisLZ global data (codebooks, tables, slice positions) are the same, or both have none. */
function sameBasisLz(a: BasisLzGlobalData | null, b: BasisLzGlobalData | null): boolean {
  if (a === null || b === null) return a === b;
  const same = (x: ArrayLike<number>, y: ArrayLike<number>) => {
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  };
  return (
    a.endpointCount === b.endpointCount &&
    a.selectorCount === b.selectorCount &&
    a.hasAlphaSlices === b.hasAlphaSlices &&
    same(a.endpoints, b.endpoints) &&
    same(a.selectors, b.selectors) &&
    same(a.tables, b.tables) &&
    same(a.slices, b.slices)
  );
}

function prefixOf(bytes: Uint8Array): number {
  return bytes.length < KTX2_HEADER_BYTES ? bytes.length : ktx2PrefixBytes(bytes);
}
