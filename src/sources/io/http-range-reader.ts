/**
 * A {@link RangeReader} over HTTP: one `Range` request per read, sent through an
 * {@link HttpClient}, so reads get its per-request timeout, its retries with exponential backoff
 * and full jitter for network errors, timeouts, 5xx, 408 and 429 (none for other 4xx), its cap on
 * requests in flight per host, and its bounded cache of Range answers (the requests bypass the
 * browser's HTTP cache, which would send them one at a time). An answer that does not match the
 * request (200 with the whole file, a missing or wrong `Content-Range`, a 416 to a range the file
 * is known to cover) is retried too, as a proxy or cache glitch is usually transient; after the
 * last attempt it stays a typed error (`range-ignored`, `corrupt`, `http-status`), never a silent
 * whole-file download per tile.
 */

import { TileSourceError } from '../../core/errors';
import { HttpClient, type HttpClientOptions, httpStatusError, readBody } from './http/http-client';
import type { RangeReader } from './range-reader';

/**
 * Options of {@link HttpRangeReader}: those of the {@link HttpClient} it makes (retries, backoff,
 * timeout, per-host cap, headers, fetch), or a client to share.
 */
export interface HttpRangeReaderOptions extends HttpClientOptions {
  /**
   * The client to send the requests through, so that several readers (and imagery sources) share
   * one per-host cap. When given, the other options are the client's own and these are ignored.
   * Default: a new client made from these options.
   */
  client?: HttpClient;
}

/** Reads byte ranges of one URL. */
export class HttpRangeReader implements RangeReader {
  /** Total length from the first `Content-Range`, bytes. */
  length: number | undefined;
  /**
   * Requests of this reader the server answered, retries included (for tests and statistics);
   * the client's `counters` also count attempts that got no answer.
   */
  requestCount = 0;
  /** The client the requests go through (the one given, or this reader's own). */
  readonly client: HttpClient;

  /**
   * @param url the file's URL.
   * @param options retry policy and transport, or a shared `client`.
   */
  constructor(
    /** The file's URL. */
    readonly url: string,
    options: HttpRangeReaderOptions = {},
  ) {
    this.client = options.client ?? new HttpClient(options);
  }

  /**
   * Reads bytes [`start`, `end`).
   * @throws TileSourceError `truncated` (the file ends first, or 416 to a range past its end;
   *   not retried), `range-ignored` (200 with the whole file), `corrupt` (a missing or wrong
   *   `Content-Range`) and `http-status` 416 to a range the file covers, all retryable and retried
   *   within the client's bound, other `http-status`, `network` (a body cut short is retried),
   *   `timeout`; `signal.reason` once `signal` aborts.
   */
  read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    return this.readRange(start, end, false, false, signal).then((r) => r.bytes);
  }

  /**
   * Like {@link read}, but a file ending before `end` yields the bytes up to its end.
   * @throws TileSourceError as {@link read}.
   */
  readAtMost(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    return this.readRange(start, end, true, false, signal).then((r) => r.bytes);
  }

  /**
   * Like {@link readAtMost}, but a server answering 200 (ignoring `Range`) yields the whole file
   * (`whole: true`, its length checked against `Content-Length`) instead of an error: for a caller
   * that can use the whole file, such as a KTX2 file's opening read. Sets {@link length} then too.
   * @throws TileSourceError as {@link read}, `range-ignored` excepted.
   */
  readAtMostOrWhole(
    start: number,
    end: number,
    signal: AbortSignal,
  ): Promise<{ bytes: Uint8Array; whole: boolean }> {
    return this.readRange(start, end, true, true, signal);
  }

  private async readRange(
    start: number,
    end: number,
    allowShort: boolean,
    acceptWhole: boolean,
    signal: AbortSignal,
  ): Promise<{ bytes: Uint8Array; whole: boolean }> {
    const url = this.url;
    let whole = false;
    const answer = await this.client.requestRange(url, start, end, signal, async (response) => {
      this.requestCount++;
      whole = false;
      if (response.status === 200 && acceptWhole) {
        const bytes = await readBody(url, response);
        whole = true;
        return { bytes, fileBytes: bytes.length };
      }
      if (response.status === 200) {
        await response.body?.cancel().catch(() => {});
        throw new TileSourceError(
          'range-ignored',
          `${url}: server ignored Range (200 with the whole file)`,
          true,
        );
      }
      if (response.status === 416) {
        await response.body?.cancel().catch(() => {});
        // A 416 says the range starts past the end of the file. When the file is known to be longer
        // (this answer's `Content-Range: bytes */N`, or an earlier answer's length), the 416 is a
        // wrong answer, a cache's or a proxy's, like a wrong Content-Range: worth another attempt.
        // (The client re-checks one 416 at once; under faults a second can follow.)
        const declared = /^bytes \*\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
        const fileBytes = declared !== null ? Number(declared[1]) : this.length;
        if (fileBytes !== undefined && start < fileBytes) {
          throw new TileSourceError(
            'http-status',
            `${url}: HTTP 416 to range ${start}-${end - 1} of a file of ${fileBytes} bytes`,
            true,
          );
        }
        throw new TileSourceError('truncated', `${url}: range ${start}-${end - 1} not satisfiable`, false);
      }
      if (response.status !== 206) throw await httpStatusError(url, response);
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
      if (range === null || Number(range[1]) !== start) {
        await response.body?.cancel().catch(() => {});
        throw new TileSourceError('corrupt', `${url}: missing or wrong Content-Range`, true);
      }
      const total = range[3] === '*' ? undefined : Number(range[3]);
      const last = Number(range[2]);
      // Each attempt decides afresh: a retry must not inherit a shortened end from an earlier one.
      let wanted = end;
      if (allowShort && last < end - 1 && total === last + 1) wanted = last + 1;
      if (last !== wanted - 1) {
        await response.body?.cancel().catch(() => {});
        // The file really ends first only when the answer says so (its total length); any other
        // mismatch is a wrong answer, worth another attempt.
        if (total === last + 1 && last < wanted - 1) {
          this.length = total;
          throw new TileSourceError(
            'truncated',
            `${url}: file ends at byte ${last}, wanted ${end - 1}`,
            false,
          );
        }
        throw new TileSourceError(
          'corrupt',
          `${url}: Content-Range ends at byte ${last}, wanted ${wanted - 1}`,
          true,
        );
      }
      const body = new Uint8Array(await response.arrayBuffer());
      // A short body under a correct Content-Range is a connection cut mid-transfer: worth a retry.
      if (body.length !== wanted - start) {
        throw new TileSourceError(
          'network',
          `${url}: body ${body.length} bytes, expected ${wanted - start}`,
          true,
        );
      }
      return { bytes: body, fileBytes: total };
    });
    // Set here, not in `read`, so that an answer from the client's cache sets it too.
    if (answer.fileBytes !== undefined) this.length = answer.fileBytes;
    return { bytes: answer.bytes, whole };
  }
}
