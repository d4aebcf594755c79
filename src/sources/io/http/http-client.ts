/**
 * HTTP for tile sources: a per-request timeout, retries with exponential backoff and full jitter
 * for transient failures (network errors, timeouts, 5xx, 408, 429, truncated bodies), honouring
 * `Retry-After`, and a cap on requests in flight per host (browsers allow about 6 per HTTP/1.1
 * host; more only queue inside the browser, where an abort cannot reach them cheaply). Every
 * failure is a typed {@link TileSourceError} whose `retryable` says whether it was transient.
 *
 * Range reads ({@link HttpClient.requestRange}) bypass the browser's HTTP cache
 * (`cache: 'no-store'`): through it, Chromium sends concurrent Range requests to one URL one at a
 * time, so a single-file source (tile archive, KTX2, COG, PMTiles) would never have more than one
 * request at the server; it also sometimes answers 416 from a stale entry. The client keeps its
 * own bounded cache of Range answers instead ({@link RangeCache}). Whole-file GETs keep the
 * browser's cache. A 416 to a Range request can still come from the browser rather than the server
 * (seen under injected network faults, where the server never sent one): it is retried once, at
 * once and bypassing the cache, before the caller sees it.
 */

import { TileSourceError } from '../../../core/errors';
import { type RangeAnswer, RangeCache } from './range-cache';

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  /** Retries after the first attempt (0..10). Default 3. */
  retries?: number;
  /** Backoff before retry n is random in [0, min(maxDelayMs, baseDelayMs x 2^n)], ms. Default 100. */
  baseDelayMs?: number;
  /** Longest backoff, ms (also caps `Retry-After`). Default 4000. */
  maxDelayMs?: number;
  /** Time allowed for one request including its body, ms. Default 15000. */
  timeoutMs?: number;
  /** Requests in flight at once per host (scheme, name and port), 1..64. Default 6. */
  maxRequestsPerHost?: number;
  /** Random source in [0, 1) for jitter (tests pass a fixed one). Default `Math.random`. */
  random?: () => number;
  /** Extra request headers (e.g. authorisation). */
  headers?: Record<string, string>;
  /** The fetch to use. Default the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Bound of the client's cache of Range answers ({@link HttpClient.requestRange}), bytes; 0
   * disables it. Shared by every reader sending through this client; a source given no client
   * makes its own, with a bound of its own, so give every source one client to keep one bound
   * (as `TextureStreamingSystem` does with its `http`). Default 32 MiB.
   */
  rangeCacheBytes?: number;
}

/** Default of {@link HttpClientOptions.rangeCacheBytes}: 32 MiB. */
export const DEFAULT_RANGE_CACHE_BYTES = 32 * 2 ** 20;

/** Request counts of an {@link HttpClient}, for statistics and tests. */
export interface HttpClientCounters {
  /** Requests sent, retries included. */
  requests: number;
  /**
   * Retries sent after a transient failure, and after a 416 to a Range request (see
   * {@link HttpClient.request}).
   */
  retries: number;
  /** Requests that ended in a failure (each attempt counts). */
  failures: number;
  /** Range reads answered from the client's Range cache, with no request. */
  cacheHits: number;
}

/** True for the statuses worth a retry: 408, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The typed error for an unexpected HTTP status, carrying the server's `Retry-After` (seconds)
 * when it is transient. Cancels the body.
 */
export async function httpStatusError(url: string, response: Response): Promise<TileSourceError> {
  await response.body?.cancel().catch(() => {});
  const retryable = isRetryableStatus(response.status);
  const error = new TileSourceError('http-status', `${url}: HTTP ${response.status}`, retryable);
  const retryAfter = Number(response.headers.get('retry-after'));
  if (retryable && retryAfter > 0) Object.assign(error, { retryAfterMs: retryAfter * 1000 });
  return error;
}

/** Thrown by an attempt whose Range request was answered 416, to ask for one more with no cache. */
const UNSATISFIABLE_RANGE = Symbol('416 to a Range request');

interface HostQueue {
  active: number;
  waiting: Array<() => void>;
}

/**
 * Sends GET requests under a retry policy and a per-host concurrency cap. Range reads bypass the
 * browser's HTTP cache so that they run in parallel up to the cap, and are cached by the client
 * itself in a byte-bounded LRU ({@link rangeCache}, `rangeCacheBytes`).
 */
