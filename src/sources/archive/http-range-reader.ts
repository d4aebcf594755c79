/**
 * A {@link RangeReader} over HTTP: one `Range` request per read, a per-request timeout, and
 * retries with exponential backoff and full jitter for network errors, timeouts, 5xx, 408 and 429
 * (none for other 4xx). A server that ignores `Range` (200 with the whole file) is an error, not
 * a silent whole-file download per tile.
 */

import { TileSourceError } from '../../core/errors';
import type { RangeReader } from './range-reader';

/** Options of {@link HttpRangeReader}. */
export interface HttpRangeReaderOptions {
  /** Retries after the first attempt (0..10). Default 3. */
  retries?: number;
  /** Backoff before retry n is random in [0, min(maxDelayMs, baseDelayMs x 2^n)], ms. Default 100. */
  baseDelayMs?: number;
  /** Longest backoff, ms (also caps `Retry-After`). Default 4000. */
  maxDelayMs?: number;
  /** Time allowed for one request including its body, ms. Default 15000. */
  timeoutMs?: number;
  /** Random source in [0, 1) for jitter (tests pass a fixed one). Default `Math.random`. */
  random?: () => number;
  /** Extra request headers (e.g. authorisation). */
  headers?: Record<string, string>;
  /** The fetch to use. Default the global `fetch`. */
  fetch?: typeof fetch;
}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;

/** Reads byte ranges of one URL. */
export class HttpRangeReader implements RangeReader {
  /** Total length from the first `Content-Range`, bytes. */
  length: number | undefined;
  /** Requests sent, including retries (for tests and statistics). */
  requestCount = 0;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly random: () => number;
  private readonly fetchFn: typeof fetch;

  constructor(
    readonly url: string,
    private readonly options: HttpRangeReaderOptions = {},
  ) {
    this.retries = Math.max(0, Math.min(10, options.retries ?? 3));
    this.baseDelayMs = options.baseDelayMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 4000;
    this.timeoutMs = options.timeoutMs ?? 15000;
    this.random = options.random ?? Math.random;
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  }

  read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    return this.readWithRetries(start, end, false, signal);
  }

  readAtMost(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    return this.readWithRetries(start, end, true, signal);
  }

  private async readWithRetries(start: number, end: number, allowShort: boolean, signal: AbortSignal) {
    for (let attempt = 0; ; attempt++) {
      let retryAfterMs = 0;
      try {
        return await this.readOnce(start, end, allowShort, signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!(error instanceof TileSourceError) || !error.retryable || attempt >= this.retries) throw error;
        retryAfterMs = (error as TileSourceError & { retryAfterMs?: number }).retryAfterMs ?? 0;
      }
      const backoff = this.random() * Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
      await sleep(Math.min(this.maxDelayMs, Math.max(backoff, retryAfterMs)), signal);
    }
  }

  private async readOnce(
    start: number,
    end: number,
    allowShort: boolean,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    if (signal.aborted) throw signal.reason;
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    this.requestCount++;
    try {
      const response = await this.fetchFn(this.url, {
        headers: { ...this.options.headers, Range: `bytes=${start}-${end - 1}` },
        signal: controller.signal,
      });
      if (response.status === 200) {
        await response.body?.cancel().catch(() => {});
        throw new TileSourceError(
          'range-ignored',
          `${this.url}: server ignored Range (200 with the whole file)`,
          false,
        );
      }
      if (response.status === 416) {
        await response.body?.cancel().catch(() => {});
        throw new TileSourceError(
          'truncated',
          `${this.url}: range ${start}-${end - 1} not satisfiable`,
          false,
        );
      }
      if (response.status !== 206) {
        await response.body?.cancel().catch(() => {});
        const retryable = RETRYABLE_STATUS(response.status);
        const error = new TileSourceError('http-status', `${this.url}: HTTP ${response.status}`, retryable);
        const retryAfter = Number(response.headers.get('retry-after'));
        if (retryable && retryAfter > 0) Object.assign(error, { retryAfterMs: retryAfter * 1000 });
        throw error;
      }
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
      if (range === null || Number(range[1]) !== start) {
        await response.body?.cancel().catch(() => {});
        throw new TileSourceError('corrupt', `${this.url}: missing or wrong Content-Range`, false);
      }
      if (range[3] !== '*') this.length = Number(range[3]);
      const last = Number(range[2]);
      if (allowShort && last < end - 1 && this.length === last + 1) end = last + 1;
      if (last !== end - 1) {
        await response.body?.cancel().catch(() => {});
        throw new TileSourceError(
          'truncated',
          `${this.url}: file ends at byte ${last}, wanted ${end - 1}`,
          false,
        );
      }
      const body = new Uint8Array(await response.arrayBuffer());
      // A short body under a correct Content-Range is a connection cut mid-transfer: worth a retry.
      if (body.length !== end - start) {
        throw new TileSourceError(
          'network',
          `${this.url}: body ${body.length} bytes, expected ${end - start}`,
          true,
        );
      }
      return body;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (timedOut) {
        throw new TileSourceError('timeout', `${this.url}: no answer within ${this.timeoutMs} ms`, true);
      }
      if (error instanceof TileSourceError) throw error;
      throw new TileSourceError('network', `${this.url}: ${(error as Error).message}`, true, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
