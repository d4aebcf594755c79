import { afterEach, describe, expect, it } from 'vitest';
import { isAbortError, TileSourceError } from '../../../src/core/errors';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { HttpClient } from '../../../src/sources/io/http/http-client';
import { HttpRangeReader, type HttpRangeReaderOptions } from '../../../src/sources/io/http-range-reader';
import { buildTestArchive } from './archive-fixtures';
import { serveRange, startServer } from './misbehaving-server';

const { bytes, tiles } = buildTestArchive();
const fast: HttpRangeReaderOptions = {
  retries: 3,
  baseDelayMs: 1,
  maxDelayMs: 5,
  timeoutMs: 300,
  random: () => 0.5,
};
const live = () => new AbortController().signal;
let server: Awaited<ReturnType<typeof startServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<TileSourceError> {
  const error = await promise.then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(TileSourceError);
  expect((error as TileSourceError).code).toBe(code);
  return error as TileSourceError;
}

describe('ArchiveTileSource over HTTP', { timeout: 30_000 }, () => {
  it('loads every tile byte-exact through Range requests', async () => {
    server = await startServer(bytes);
    const source = await ArchiveTileSource.open(server.url('/a.tsva'), { http: new HttpClient(fast) });
    expect(source.info).toMatchObject({ widthPages: 4, heightPages: 4, tileSize: 32, border: 2 });
    expect(source.info.layers.map((l) => l.format)).toEqual(['rgba8unorm-srgb', 'rgba8unorm']);
    for (const [key, expected] of tiles) {
      const [mip, x, y] = key.split('/').map(Number);
      const data = await source.load(mip, x, y, live());
      expect(data.layers[0]).toEqual(expected[0]);
      expect(data.layers[1]).toEqual(expected[1]);
    }
    expect(server.ranges.every((r) => r.startsWith('bytes='))).toBe(true);
  });

  it('coalesces the adjacent tiles of one round into one request', async () => {
    server = await startServer(bytes);
    const source = await ArchiveTileSource.open(new HttpRangeReader(server.url('/a.tsva'), fast));
    const before = server.count('/a.tsva');
    const row = await Promise.all([0, 1, 2, 3].map((x) => source.load(0, x, 1, live())));
    expect(row).toHaveLength(4);
    expect(server.count('/a.tsva') - before).toBe(1);
    expect(source.requestCount).toBe(1);
  });

  it('serves repeated tiles from the compressed cache without new requests', async () => {
    server = await startServer(bytes);
    const source = await ArchiveTileSource.open(new HttpRangeReader(server.url('/a.tsva'), fast), {
      cacheBytes: 1 << 20,
    });
    await source.load(0, 2, 2, live());
    const before = server.count('/a.tsva');
    const again = await source.load(0, 2, 2, live());
    expect(again.layers[0]).toEqual(tiles.get('0/2/2')![0]);
    expect(server.count('/a.tsva')).toBe(before);
    expect(source.cache!.hits).toBe(2);
  });

  it('retries a Range request answered 200 with the whole file (a proxy glitch), then reads', async () => {
    server = await startServer(bytes, {
      '/glitch': (_req, res, served) => {
        if (served !== 1) return false;
        res.writeHead(200, { 'content-length': bytes.length });
        res.end(bytes);
        return true;
      },
    });
    const reader = new HttpRangeReader(server.url('/glitch'), fast);
    const source = await ArchiveTileSource.open(reader);
    expect((await source.load(0, 2, 1, live())).layers[0]).toEqual(tiles.get('0/2/1')![0]);
    expect(server.count('/glitch')).toBe(3); // the header, the ignored Range, its retry
    expect(reader.client.counters.retries).toBe(1);
    // What VirtualTextureSystem.stats().streaming.retries sums.
    expect(source.requestCounters).toBe(reader.client.counters);
  });

  it('gives up on a server that always ignores Range after the retries: range-ignored, retryable', async () => {
    server = await startServer(bytes, {
      '/full': (_req, res) => {
        res.writeHead(200, { 'content-length': bytes.length });
        res.end(bytes);
        return true;
      },
    });
    const error = await expectCode(
      ArchiveTileSource.open(new HttpRangeReader(server.url('/full'), fast)),
      'range-ignored',
    );
    expect(error.retryable).toBe(true);
    expect(server.count('/full')).toBe(4);
  });

  it('retries a wrong Content-Range (start or end), then reads; a persistent one is corrupt, retryable', async () => {
    const wrong = (shift: 'start' | 'end', always: boolean) =>
      ((req, res, served) => {
        if (!always && served !== 1) return false;
        const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')!;
        const start = Number(match[1]) + (shift === 'start' ? 1 : 0);
        const end = Number(match[2]) + (shift === 'end' ? 1 : 0);
        res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}` });
        res.end(bytes.subarray(start, end + 1));
        return true;
      }) as import('./misbehaving-server').Behaviour;
    server = await startServer(bytes, {
      '/start': wrong('start', false),
      '/end': wrong('end', false),
      '/always': wrong('start', true),
    });
    for (const path of ['/start', '/end']) {
      const source = await ArchiveTileSource.open(new HttpRangeReader(server.url(path), fast));
      expect((await source.load(1, 0, 1, live())).layers[1]).toEqual(tiles.get('1/0/1')![1]);
      expect(server.count(path)).toBe(3);
    }
    const error = await expectCode(
      ArchiveTileSource.open(new HttpRangeReader(server.url('/always'), fast)),
      'corrupt',
    );
    expect(error.retryable).toBe(true);
    expect(server.count('/always')).toBe(4);
  });

  it('gives 404 as http-status, not retried', async () => {
    server = await startServer(bytes, {
      '/missing': (_req, res) => {
        res.writeHead(404);
        res.end();
        return true;
      },
    });
    const error = await expectCode(
      ArchiveTileSource.open(new HttpRangeReader(server.url('/missing'), fast)),
      'http-status',
    );
    expect(error.retryable).toBe(false);
    expect(server.count('/missing')).toBe(1);
  });

  it('retries 500, 408 and 429 with backoff and then succeeds', async () => {
    const flaky =
      (status: number) => (_req: unknown, res: import('node:http').ServerResponse, served: number) => {
        if (served >= 2) return false;
        res.writeHead(status, status === 429 ? { 'retry-after': '0' } : {});
        res.end();
        return true;
      };
    server = await startServer(bytes, { '/500': flaky(500), '/408': flaky(408), '/429': flaky(429) });
    for (const path of ['/500', '/408', '/429']) {
      const source = await ArchiveTileSource.open(new HttpRangeReader(server.url(path), fast));
      expect((await source.load(1, 1, 1, live())).layers[1]).toEqual(tiles.get('1/1/1')![1]);
      expect(server.count(path)).toBe(4); // two failures, the header and one tile
    }
  });

  it('gives up on a persistent 500 after the configured retries with a retryable error', async () => {
    let tileRequests = 0;
    server = await startServer(bytes, {
      '/broken': (req, res) => {
        if (req.headers.range?.startsWith('bytes=0-')) return false;
        tileRequests++;
        res.writeHead(500);
        res.end();
        return true;
      },
    });
    const source = await ArchiveTileSource.open(new HttpRangeReader(server.url('/broken'), fast));
    const error = await expectCode(source.load(0, 0, 0, live()), 'http-status');
    expect(error.retryable).toBe(true);
    expect(tileRequests).toBe(4);
    // Other tiles keep streaming once the server recovers: nothing is poisoned.
  });

  it('times out a server that never answers, and retries the timeout', async () => {
    server = await startServer(bytes, { '/hang': () => true });
    const reader = new HttpRangeReader(server.url('/hang'), { ...fast, retries: 1, timeoutMs: 50 });
    const error = await expectCode(ArchiveTileSource.open(reader), 'timeout');
    expect(error.retryable).toBe(true);
    expect(server.count('/hang')).toBe(2);
  });

  it('retries a body cut short mid-transfer', async () => {
    server = await startServer(bytes, {
      '/cut': (req, res, served) => {
        if (served !== 1) return false;
        const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')!;
        const start = Number(match[1]);
        const end = Number(match[2]);
        res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}` });
        res.write(bytes.subarray(start, start + 3));
        res.destroy();
        return true;
      },
    });
    const source = await ArchiveTileSource.open(new HttpRangeReader(server.url('/cut'), fast));
    expect((await source.load(0, 3, 3, live())).layers[0]).toEqual(tiles.get('0/3/3')![0]);
  });

  it('reports a file shorter than its header says as truncated', async () => {
    const short = bytes.subarray(0, bytes.length - 100);
    server = await startServer(short, {});
    await expectCode(ArchiveTileSource.open(new HttpRangeReader(server.url('/short'), fast)), 'truncated');
  });

  it('aborts a tile: the promise rejects with an AbortError and the request is cancelled', async () => {
    let pendingRes: import('node:http').ServerResponse | undefined;
    server = await startServer(bytes, {
      '/slow': (req, res) => {
        if (req.headers.range?.startsWith('bytes=0-')) return false;
        pendingRes = res;
        return true;
      },
    });
    const source = await ArchiveTileSource.open(
      new HttpRangeReader(server.url('/slow'), { ...fast, timeoutMs: 5000 }),
    );
    const controller = new AbortController();
    const promise = source.load(0, 1, 0, controller.signal);
    await new Promise((r) => setTimeout(r, 30));
    expect(pendingRes).toBeDefined();
    const closed = new Promise((r) => pendingRes!.on('close', r));
    controller.abort();
    const error = await promise.catch((e) => e);
    expect(isAbortError(error)).toBe(true);
    await closed; // the server saw the connection go: the abort reached fetch
  });

  it('one aborted tile does not cancel the merged request of the others', async () => {
    server = await startServer(bytes, {
      '/delay': (req, res) => {
        setTimeout(() => serveRange(bytes, req, res), 20);
        return true;
      },
    });
    const source = await ArchiveTileSource.open(new HttpRangeReader(server.url('/delay'), fast));
    const controller = new AbortController();
    const a = source.load(0, 0, 2, controller.signal);
    const b = source.load(0, 1, 2, live());
    controller.abort();
    expect(isAbortError(await a.catch((e) => e))).toBe(true);
    expect((await b).layers[0]).toEqual(tiles.get('0/1/2')![0]);
  });
});
