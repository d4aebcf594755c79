/**
 * What the sources of one application share: one network client (so the per-host cap, the Range
 * cache and the retry policy hold across every source, as a browser's own connection limit does)
 * and one pool of decode workers. `TesseraRuntime` (`three/tessera-runtime.ts`) is one; a source
 * given none leases the process-wide default below, which every such source and every runtime
 * built without a client of its own share, and whose workers stop when its last user lets go.
 */

import { warnDeprecated } from '../../core/deprecation';
import { TileSourceError } from '../../core/errors';
import { createDefaultImageDecoder, createDefaultTileDecoder } from './default-tile-decoder';
import { HttpClient, type HttpClientOptions } from './http/http-client';
import type { ImageDecoder, TileDecoder } from './tile-decoder';
import { WorkerDecoderPool } from './worker/worker-decoder-pool';

/** The shared I/O of a set of sources: give one to every source so they share it. */
export interface SourceRuntime {
  /** The network client every source reads through: one per-host cap, one Range cache. */
  readonly http: HttpClient;
  /** Decodes images and archive tiles: one pool of decode workers (started at first use). */
  readonly decoder: TileDecoder & ImageDecoder;
}

/** A source's hold on a {@link SourceRuntime}: the given one, or a lease of the default. */
export interface SourceRuntimeLease {
  readonly runtime: SourceRuntime;
  /** Lets go of the default (the workers stop with its last user); nothing for a given runtime. */
  release(): void;
}

/** The process-wide default: created at first lease, its workers stopped at the last release. */
class DefaultSourceRuntime implements SourceRuntime {
  readonly http = defaultHttpClient();
  users = 0;
  private decoderPool: (TileDecoder & ImageDecoder) | null = null;
  private stopped = false;

  /** @throws TileSourceError('source-disposed') once its last user let go (a late load of a disposed source). */
  get decoder(): TileDecoder & ImageDecoder {
    if (this.stopped) throw new TileSourceError('source-disposed', 'the source was disposed', false);
    this.decoderPool ??= createSharedDecoder();
    return this.decoderPool;
  }

  stop(): void {
    this.stopped = true;
    this.decoderPool?.dispose?.();
    this.decoderPool = null;
    this.http.rangeCache?.clear();
  }
}

let defaultRuntime: DefaultSourceRuntime | null = null;
let defaultClient: HttpClient | null = null;

/**
 * The process-wide default network client (6 requests per host, 3 retries, a 32 MiB Range cache),
 * which every source and runtime given no client of its own sends through.
 */
export function defaultHttpClient(): HttpClient {
  defaultClient ??= new HttpClient();
  return defaultClient;
}

/**
 * `runtime` itself (nothing to release), or a lease of the process-wide default, which the caller
 * must {@link SourceRuntimeLease.release} once (when it is disposed).
 */
export function leaseSourceRuntime(runtime?: SourceRuntime): SourceRuntimeLease {
  if (runtime !== undefined) return { runtime, release: () => {} };
  defaultRuntime ??= new DefaultSourceRuntime();
  const leased = defaultRuntime;
  leased.users++;
  let released = false;
  return {
    runtime: leased,
    release: () => {
      if (released) return;
      released = true;
      if (--leased.users > 0) return;
      leased.stop();
      if (defaultRuntime === leased) defaultRuntime = null;
    },
  };
}

/** The platform's default decoders as one: the decode worker pool in browsers, inline codecs elsewhere. */
function createSharedDecoder(): TileDecoder & ImageDecoder {
  const tiles = createDefaultTileDecoder();
  if (tiles instanceof WorkerDecoderPool) return tiles;
  const images = createDefaultImageDecoder();
  return {
    decode: (encoding, bytes, tileSize, signal) => tiles.decode(encoding, bytes, tileSize, signal),
    decodeImage: (bytes, maxTexels, signal) => images.decodeImage(bytes, maxTexels, signal),
  };
}

/**
 * How a network source reads and decodes: options every such source takes.
 *
 * Ownership, the same for every source: a runtime, client, decoder or worker pool given in the
 * options is the caller's, shared as the caller likes, and the source's `dispose()` never disposes
 * it (dispose it after the sources using it); what the source made or leased for itself (its
 * lease of the default runtime, a geotiff pool of its own) it lets go of in `dispose()`.
 */
export interface SourceIoOptions {
  /**
   * The runtime (a `TesseraRuntime`) whose network client and decode workers this source shares;
   * the caller's, never disposed by the source. Default: the process-wide default ones, which
   * every source and runtime given no client share.
   */
  runtime?: SourceRuntime;
  /**
   * A network client for this source instead of the runtime's (its own per-host cap and retry
   * policy); the caller's. Options instead of a client are deprecated: give `new HttpClient(options)`.
   */
  http?: HttpClient | HttpClientOptions;
  /**
   * A network client for this source.
   * @deprecated Use {@link http} (the same).
   */
  client?: HttpClient;
}

/** A source's client and decoder, and what it must let go of when disposed. */
export interface SourceIo {
  readonly http: HttpClient;
  /** The decoder given, else the runtime's (started at first use). */
  readonly decoder: TileDecoder & ImageDecoder;
  /** Lets go of the default runtime's lease (a given decoder stays running). Idempotent. */
  release(): void;
}

/**
 * The client and decoder of a source from its options: `decoder` if given, else the runtime's;
 * `http`, else the runtime's client. What was given stays the caller's ({@link SourceIoOptions}):
 * {@link SourceIo.release} lets go of the default runtime's lease and never disposes it.
 */
export function sourceIo(options: SourceIoOptions, decoder?: TileDecoder | ImageDecoder): SourceIo {
  if (options.client !== undefined) warnDeprecated('the client option of a source', 'http');
  const given = options.http ?? options.client;
  let http: HttpClient | undefined;
  if (given instanceof HttpClient) http = given;
  else if (given !== undefined) {
    warnDeprecated('HTTP client options as a source option', 'http: new HttpClient(options)');
    http = new HttpClient(given);
  }
  const lease = leaseSourceRuntime(options.runtime);
  let released = false;
  return {
    http: http ?? lease.runtime.http,
    get decoder() {
      return (decoder as (TileDecoder & ImageDecoder) | undefined) ?? lease.runtime.decoder;
    },
    release() {
      if (released) return;
      released = true;
      lease.release();
    },
  };
}
