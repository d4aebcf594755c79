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
import { MemoryRangeReader, PrefixedRangeReader, type RangeReader } from '../io/range-reader';
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
  readonly reader: RangeReader;
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
  readonly width: number;
  readonly height: number;
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
  /** The file's checked metadata. */
  readonly layout: Ktx2Layout;
  /** Bytes of the file, from the server's `Content-Range` (or the bytes given). */
  readonly fileBytes: number;
  /** Bytes read to open the file (its metadata; the whole file when the server ignored Range). */
  readonly openBytes: number;
  private readonly batcher: LevelRangeBatcher;

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
    this.layout = opened.layout;
    this.width = opened.layout.width;
    this.height = opened.layout.height;
    this.mipLevelCount = opened.layout.levelCount;
    this.format = opened.layout.format;
    this.hasAlpha = opened.layout.hasAlpha;
    if (opened.layout.basisLz !== null) this.basisLz = opened.layout.basisLz;
    this.fileBytes = opened.reader.length ?? 0;
    this.openBytes = openBytes ?? this.fileBytes;
    this.batcher = new LevelRangeBatcher(opened.reader);
  }

  /** Level requests sent since opening (one per chain of adjacent levels). */
  get levelRequestCount(): number {
    return this.batcher.requestCount;
  }

  /** Level bytes read since opening (from memory too, for a file given whole or downloaded whole). */
  get levelBytesRead(): number {
    return this.batcher.bytesRead;
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
    return Ktx2Source.openUrl(new HttpRangeReader(source, { client }), options);
  }

  /** @deprecated Use {@link open}, which takes a URL. */
  static fromUrl(url: string, options: Ktx2UrlOptions = {}): Promise<Ktx2Source> {
    warnDeprecated('Ktx2Source.fromUrl', 'Ktx2Source.open(url)');
    return Ktx2Source.openUrl(new HttpRangeReader(url, options), options);
  }

  private static async openUrl(
    reader: HttpRangeReader,
    options: { signal?: AbortSignal; warn?: (message: string) => void },
  ): Promise<Ktx2Source> {
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
      return new Ktx2Source(opened.bytes);
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
    return new Ktx2Source({ reader: new PrefixedRangeReader(reader, prefix), layout }, prefix.length);
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
    const stored = await this.batcher.read(offset, offset + layout.levelLengths[level], signal);
    return inflateKtx2Level(layout.supercompression, stored, layout.levelBytes[level]);
  }
}

function prefixOf(bytes: Uint8Array): number {
  return bytes.length < KTX2_HEADER_BYTES ? bytes.length : ktx2PrefixBytes(bytes);
}
