import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { DEFAULT_RANGE_CACHE_BYTES, HttpClient } from '../../../src/sources/io/http/http-client';
import { RangeCache } from '../../../src/sources/io/http/range-cache';
import { HttpRangeReader } from '../../../src/sources/io/http-range-reader';
import { serveWebMap, type WebMapServer } from '../../support/imagery/web-map-fixtures';
import { buildTestArchive } from './archive-fixtures';
import { startServer } from './misbehaving-server';

const live = () => new AbortController().signal;
const fast = { retries: 0, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2000, random: () => 0.5 };
/** Bytes 0..n-1 of a file whose byte i is i mod 251. */
const file = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const answer = (n: number, fill = 1) => ({ bytes: new Uint8Array(n).fill(fill), fileBytes: 1000 });

let server: Awaited<ReturnType<typeof startServer>> | WebMapServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client whose fetch records the `cache` mode and `Range` header of every request. */
function recordingClient(options: ConstructorParameters<typeof HttpClient>[0] = {}) {
  const sent: { cache: RequestCache | undefined; range: string | null }[] = [];
  const client = new HttpClient({
    ...fast,
    ...options,
    fetch: (input, init) => {
      sent.push({ cache: init?.cache, range: new Headers(init?.headers).get('range') });
      return fetch(input, init);
    },
  });
  return { client, sent };
}

describe('RangeCache', () => {
  it('keeps answers within its bound, evicting the least recently used first', () => {
    const cache = new RangeCache(300);
    cache.set('a', 0, 100, answer(100));
    cache.set('a', 100, 200, answer(100));
    cache.set('b', 0, 100, answer(100));
    expect(cache.get('a', 0, 100)).toBeDefined(); // now the most recently used
    cache.set('b', 100, 200, answer(100));
    expect(cache.bytes).toBe(300);
    expect(cache.get('a', 100, 200)).toBeUndefined(); // the least recently used went first
    expect(cache.get('a', 0, 100)).toBeDefined();
    expect(cache.get('b', 0, 100)).toBeDefined();
    expect(cache.get('b', 100, 200)).toBeDefined();
    cache.set('c', 0, 200, answer(200));
    expect([cache.size, cache.bytes]).toEqual([2, 300]);
    expect(cache.get('a', 0, 100)).toBeUndefined();
    expect(cache.get('b', 0, 100)).toBeUndefined();
  });

  it('keys by URL, start and end; a key set again replaces its answer and its bytes', () => {
    const cache = new RangeCache(1000);
    cache.set('a', 0, 10, answer(10, 1));
    expect(cache.get('a', 0, 11)).toBeUndefined();
    expect(cache.get('a', 1, 10)).toBeUndefined();
    expect(cache.get('b', 0, 10)).toBeUndefined();
    cache.set('a', 0, 10, answer(10, 2));
    expect([cache.size, cache.bytes]).toEqual([1, 10]);
    expect(cache.get('a', 0, 10)?.bytes[0]).toBe(2);
  });

  it('stores and returns copies, so a caller may change or transfer what it got', () => {
    const cache = new RangeCache(1000);
    const stored = answer(10, 7);
    cache.set('a', 0, 10, stored);
    stored.bytes.fill(0);
    const first = cache.get('a', 0, 10)!;
    expect(first.bytes[0]).toBe(7);
    structuredClone(first.bytes.buffer, { transfer: [first.bytes.buffer] });
    expect(first.bytes.length).toBe(0); // detached
    const second = cache.get('a', 0, 10)!;
    expect(Array.from(second.bytes)).toEqual(new Array(10).fill(7));
    expect(second.fileBytes).toBe(1000);
  });

  it('does not keep an answer larger than its bound alone, and clear() empties it', () => {
    const cache = new RangeCache(100);
    cache.set('a', 0, 50, answer(50));
    cache.set('a', 0, 101, answer(101));
    expect([cache.size, cache.bytes]).toEqual([1, 50]);
    cache.clear();
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
    expect(cache.get('a', 0, 50)).toBeUndefined();
  });
});

