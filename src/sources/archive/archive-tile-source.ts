/**
 * A {@link TileSource} reading a Tessera archive through a {@link RangeReader}: the header and
 * index are read once at {@link ArchiveTileSource.open}; tiles requested in the same scheduling
 * round (one microtask turn) are sorted by offset and adjacent ranges merged into one request.
 */

import { warnDeprecated } from '../../core/deprecation';
import { isAbortError, TileSourceError } from '../../core/errors';
import type {
  TileData,
  TileEncoding,
  TileSource,
  TileSourceInfo,
  TileSourceRequestCounters,
} from '../../core/vt/tile-source';
import type { createDefaultTileDecoder } from '../io/default-tile-decoder';
import { HttpClient } from '../io/http/http-client';
import { HttpRangeReader, type HttpRangeReaderOptions } from '../io/http-range-reader';
import { isUastcEncoding } from '../io/payload-encoding';
import type { RangeReader } from '../io/range-reader';
import { type SourceIo, type SourceIoOptions, sourceIo } from '../io/source-runtime';
import type { TileDecoder } from '../io/tile-decoder';
import {
  type ArchiveHeader,
  type ArchiveLayer,
  FIXED_HEADER_BYTES,
  layoutHasPage,
  type MipLayout,
  mipLayout,
} from './archive-format';
import { type ArchiveIndex, parseArchiveIndex, parseArchivePrefix } from './archive-header-codec';
import { CompressedTileCache } from './compressed-tile-cache';

/** Options of {@link ArchiveTileSource.open}. */
export interface ArchiveTileSourceOptions extends SourceIoOptions {
  /**
   * Decoder of the tile payloads. A decoder given is the caller's, as for every source
   * ({@link SourceIoOptions}): `dispose()` leaves it running, so one decoder may serve several
   * sources; dispose it after them. Default: the runtime's decode workers (every encoding the
   * baker writes, with the browser's codecs in a pool of Web Workers where `Worker` exists, inline
   * with the Node codecs otherwise; see {@link createDefaultTileDecoder}).
   */
  decoder?: TileDecoder;
  /** Largest tile side accepted, texels; larger archives are refused with `oversized`. Default 1024. */
  maxTileSize?: number;
  /** Largest header + index accepted, bytes. Default 256 MiB. */
  maxIndexBytes?: number;
  /** Largest payload of one tile layer, bytes. Default 2 x tileSize² x 4 + 64 KiB. */
  maxPayloadBytes?: number;
  /** Unrequested bytes allowed between two ranges merged into one request. Default 4096. */
  coalesceGapBytes?: number;
  /** Largest merged request, bytes. Default 4 MiB. */
  maxRequestBytes?: number;
  /** Budget of the compressed-bytes cache, bytes; 0 disables it. Default 0. */
  cacheBytes?: number;
  /** Bytes read by the first request (header, and the whole index when it fits). Default 64 KiB. */
  initialReadBytes?: number;
}

interface PendingTile {
  page: number;
  signal: AbortSignal;
  resolve: (data: TileData) => void;
  reject: (error: unknown) => void;
  payloads: (Uint8Array | undefined)[];
  missing: number;
  settled: boolean;
  onAbort: () => void;
}

interface LayerRange {
  tile: PendingTile;
  layer: number;
  start: number;
  end: number;
}

/** Tiles served from an archive. */
export class ArchiveTileSource implements TileSource {
  /** What the archive holds: pages, tile size and border, mips and layers (from its header). */
  readonly info: TileSourceInfo;
  /** Fetches issued for tiles (after coalescing), for statistics and tests. */
  requestCount = 0;
  /** The optional compressed-bytes cache. */
  readonly cache: CompressedTileCache | undefined;
  private readonly layout: MipLayout;
  private pending: PendingTile[] = [];
  /** `encoding code` pairs already reported on the console. */
  private readonly warnedDecodeFailures = new Set<string>();
  private flushScheduled = false;
  private disposed = false;

