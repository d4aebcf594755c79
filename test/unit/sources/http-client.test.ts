import { describe, expect, it } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { HttpClient } from '../../../src/sources/io/http/http-client';
import { HttpRangeReader } from '../../../src/sources/io/http-range-reader';

const live = () => new AbortController().signal;
/** Bytes 0..n-1 of a file whose byte i is i mod 251. */
const file = Uint8Array.from({ length: 4096 }, (_, i) => i % 251);

/** One request as the fake fetch saw it. */
interface Sent {
  cache: RequestCache | undefined;
  range: string | null;
}

/**
 * A fetch answering Range requests over {@link file} like a static host (416 to a range starting
 * past its end), except that the answers listed in `first416` (by request number, from 0) are 416
 * to a satisfiable range, as a browser's cache produces them: with `bytes *\/<length>`, or with
 * `bytes *\/*` when `unknownLength` (what a cache that never saw the file can say).
 */
function fakeFetch(first416: Set<number>, sent: Sent[], unknownLength = false): typeof fetch {
  return async (_input, init) => {
    const range = new Headers(init?.headers).get('range');
    const n = sent.push({ cache: init?.cache, range }) - 1;
    const match = /^bytes=(\d+)-(\d+)$/.exec(range ?? '');
    if (first416.has(n) || (match !== null && Number(match[1]) >= file.length)) {
      const length = unknownLength ? '*' : String(file.length);
      return new Response(null, { status: 416, headers: { 'content-range': `bytes */${length}` } });
    }
    if (match === null) return new Response(file, { status: 200 });
    const start = Number(match[1]);
    const end = Math.min(Number(match[2]), file.length - 1);
    return new Response(file.slice(start, end + 1), {
      status: 206,
      headers: { 'content-range': `bytes ${start}-${end}/${file.length}` },
    });
  };
}

describe('HttpClient and answers a browser cache can produce', () => {
  it('retries a 416 to a Range request once, at once, bypassing the cache, and counts it as a retry', async () => {
    const sent: Sent[] = [];
    // No retries of its own: the 416 re-check is not taken from the retry budget.
    const client = new HttpClient({ retries: 0, rangeCacheBytes: 0, fetch: fakeFetch(new Set([0]), sent) });
    const reader = new HttpRangeReader('https://tiles.example/a.tsva', { client });
    const bytes = await reader.read(100, 200, live());
    expect(Array.from(bytes)).toEqual(Array.from(file.subarray(100, 200)));
    expect(sent).toEqual([
      { cache: 'no-store', range: 'bytes=100-199' },
      { cache: 'no-store', range: 'bytes=100-199' },
    ]);
    expect(client.counters).toMatchObject({ requests: 2, retries: 1, failures: 1 });
  });

  it('bypasses the cache on the re-check of a request that used it', async () => {
    const sent: Sent[] = [];
    const client = new HttpClient({ retries: 0, fetch: fakeFetch(new Set([0]), sent) });
    const answer = await client.request(
      'https://tiles.example/a.bin',
      live(),
      async (response) => response.status,
      { Range: 'bytes=0-9' },
    );
    expect(answer).toBe(206);
    expect(sent.map((s) => s.cache)).toEqual([undefined, 'no-store']);
  });

  it('gives a 416 to a range past the end of the file to the reader (truncated, not retried), after exactly one re-check', async () => {
    const sent: Sent[] = [];
    const client = new HttpClient({
      retries: 3,
      baseDelayMs: 1,
      rangeCacheBytes: 0,
      fetch: fakeFetch(new Set(), sent),
    });
    const reader = new HttpRangeReader('https://tiles.example/a.tsva', { client });
    const error = await reader.read(file.length, file.length + 10, live()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect(error).toMatchObject({ code: 'truncated', retryable: false });
    expect(sent.length).toBe(2);
    expect(client.counters).toMatchObject({ requests: 2, retries: 1, failures: 2 });
  });

  it('retries a second 416 to a range the file covers (the re-check met another glitch) within the retry bound', async () => {
    const sent: Sent[] = [];
    const client = new HttpClient({
      retries: 3,
      baseDelayMs: 1,
      rangeCacheBytes: 0,
      fetch: fakeFetch(new Set([0, 1]), sent),
    });
    const reader = new HttpRangeReader('https://tiles.example/a.tsva', { client });
    const bytes = await reader.read(100, 200, live());
    expect(Array.from(bytes)).toEqual(Array.from(file.subarray(100, 200)));
    expect(sent.length).toBe(3);
    expect(client.counters).toMatchObject({ requests: 3, retries: 2, failures: 2 });
  });

  it('takes the file length from an earlier answer when a 416 says bytes */*', async () => {
    const sent: Sent[] = [];
    const client = new HttpClient({
      retries: 3,
      baseDelayMs: 1,
      rangeCacheBytes: 0,
      fetch: fakeFetch(new Set([1, 2]), sent, true),
    });
    const reader = new HttpRangeReader('https://tiles.example/a.tsva', { client });
    await reader.read(0, 16, live());
    expect(reader.length).toBe(file.length);
    const bytes = await reader.read(1000, 1100, live());
    expect(Array.from(bytes)).toEqual(Array.from(file.subarray(1000, 1100)));
    expect(sent.length).toBe(4);
  });

  it('ends a 416 that persists on a range the file covers as a retryable http-status, after the retries', async () => {
    const sent: Sent[] = [];
    const client = new HttpClient({
      retries: 2,
      baseDelayMs: 1,
      rangeCacheBytes: 0,
      fetch: fakeFetch(new Set([0, 1, 2, 3, 4, 5]), sent),
    });
    const reader = new HttpRangeReader('https://tiles.example/a.tsva', { client });
    const error = await reader.read(0, 10, live()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect(error).toMatchObject({ code: 'http-status', retryable: true });
    // The free re-check, then the first attempt and its two retries.
    expect(sent.length).toBe(4);
  });

  it('does not re-check a 416 to a request without Range (nothing of it is a cache glitch)', async () => {
    const sent: Sent[] = [];
    const client = new HttpClient({ retries: 0, fetch: fakeFetch(new Set([0]), sent) });
    const status = await client.request('https://tiles.example/a.bin', live(), async (r) => r.status);
    expect(status).toBe(416);
    expect(sent.length).toBe(1);
    expect(client.counters.retries).toBe(0);
  });
});