describe('HttpClient Range reads', { timeout: 30_000 }, () => {
  it("sends Range reads with cache: 'no-store' and whole-file GETs with the browser's default", async () => {
    const bytes = file(4000);
    server = await startServer(bytes);
    const { client, sent } = recordingClient();
    const reader = new HttpRangeReader(server.url('/f'), { client });
    await reader.read(10, 20, live());
    await reader.readAtMost(3990, 4100, live());
    await reader.readAtMostOrWhole(0, 100, live());
    await client.getBytes(server.url('/f'), live());
    expect(sent).toEqual([
      { cache: 'no-store', range: 'bytes=10-19' },
      { cache: 'no-store', range: 'bytes=3990-4099' },
      { cache: 'no-store', range: 'bytes=0-99' },
      { cache: undefined, range: null },
    ]);
  });

  it('answers a repeated read from the cache with no request, counting the hit, for every reader of the client', async () => {
    const bytes = file(4000);
    server = await startServer(bytes);
    const client = new HttpClient(fast);
    expect(client.rangeCache?.maxBytes).toBe(DEFAULT_RANGE_CACHE_BYTES);
    const first = await new HttpRangeReader(server.url('/f'), { client }).read(100, 200, live());
    expect(server.count('/f')).toBe(1);
    const other = new HttpRangeReader(server.url('/f'), { client });
    const again = await other.read(100, 200, live());
    expect(again).toEqual(bytes.subarray(100, 200));
    expect(again).not.toBe(first);
    expect(server.count('/f')).toBe(1);
    expect(client.counters).toMatchObject({ requests: 1, cacheHits: 1 });
    expect(other.requestCount).toBe(0);
    // The file's length comes with the cached answer, as a KTX2 or archive open needs it.
    expect(other.length).toBe(4000);
    // Another range, or the same range of another URL, is another request.
    await other.read(100, 201, live());
    await new HttpRangeReader(server.url('/g'), { client }).read(100, 200, live());
    expect(server.count('/f') + server.count('/g')).toBe(3);
  });

  it('hands out copies: a read transferred to a worker leaves the next hit whole', async () => {
    const bytes = file(1000);
    server = await startServer(bytes);
    const reader = new HttpRangeReader(server.url('/f'), fast);
    const first = await reader.read(0, 64, live());
    structuredClone(first.buffer, { transfer: [first.buffer] });
    const second = await reader.read(0, 64, live());
    second.fill(0);
    expect(await reader.read(0, 64, live())).toEqual(bytes.subarray(0, 64));
    expect(reader.client.counters).toMatchObject({ requests: 1, cacheHits: 2 });
  });

  it('holds at most rangeCacheBytes across the readers sharing the client; evicted ranges are read again', async () => {
    const bytes = file(10_000);
    server = await startServer(bytes);
    const client = new HttpClient({ ...fast, rangeCacheBytes: 2500 });
    const a = new HttpRangeReader(server.url('/a'), { client });
    const b = new HttpRangeReader(server.url('/b'), { client });
    await a.read(0, 1000, live());
    await b.read(0, 1000, live());
    await a.read(0, 1000, live()); // a hit: /a is now the most recently used
    await b.read(1000, 2000, live()); // evicts /b 0-1000
    expect(client.rangeCache!.bytes).toBe(2000);
    expect(server.count('/a') + server.count('/b')).toBe(3);
    await a.read(0, 1000, live());
    expect(server.count('/a')).toBe(1);
    expect(await b.read(0, 1000, live())).toEqual(bytes.subarray(0, 1000));
    expect(server.count('/b')).toBe(3);
    expect(client.rangeCache!.bytes).toBeLessThanOrEqual(2500);
  });

  it('caches nothing with rangeCacheBytes 0', async () => {
    server = await startServer(file(1000));
    const client = new HttpClient({ ...fast, rangeCacheBytes: 0 });
    expect(client.rangeCache).toBeUndefined();
    const reader = new HttpRangeReader(server.url('/f'), { client });
    await reader.read(0, 10, live());
    await reader.read(0, 10, live());
    expect(server.count('/f')).toBe(2);
    expect(client.counters.cacheHits).toBe(0);
  });

  it('does not cache failures: a failed read is requested again and its later answer is cached', async () => {
    const bytes = file(1000);
    const failFirst =
      (status: number) => (_req: unknown, res: import('node:http').ServerResponse, served: number) => {
        if (served > 0) return false;
        res.writeHead(status).end();
        return true;
      };
    server = await startServer(bytes, {
      '/404': failFirst(404),
      '/503': failFirst(503),
      '/bad-range': (_req, res, served) => {
        if (served > 0) return false;
        res.writeHead(206, { 'content-range': `bytes 1-10/${bytes.length}` }).end(bytes.subarray(1, 11));
        return true;
      },
    });
    for (const [path, code] of [
      ['/404', 'http-status'],
      ['/503', 'http-status'],
      ['/bad-range', 'corrupt'],
    ]) {
      const reader = new HttpRangeReader(server.url(path), fast);
      const error = await reader.read(0, 10, live()).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(TileSourceError);
      expect((error as TileSourceError).code, path).toBe(code);
      expect(reader.client.rangeCache!.size).toBe(0);
      expect(await reader.read(0, 10, live())).toEqual(bytes.subarray(0, 10));
      expect(await reader.read(0, 10, live())).toEqual(bytes.subarray(0, 10));
      expect(server.count(path), path).toBe(2);
      expect(reader.client.counters.cacheHits).toBe(1);
    }
  });

  it('does not cache a short read (the file ends first): a strict read of that range still fails truncated', async () => {
    const bytes = file(1000);
    server = await startServer(bytes);
    const reader = new HttpRangeReader(server.url('/f'), fast);
    expect(await reader.readAtMost(900, 1100, live())).toEqual(bytes.subarray(900));
    expect(reader.client.rangeCache!.size).toBe(0);
    const error = await reader.read(900, 1100, live()).catch((e: unknown) => e);
    expect((error as TileSourceError).code).toBe('truncated');
    expect(await reader.readAtMost(900, 1100, live())).toEqual(bytes.subarray(900));
    expect(server.count('/f')).toBe(3);
    // A read that ends exactly at the file's end is whole, and cached.
    await reader.readAtMost(900, 1000, live());
    expect(await reader.read(900, 1000, live())).toEqual(bytes.subarray(900));
    expect(server.count('/f')).toBe(4);
  });

  it('serves an archive tile loaded again (a page evicted and wanted back) with no request', async () => {
    const { bytes, tiles } = buildTestArchive();
    server = await startServer(bytes);
    const source = await ArchiveTileSource.open(server.url('/a.tsva'), { http: new HttpClient(fast) });
    await source.load(0, 2, 3, live());
    const before = server.count('/a.tsva');
    const again = await source.load(0, 2, 3, live());
    expect(again.layers[0]).toEqual(tiles.get('0/2/3')![0]);
    expect(again.layers[1]).toEqual(tiles.get('0/2/3')![1]);
    expect(server.count('/a.tsva')).toBe(before);
    expect(source.requestCounters).toMatchObject({ cacheHits: 1 });
    source.dispose();
  });

  it('sends concurrent reads of one file up to the per-host cap at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-range-'));
    writeFileSync(join(dir, 'f.bin'), file(100_000));
    const slow = await serveWebMap(dir, { delayMs: 40 });
    server = slow;
    const reader = new HttpRangeReader(`${slow.baseUrl}/f.bin`, fast);
    await Promise.all(Array.from({ length: 18 }, (_, k) => reader.read(k * 1000, k * 1000 + 500, live())));
    expect(slow.peakInFlight).toBe(6);
    expect(slow.count('/f.bin')).toBe(18);
    rmSync(dir, { recursive: true, force: true });
  });
});