export class HttpClient {
  /** Requests sent, retries, failed attempts and Range cache hits so far. */
  readonly counters: HttpClientCounters = { requests: 0, retries: 0, failures: 0, cacheHits: 0 };
  /** The cache of Range answers (undefined when `rangeCacheBytes` is 0). */
  readonly rangeCache: RangeCache | undefined;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly perHost: number;
  private readonly random: () => number;
  private readonly headers: Record<string, string> | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly hosts = new Map<string, HostQueue>();

  constructor(options: HttpClientOptions = {}) {
    this.retries = Math.max(0, Math.min(10, options.retries ?? 3));
    this.baseDelayMs = options.baseDelayMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 4000;
    this.timeoutMs = options.timeoutMs ?? 15000;
    this.perHost = Math.max(1, Math.min(64, options.maxRequestsPerHost ?? 6));
    this.random = options.random ?? Math.random;
    this.headers = options.headers;
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    const cacheBytes = options.rangeCacheBytes ?? DEFAULT_RANGE_CACHE_BYTES;
    this.rangeCache = cacheBytes > 0 ? new RangeCache(cacheBytes) : undefined;
  }

  /**
   * Fetches `url` and reads the answer with `read`, retrying transient failures. `read` gets
   * every response (any status) and either returns the result or throws a `TileSourceError`
   * (retryable or not); network errors and timeouts are retryable. A 416 answering a request with
   * a `Range` header is first retried once, at once, with `cache: 'no-store'` (a browser's cache
   * can answer 416 by itself; counted in `counters.retries`, not against `retries`); only a
   * second 416 reaches `read`.
   * @param headers request headers, added to the client's.
   * @param cache the fetch cache mode (`RequestInit.cache`); default the browser's (`'default'`).
   * @throws TileSourceError after the last attempt; `signal.reason` once `signal` aborts.
   */
  async request<T>(
    url: string,
    signal: AbortSignal,
    read: (response: Response) => Promise<T>,
    headers?: Record<string, string>,
    cache?: RequestCache,
  ): Promise<T> {
    let recheck416 = headers?.Range !== undefined;
    let mode = cache;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) throw signal.reason;
      let retryAfterMs = 0;
      try {
        return await this.attempt(url, signal, read, headers, mode, recheck416);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        this.counters.failures++;
        if (error === UNSATISFIABLE_RANGE) {
          recheck416 = false;
          mode = 'no-store';
          attempt--;
          this.counters.retries++;
          continue;
        }
        if (!(error instanceof TileSourceError) || !error.retryable || attempt >= this.retries) throw error;
        retryAfterMs = (error as TileSourceError & { retryAfterMs?: number }).retryAfterMs ?? 0;
      }
      const backoff = this.random() * Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
      await sleep(Math.min(this.maxDelayMs, Math.max(backoff, retryAfterMs)), signal);
      this.counters.retries++;
    }
  }

  /**
   * Reads bytes [`start`, `end`) of `url`: from the client's {@link rangeCache} when it holds them
   * (a copy, counted in `counters.cacheHits`, no request), else by {@link request} with a `Range`
   * header and `cache: 'no-store'`, so that concurrent reads of one file are not serialized by the
   * browser's cache. `read` checks the answer (any status) and returns its bytes; an answer of
   * exactly `end - start` bytes is cached, a shorter one (the file ends first) is not.
   * @throws as {@link request}.
   */
  async requestRange(
    url: string,
    start: number,
    end: number,
    signal: AbortSignal,
    read: (response: Response) => Promise<RangeAnswer>,
  ): Promise<RangeAnswer> {
    if (signal.aborted) throw signal.reason;
    const cached = this.rangeCache?.get(url, start, end);
    if (cached !== undefined) {
      this.counters.cacheHits++;
      return cached;
    }
    const answer = await this.request(url, signal, read, { Range: `bytes=${start}-${end - 1}` }, 'no-store');
    if (answer.bytes.length === end - start) this.rangeCache?.set(url, start, end, answer);
    return answer;
  }

  /**
   * GETs a whole file: its bytes for 200, `null` for 404, 410 and 204 (a tile that does not
   * exist), a typed error otherwise.
   * @throws TileSourceError `http-status` (other statuses), `network`, `timeout`.
   */
  getBytes(url: string, signal: AbortSignal): Promise<Uint8Array | null> {
    return this.request(url, signal, async (response) => {
      if (response.status === 404 || response.status === 410 || response.status === 204) {
        await response.body?.cancel().catch(() => {});
        return null;
      }
      if (response.status !== 200) throw await httpStatusError(url, response);
      return readBody(url, response);
    });
  }

  /**
   * GETs and parses a JSON document (a IIIF `info.json`, a TileJSON).
   * @throws TileSourceError `http-status`, `network`, `timeout`, `corrupt` (not JSON).
   */
  async getJson(url: string, signal: AbortSignal): Promise<unknown> {
    const text = await this.getText(url, signal);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new TileSourceError('corrupt', `${url}: not JSON`, false, { cause: e });
    }
  }

  /**
   * GETs a text document (a Deep Zoom `.dzi`).
   * @throws TileSourceError `http-status` (404 included), `network`, `timeout`.
   */
  getText(url: string, signal: AbortSignal): Promise<string> {
    return this.request(url, signal, async (response) => {
      if (response.status !== 200) throw await httpStatusError(url, response);
      return new TextDecoder().decode(await readBody(url, response));
    });
  }

  private async attempt<T>(
    url: string,
    signal: AbortSignal,
    read: (response: Response) => Promise<T>,
    headers: Record<string, string> | undefined,
    cache: RequestCache | undefined,
    recheck416: boolean,
  ): Promise<T> {
    const host = hostOf(url);
    await this.acquire(host, signal);
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    this.counters.requests++;
    try {
      const response = await this.fetchFn(url, {
        headers: headers || this.headers ? { ...this.headers, ...headers } : undefined,
        signal: controller.signal,
        ...(cache === undefined ? {} : { cache }),
      });
      if (recheck416 && response.status === 416) {
        await response.body?.cancel().catch(() => {});
        throw UNSATISFIABLE_RANGE;
      }
      return await read(response);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error === UNSATISFIABLE_RANGE) throw error;
      if (timedOut)
        throw new TileSourceError('timeout', `${url}: no answer within ${this.timeoutMs} ms`, true);
      if (error instanceof TileSourceError) throw error;
      throw new TileSourceError('network', `${url}: ${(error as Error).message}`, true, { cause: error });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.release(host);
    }
  }

  private acquire(host: string, signal: AbortSignal): Promise<void> {
    let queue = this.hosts.get(host);
    if (queue === undefined) {
      queue = { active: 0, waiting: [] };
      this.hosts.set(host, queue);
    }
    if (queue.active < this.perHost) {
      queue.active++;
      return Promise.resolve();
    }
    const q = queue;
    return new Promise((resolve, reject) => {
      const start = () => {
        signal.removeEventListener('abort', onAbort);
        q.active++;
        resolve();
      };
      const onAbort = () => {
        const i = q.waiting.indexOf(start);
        if (i >= 0) q.waiting.splice(i, 1);
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      q.waiting.push(start);
    });
  }

  private release(host: string): void {
    const queue = this.hosts.get(host);
    if (queue === undefined) return;
    queue.active--;
    const next = queue.waiting.shift();
    if (next) next();
    else if (queue.active === 0) this.hosts.delete(host);
  }
}

/**
 * Reads a response body, turning a cut connection (a body shorter than its `Content-Length`) into
 * a retryable `network` error.
 */
export async function readBody(url: string, response: Response): Promise<Uint8Array> {
  const body = new Uint8Array(await response.arrayBuffer());
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const encoded = response.headers.get('content-encoding');
  // A body shorter than its Content-Length (and not re-encoded by the browser) was cut mid-transfer.
  if (Number.isFinite(declared) && !encoded && body.length < declared) {
    throw new TileSourceError('network', `${url}: body ${body.length} bytes, expected ${declared}`, true);
  }
  return body;
}

function hostOf(url: string): string {
  const scheme = url.indexOf('://');
  if (scheme < 0) return '';
  const end = url.indexOf('/', scheme + 3);
  return end < 0 ? url : url.slice(0, end);
}

/** Waits `ms`, or rejects with `signal.reason` once `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