  private constructor(
    /** The archive's header as stored (format version, page grid, layers and their encodings). */
    readonly header: ArchiveHeader,
    private readonly index: ArchiveIndex,
    private readonly reader: RangeReader,
    private readonly io: SourceIo,
    private readonly options: ArchiveTileSourceOptions,
  ) {
    this.layout = mipLayout(header.widthPages, header.heightPages, header.mipCount);
    this.info = {
      widthPages: header.widthPages,
      heightPages: header.heightPages,
      tileSize: header.tileSize,
      border: header.border,
      layers: header.layers.map((l) => ({
        name: l.name,
        format: tileFormatOf(l),
        usage: l.usage ?? 'color',
        ...(l.normalChannels === undefined ? {} : { normalChannels: l.normalChannels }),
      })),
      contentWidth: header.contentWidth,
      contentHeight: header.contentHeight,
    };
    const cacheBytes = options.cacheBytes ?? 0;
    this.cache = cacheBytes > 0 ? new CompressedTileCache(cacheBytes) : undefined;
  }

  /** The HTTP client's request counts when the archive is read over HTTP (see {@link TileSource.requestCounters}). */
  get requestCounters(): TileSourceRequestCounters | undefined {
    return this.reader instanceof HttpRangeReader ? this.reader.client.counters : undefined;
  }

  /** Mip levels stored in the archive. */
  get mipCount(): number {
    return this.header.mipCount;
  }

  /**
   * Opens an archive by URL, with client options instead of a client.
   * @deprecated Use {@link open}, which takes a URL and `{ http }`.
   */
  static openUrl(
    url: string,
    options: Omit<ArchiveTileSourceOptions, 'http'> & { http?: HttpClient | HttpRangeReaderOptions } = {},
    signal?: AbortSignal,
  ): Promise<ArchiveTileSource> {
    warnDeprecated('ArchiveTileSource.openUrl', 'ArchiveTileSource.open(url)');
    const { http } = options;
    const client = http instanceof HttpClient ? http : http?.client;
    return ArchiveTileSource.open(url, { ...options, http: client ?? http }, signal);
  }

  /**
   * Opens the archive at a URL, over HTTP Range requests through the runtime's client (its retries,
   * timeouts and per-host cap; see {@link HttpRangeReader}), or from any {@link RangeReader}; reads
   * and checks the header and index.
   * @throws TileSourceError for a bad archive (`truncated`, `corrupt`, `oversized`, ...) or a failed
   *   read (`network`, `http-status`, `timeout`), after the client's retries.
   */
  static async open(
    source: string | RangeReader,
    options: ArchiveTileSourceOptions = {},
    signal: AbortSignal = new AbortController().signal,
  ): Promise<ArchiveTileSource> {
    const io = sourceIo(options, options.decoder);
    try {
      const reader = typeof source === 'string' ? new HttpRangeReader(source, { client: io.http }) : source;
      return await ArchiveTileSource.read(reader, io, options, signal);
    } catch (error) {
      io.release();
      throw error;
    }
  }

