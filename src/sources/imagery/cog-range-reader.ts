/**
 * A {@link RangeReader} that sends its `Range` requests through an {@link HttpClient}, so a
 * GeoTIFF read by ranges shares the client's retries, timeouts and per-host cap with every other
 * imagery source on that client (the standalone `HttpRangeReader` has no host cap).
 */

import { TileSourceError } from '../../core/errors';
import type { RangeReader } from '../archive/range-reader';
import { type HttpClient, httpStatusError } from '../http/http-client';

/** Reads byte ranges of one URL through a shared {@link HttpClient}. */
export class HttpClientRangeReader implements RangeReader {
  /** Total length in bytes, from the first `Content-Range`. */
  length: number | undefined;

  constructor(
    /** The file's URL. */
    readonly url: string,
    private readonly client: HttpClient,
  ) {}

  /**
   * Reads bytes [`start`, `end`).
   * @throws TileSourceError `truncated` (the file ends first), `range-ignored` (a server that
   *   answers 200 with the whole file), `corrupt` (a wrong `Content-Range`), `http-status`,
   *   `network`, `timeout`; `signal.reason` once `signal` aborts.
   */
  read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    return this.readRange(start, end, false, signal);
  }

  /** Like {@link read}, but a file ending before `end` yields the bytes up to its end. */
  readAtMost(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    if (this.length !== undefined && start >= this.length) {
      return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve(new Uint8Array(0));
    }
    return this.readRange(start, end, true, signal);
  }

  private readRange(
    start: number,
    end: number,
    allowShort: boolean,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    const url = this.url;
    return this.client.request(
      url,
      signal,
      async (response) => {
        if (response.status === 200) {
          await response.body?.cancel().catch(() => {});
          throw new TileSourceError(
            'range-ignored',
            `${url}: server ignored Range (200 with the whole file)`,
            false,
          );
        }
        if (response.status === 416) {
          await response.body?.cancel().catch(() => {});
          throw new TileSourceError('truncated', `${url}: range ${start}-${end - 1} not satisfiable`, false);
        }
        if (response.status !== 206) throw await httpStatusError(url, response);
        const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
        if (range === null || Number(range[1]) !== start) {
          await response.body?.cancel().catch(() => {});
          throw new TileSourceError('corrupt', `${url}: missing or wrong Content-Range`, false);
        }
        if (range[3] !== '*') this.length = Number(range[3]);
        const last = Number(range[2]);
        let wanted = end;
        if (allowShort && last < end - 1 && this.length === last + 1) wanted = last + 1;
        if (last !== wanted - 1) {
          await response.body?.cancel().catch(() => {});
          throw new TileSourceError(
            'truncated',
            `${url}: file ends at byte ${last}, wanted ${end - 1}`,
            false,
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
        return body;
      },
      { Range: `bytes=${start}-${end - 1}` },
    );
  }
}
