import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PMTiles, type RangeResponse, type Source } from 'pmtiles';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAbortError, TileSourceError } from '../../../src/core/errors';
import { openPmtilesPyramid } from '../../../src/sources/imagery/pmtiles-pyramid';
import { HttpClient, type HttpClientOptions } from '../../../src/sources/io/http/http-client';
import {
  loadMercatorWorld,
  makeWebMapTiles,
  serveWebMap,
  type WebMapServer,
  type WebMapTile,
  writePmtiles,
} from '../../support/imagery/web-map-fixtures';

const live = () => new AbortController().signal;
const fast: HttpClientOptions = { retries: 2, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 5000 };
const MAX_ZOOM = 2;
const OMITTED = { z: 2, x: 1, y: 2 };
const ATTRIBUTION = '© Test Earth';

let dir: string;
let server: WebMapServer;
let tiles: WebMapTile[];
let bigTiles: WebMapTile[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tessera-pmtiles-'));
  const world = await loadMercatorWorld(256 * 2 ** MAX_ZOOM);
  const omit = (z: number, x: number, y: number) => z === OMITTED.z && x === OMITTED.x && y === OMITTED.y;
  tiles = await makeWebMapTiles(world, { maxZoom: MAX_ZOOM, format: 'png', omit });
  bigTiles = await makeWebMapTiles(world, { maxZoom: 1, tileSize: 512, format: 'png' });
  const write = (name: string, bytes: Uint8Array) => writeFileSync(join(dir, name), bytes);
  write('earth.pmtiles', writePmtiles(tiles, { tileType: 'png', metadata: { attribution: ATTRIBUTION } }));
  write(
    'leaves.pmtiles',
    writePmtiles(tiles, { tileType: 'png', internalCompression: 'none', leafEntries: 4 }),
  );
  write('big.pmtiles', writePmtiles(bigTiles, { tileType: 'png' }));
  write(
    'vector.pmtiles',
    writePmtiles([{ z: 0, x: 0, y: 0, bytes: new Uint8Array([0x1a, 0]) }], { tileType: 'mvt' }),
  );
  write('not-an-archive.pmtiles', tiles[0].bytes);
  server = await serveWebMap(dir);
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e) => e,
  );
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<TileSourceError> {
  const error = await errorOf(promise);
  expect(error).toBeInstanceOf(TileSourceError);
  expect((error as TileSourceError).code).toBe(code);
  return error as TileSourceError;
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('PMTiles pyramid over HTTP Range', { timeout: 30_000 }, () => {
  it('opens with one request: levels from the header, attribution from the metadata', async () => {
    const before = server.requests.length;
    const p = await openPmtilesPyramid(`${server.baseUrl}/earth.pmtiles`, {
      http: new HttpClient(fast),
      tileSize: 256,
    });
    expect(server.requests.length - before).toBe(1);
    expect(server.ranges.at(-1)).toBe('bytes=0-16383');
    expect(p.info.levels).toEqual([
      { width: 1024, height: 1024, tileWidth: 256, tileHeight: 256 },
      { width: 512, height: 512, tileWidth: 256, tileHeight: 256 },
      { width: 256, height: 256, tileWidth: 256, tileHeight: 256 },
    ]);
    expect(p.info.wrapX).toBe('repeat');
    expect(p.info.attribution).toBe(ATTRIBUTION);
    expect(p.header.maxZoom).toBe(MAX_ZOOM);
    p.dispose();
    const credited = await openPmtilesPyramid(`${server.baseUrl}/earth.pmtiles`, {
      http: new HttpClient(fast),
      tileSize: 256,
      attribution: 'mine',
    });
    expect(credited.info.attribution).toBe('mine');
    credited.dispose();
  });

  it('takes the tile size from the first tile stored when not given', async () => {
    const small = await openPmtilesPyramid(`${server.baseUrl}/earth.pmtiles`, { http: new HttpClient(fast) });
    expect(small.tileSize).toBe(256);
    const big = await openPmtilesPyramid(`${server.baseUrl}/big.pmtiles`, { http: new HttpClient(fast) });
    expect(big.tileSize).toBe(512);
    expect(big.info.levels.map((l) => l.width)).toEqual([1024, 512]);
    const tile = (await big.loadTile(0, 1, 0, live()))!;
    expect(equalBytes(tile.data, bigTiles.find((t) => t.z === 1 && t.x === 1 && t.y === 0)!.texels)).toBe(
      true,
    );
    small.dispose();
    big.dispose();
  });

  for (const name of ['earth.pmtiles', 'leaves.pmtiles']) {
    it(`reads every tile of ${name} exactly, one Range request per tile`, async () => {
      const p = await openPmtilesPyramid(`${server.baseUrl}/${name}`, {
        http: new HttpClient(fast),
        tileSize: 256,
      });
      const before = server.requests.length;
      for (const tile of tiles) {
        const loaded = await p.loadTile(MAX_ZOOM - tile.z, tile.x, tile.y, live());
        expect(loaded).not.toBeNull();
        expect(equalBytes(loaded!.data, tile.texels)).toBe(true);
      }
      const requests = server.ranges.slice(before);
      expect(requests.every((r) => /^bytes=\d+-\d+$/.test(r))).toBe(true);
      // Leaf directories are read once each and then kept.
      const leaves = name === 'leaves.pmtiles' ? Math.ceil(tiles.length / 4) : 0;
      expect(requests.length).toBe(tiles.length + leaves);
      p.dispose();
    });
  }

  it('resolves a tile the archive does not hold to null without a request', async () => {
    const p = await openPmtilesPyramid(`${server.baseUrl}/earth.pmtiles`, {
      http: new HttpClient(fast),
      tileSize: 256,
    });
    const before = server.requests.length;
    expect(await p.loadTile(MAX_ZOOM - OMITTED.z, OMITTED.x, OMITTED.y, live())).toBeNull();
    expect(await p.loadTile(0, 4, 0, live())).toBeNull(); // outside the world
    expect(server.requests.length).toBe(before);
    p.dispose();
    // With leaf directories: at most the leaf is read, never a tile.
    const leaves = await openPmtilesPyramid(`${server.baseUrl}/leaves.pmtiles`, {
      http: new HttpClient(fast),
      tileSize: 256,
    });
    const start = server.requests.length;
    expect(await leaves.loadTile(MAX_ZOOM - OMITTED.z, OMITTED.x, OMITTED.y, live())).toBeNull();
    expect(server.requests.length - start).toBeLessThanOrEqual(1);
    const again = server.requests.length;
    expect(await leaves.loadTile(MAX_ZOOM - OMITTED.z, OMITTED.x, OMITTED.y, live())).toBeNull();
    expect(server.requests.length).toBe(again);
    leaves.dispose();
  });

  it('rejects a vector archive as unsupported and a non-archive as bad-magic', async () => {
    const vector = await expectCode(
      openPmtilesPyramid(`${server.baseUrl}/vector.pmtiles`, { http: new HttpClient(fast) }),
      'unsupported',
    );
    expect(vector.retryable).toBe(false);
    await expectCode(
      openPmtilesPyramid(`${server.baseUrl}/not-an-archive.pmtiles`, { http: new HttpClient(fast) }),
      'bad-magic',
    );
    await expectCode(
      openPmtilesPyramid(`${server.baseUrl}/missing.pmtiles`, { http: new HttpClient(fast) }),
      'http-status',
    );
  });

  it('rejects a server that ignores Range', async () => {
    server.override('/whole.pmtiles', (_req, res) => {
      const body = readFileSync(join(dir, 'earth.pmtiles'));
      res.writeHead(200, { 'content-length': body.length }).end(body);
      return true;
    });
    await expectCode(
      openPmtilesPyramid(`${server.baseUrl}/whole.pmtiles`, { http: new HttpClient(fast) }),
      'range-ignored',
    );
  });

  it("retries through the client's policy, sharing its per-host cap", async () => {
    const client = new HttpClient({ ...fast, maxRequestsPerHost: 2 });
    const url = `${server.baseUrl}/flaky.pmtiles`;
    writeFileSync(join(dir, 'flaky.pmtiles'), readFileSync(join(dir, 'earth.pmtiles')));
    let failures = 0;
    server.override('/flaky.pmtiles', (req, res) => {
      // Every tile read fails once with 503 (the opening read succeeds).
      if (req.headers.range === 'bytes=0-16383' || failures >= 2) return false;
      failures++;
      res.writeHead(503).end();
      return true;
    });
    const p = await openPmtilesPyramid(url, { http: client, tileSize: 256 });
    server.resetPeak();
    const loads = await Promise.all([0, 1, 2, 3].map((x) => p.loadTile(0, x, 0, live())));
    for (const [x, loaded] of loads.entries()) {
      expect(equalBytes(loaded!.data, tiles.find((t) => t.z === 2 && t.x === x && t.y === 0)!.texels)).toBe(
        true,
      );
    }
    expect(client.counters.retries).toBe(2);
    expect(server.peakInFlight).toBeLessThanOrEqual(2);
    p.dispose();
  });

  it('forgets a failed leaf directory read, so the next load tries again', async () => {
    writeFileSync(join(dir, 'broken-leaf.pmtiles'), readFileSync(join(dir, 'leaves.pmtiles')));
    let broken = true;
    server.override('/broken-leaf.pmtiles', (req, res) => {
      if (!broken || req.headers.range === 'bytes=0-16383') return false;
      res.writeHead(500).end();
      return true;
    });
    const p = await openPmtilesPyramid(`${server.baseUrl}/broken-leaf.pmtiles`, {
      http: new HttpClient({ ...fast, retries: 0 }),
      tileSize: 256,
    });
    const error = await expectCode(p.loadTile(0, 3, 3, live()), 'http-status');
    expect(error.retryable).toBe(true);
    broken = false;
    const loaded = await p.loadTile(0, 3, 3, live());
    expect(equalBytes(loaded!.data, tiles.find((t) => t.z === 2 && t.x === 3 && t.y === 3)!.texels)).toBe(
      true,
    );
    p.dispose();
  });

  it('aborts a tile read: an AbortError and the request cancelled', async () => {
    writeFileSync(join(dir, 'slow.pmtiles'), readFileSync(join(dir, 'earth.pmtiles')));
    let pending: import('node:http').ServerResponse | undefined;
    server.override('/slow.pmtiles', (req, res) => {
      if (req.headers.range === 'bytes=0-16383') return false;
      pending = res;
      return true;
    });
    const p = await openPmtilesPyramid(`${server.baseUrl}/slow.pmtiles`, {
      http: new HttpClient(fast),
      tileSize: 256,
    });
    const controller = new AbortController();
    const promise = p.loadTile(0, 0, 0, controller.signal);
    while (pending === undefined) await new Promise((r) => setTimeout(r, 5));
    const closed = new Promise((r) => pending!.on('close', r));
    controller.abort();
    expect(isAbortError(await errorOf(promise))).toBe(true);
    await closed;
    p.dispose();
    await expectCode(p.loadTile(0, 0, 0, live()), 'source-disposed');
  });
});

/** A pmtiles `Source` over bytes in memory that throws plain errors while `failing()`. */
function memorySource(file: Uint8Array, failing = () => false): Source {
  // A copy: a Node Buffer's slice is a view into a shared pool, not its own ArrayBuffer.
  const bytes = new Uint8Array(file);
  return {
    getKey: () => 'memory',
    getBytes: async (offset: number, length: number): Promise<RangeResponse> => {
      if (failing()) throw new Error('disk gone');
      return { data: bytes.slice(offset, offset + length).buffer as ArrayBuffer };
    },
  };
}

describe('PMTiles pyramid over a pmtiles Source', () => {
  it('the fixture archives read back with the pmtiles package alone', async () => {
    for (const name of ['earth.pmtiles', 'leaves.pmtiles']) {
      const reference = new PMTiles(memorySource(readFileSync(join(dir, name))));
      const header = await reference.getHeader();
      expect(header).toMatchObject({ minZoom: 0, maxZoom: MAX_ZOOM, numAddressedTiles: tiles.length });
      for (const tile of tiles) {
        const response = await reference.getZxy(tile.z, tile.x, tile.y);
        expect(equalBytes(new Uint8Array(response!.data), tile.bytes)).toBe(true);
      }
      expect(await reference.getZxy(OMITTED.z, OMITTED.x, OMITTED.y)).toBeUndefined();
    }
    const metadata = await new PMTiles(memorySource(readFileSync(join(dir, 'earth.pmtiles')))).getMetadata();
    expect(metadata).toEqual({ attribution: ATTRIBUTION });
  });

  it('reads any Source, typing its plain errors as retryable network errors', async () => {
    let fail = false;
    const p = await openPmtilesPyramid(memorySource(readFileSync(join(dir, 'leaves.pmtiles')), () => fail));
    expect(p.tileSize).toBe(256);
    const tile = tiles.find((t) => t.z === 1 && t.x === 0 && t.y === 1)!;
    expect(equalBytes((await p.loadTile(1, 0, 1, live()))!.data, tile.texels)).toBe(true);
    fail = true;
    const error = await expectCode(p.loadTile(0, 3, 2, live()), 'network');
    expect(error.retryable).toBe(true);
    p.dispose();
  });
});