  private static async read(
    reader: RangeReader,
    io: SourceIo,
    options: ArchiveTileSourceOptions,
    signal: AbortSignal,
  ): Promise<ArchiveTileSource> {
    const first = options.initialReadBytes ?? 65536;
    let head: Uint8Array;
    try {
      head = reader.readAtMost
        ? await reader.readAtMost(0, first, signal)
        : await reader.read(0, first, signal);
    } catch (error) {
      // A file shorter than the first read: retry with exactly what it holds.
      if (!(error instanceof TileSourceError) || error.code !== 'truncated' || reader.length === undefined) {
        throw error;
      }
      if (reader.length < FIXED_HEADER_BYTES) {
        throw new TileSourceError('truncated', `archive is only ${reader.length} bytes`, false);
      }
      head = await reader.read(0, reader.length, signal);
    }
    const prefix = parseArchivePrefix(head);
    const { header } = prefix;
    if (header.tileSize > (options.maxTileSize ?? 1024)) {
      throw new TileSourceError('oversized', `tile size ${header.tileSize} past the configured limit`, false);
    }
    if (prefix.dataStart > (options.maxIndexBytes ?? 256 * 2 ** 20)) {
      throw new TileSourceError(
        'oversized',
        `index of ${prefix.dataStart} bytes past the configured limit`,
        false,
      );
    }
    if (reader.length !== undefined && reader.length !== prefix.fileLength) {
      throw new TileSourceError(
        reader.length < prefix.fileLength ? 'truncated' : 'corrupt',
        `archive is ${reader.length} bytes, its header says ${prefix.fileLength}`,
        false,
      );
    }
    let prefixBytes = head;
    if (head.length < prefix.dataStart) {
      const rest = await reader.read(head.length, prefix.dataStart, signal);
      prefixBytes = new Uint8Array(prefix.dataStart);
      prefixBytes.set(head, 0);
      prefixBytes.set(rest, head.length);
    }
    const maxPayload = options.maxPayloadBytes ?? 2 * header.tileSize * header.tileSize * 4 + 65536;
    const index = parseArchiveIndex(prefixBytes, prefix, maxPayload);
    return new ArchiveTileSource(header, index, reader, io, options);
  }

  /**
   * Reads and decodes page (`x`, `y`) at `mip`, every layer: reads of nearby tiles asked for in
   * the same task are merged into one request (`coalesceGapBytes`, `maxRequestBytes`).
   * @throws (rejects) TileSourceError `bad-index` (no such page), `source-disposed`, the reader's
   *   `network`, `http-status`, `timeout`, `truncated`, the decoder's `decode-failed`,
   *   `wrong-size`; `signal.reason` once it aborts.
   */
  load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    if (this.disposed) {
      return Promise.reject(new TileSourceError('source-disposed', 'source disposed', false));
    }
    if (signal.aborted) return Promise.reject(signal.reason);
    const { layout } = this;
    if (!layoutHasPage(layout, mip, x, y)) {
      return Promise.reject(new TileSourceError('bad-index', `no page (${x}, ${y}) at mip ${mip}`, false));
    }
    return new Promise<TileData>((resolve, reject) => {
      const layers = this.header.layers.length;
      const tile: PendingTile = {
        page: layout.firstPage[mip] + y * layout.pagesWide[mip] + x,
        signal,
        resolve,
        reject,
        payloads: new Array(layers),
        missing: layers,
        settled: false,
        onAbort: () => this.settle(tile, signal.reason),
      };
      signal.addEventListener('abort', tile.onAbort, { once: true });
      this.pending.push(tile);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  /**
   * Fails later loads with `source-disposed`, drops the cache and lets go of the default runtime's
   * lease; a decoder, client or runtime given in the options stays running (the caller's).
   */
  dispose(): void {
    this.disposed = true;
    this.cache?.clear();
    this.io.release();
  }

  private settle(tile: PendingTile, error: unknown, data?: TileData): void {
    if (tile.settled) return;
    tile.settled = true;
    tile.signal.removeEventListener('abort', tile.onAbort);
    if (data !== undefined) tile.resolve(data);
    else {
      tile.reject(error);
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const tiles = this.pending;
    this.pending = [];
    const layers = this.header.layers.length;
    const ranges: LayerRange[] = [];
    for (const tile of tiles) {
      if (tile.settled) continue;
      for (let layer = 0; layer < layers; layer++) {
        const entry = tile.page * layers + layer;
        const cached = this.cache?.get(entry);
        if (cached !== undefined) {
          tile.payloads[layer] = cached;
          tile.missing--;
          continue;
        }
        const start = this.index.offsets[entry];
        ranges.push({ tile, layer, start, end: start + this.index.lengths[entry] });
      }
      if (tile.missing === 0) void this.decodeTile(tile);
    }
    ranges.sort((a, b) => a.start - b.start);
    const gap = this.options.coalesceGapBytes ?? 4096;
    const maxBytes = this.options.maxRequestBytes ?? 4 * 2 ** 20;
    let groupStart = 0;
    for (let i = 1; i <= ranges.length; i++) {
      const first = ranges[groupStart];
      const next = ranges[i];
      const groupEnd = ranges[i - 1].end;
      if (next !== undefined && next.start - groupEnd <= gap && next.end - first.start <= maxBytes) continue;
      void this.fetchGroup(ranges.slice(groupStart, i));
      groupStart = i;
    }
  }

  private async fetchGroup(group: LayerRange[]): Promise<void> {
    const start = group[0].start;
    let end = start;
    for (const r of group) end = Math.max(end, r.end);
    // The request is abandoned only when every tile it serves has been aborted.
    const controller = new AbortController();
    const members = new Set(group.map((r) => r.tile));
    let live = members.size;
    const onMemberAbort = () => {
      if (--live === 0) controller.abort();
    };
    for (const tile of members) {
      if (tile.signal.aborted) live--;
      else {
        tile.signal.addEventListener('abort', onMemberAbort, { once: true });
      }
    }
    if (live === 0) return;
    this.requestCount++;
    let bytes: Uint8Array;
    try {
      bytes = await this.reader.read(start, end, controller.signal);
    } catch (error) {
      for (const tile of members) this.settle(tile, isAbortError(error) ? tile.signal.reason : error);
      return;
    } finally {
      for (const tile of members) tile.signal.removeEventListener('abort', onMemberAbort);
    }
    const layers = this.header.layers.length;
    for (const r of group) {
      // Copies so each payload owns its buffer: it can be cached and transferred to a worker.
      const payload = bytes.slice(r.start - start, r.end - start);
      this.cache?.set(r.tile.page * layers + r.layer, payload);
      r.tile.payloads[r.layer] = payload;
      if (--r.tile.missing === 0 && !r.tile.settled) void this.decodeTile(r.tile);
    }
  }

  private async decodeTile(tile: PendingTile): Promise<void> {
    const { tileSize, layers } = this.header;
    try {
      const decoded = await Promise.all(
        layers.map((layer, i) => {
          const payload = tile.payloads[i]!;
          // A cached payload must survive transfer to a worker: hand over a copy.
          const bytes = this.cache ? payload.slice() : payload;
          return this.io.decoder
            .decode(layer.encoding, bytes, tileSize, tile.signal)
            .catch((error: unknown) => {
              this.warnDecodeFailure(layer.encoding, error);
              throw error;
            });
        }),
      );
      this.settle(tile, undefined, { layers: decoded });
    } catch (error) {
      this.settle(tile, error);
    }
  }

  /**
   * The rejection reaches the caller as a typed error (and the VT system's `error` event), which
   * an application may not listen to: one console line per encoding and cause says why tiles
   * are missing without flooding the console once per tile. A warning, not an error: the
   * source keeps serving every tile it can decode.
   */
  private warnDecodeFailure(encoding: string, error: unknown): void {
    if (isAbortError(error) || this.disposed) return;
    const code = error instanceof TileSourceError ? error.code : 'decode-failed';
    const key = `${encoding} ${code}`;
    if (this.warnedDecodeFailures.has(key)) return;
    this.warnedDecodeFailures.add(key);
    const message = error instanceof Error ? error.message : String(error);
    console.warn(`tessera: cannot decode ${encoding} tiles (${code}): ${message}; such tiles stay unloaded`);
  }
}

/** The {@link TileEncoding} a layer's tiles arrive in: rgba8, or UASTC blocks for the UASTC encodings. */
function tileFormatOf(layer: ArchiveLayer): TileEncoding {
  const srgb = layer.colorSpace === 'srgb';
  if (isUastcEncoding(layer.encoding)) return srgb ? 'uastc-4x4-srgb' : 'uastc-4x4';
  return srgb ? 'rgba8unorm-srgb' : 'rgba8unorm';
}
