import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAbortError, TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { openXyzPyramid, parseTileJson, XyzPyramid } from '../../../src/sources/imagery/xyz-pyramid';
import { HttpClient, type HttpClientOptions } from '../../../src/sources/io/http/http-client';
import {
  loadMercatorWorld,
  makeWebMapTiles,
  serveWebMap,
  type WebMapServer,
  type WebMapTile,
  writeXyzDirectory,
} from '../../support/imagery/web-map-fixtures';

const live = () => new AbortController().signal;
const fast: HttpClientOptions = { retries: 2, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 5000 };
const MAX_ZOOM = 2;
/** Left out of the fixture: a sparse pyramid. */
const OMITTED = { z: 2, x: 3, y: 1 };

let dir: string;
let server: WebMapServer;
let pngTiles: WebMapTile[];
let webpTiles: WebMapTile[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tessera-xyz-'));
  const world = await loadMercatorWorld(256 * 2 ** MAX_ZOOM);
  const omit = (z: number, x: number, y: number) => z === OMITTED.z && x === OMITTED.x && y === OMITTED.y;
  pngTiles = await makeWebMapTiles(world, { maxZoom: MAX_ZOOM, format: 'png', omit });
  webpTiles = await makeWebMapTiles(world, { maxZoom: MAX_ZOOM, format: 'webp' });
  writeXyzDirectory(pngTiles, join(dir, 'png'), 'png');
  writeXyzDirectory(webpTiles, join(dir, 'webp'), 'webp');
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

function pngPyramid(http: HttpClientOptions = fast): XyzPyramid {
  return new XyzPyramid({
    url: `${server.baseUrl}/png/{z}/{x}/{y}.png`,
    maxZoom: MAX_ZOOM,
    http: new HttpClient(http),
  });
}

describe('XyzPyramid URL templates', () => {
  it('expands {z}/{x}/{y}, {-y} and the TMS scheme', () => {
    const xyz = new XyzPyramid({ url: 'https://t.example/{z}/{x}/{y}.png', maxZoom: 5 });
    expect(xyz.tileUrl(3, 2, 1)).toBe('https://t.example/3/2/1.png');
    const flipped = new XyzPyramid({ url: 'https://t.example/{z}/{x}/{-y}.png', maxZoom: 5 });
    expect(flipped.tileUrl(3, 2, 1)).toBe('https://t.example/3/2/6.png');
    const tms = new XyzPyramid({ url: 'https://t.example/{z}/{x}/{y}.png', maxZoom: 5, scheme: 'tms' });
    expect(tms.tileUrl(3, 2, 1)).toBe('https://t.example/3/2/6.png');
    expect(tms.tileUrl(0, 0, 0)).toBe('https://t.example/0/0/0.png');
    // {-y} is the bottom-up row whatever the scheme.
    const both = new XyzPyramid({ url: '/{z}/{x}/{-y}', maxZoom: 5, scheme: 'tms' });
    expect(both.tileUrl(3, 2, 1)).toBe('/3/2/6');
    for (const p of [xyz, flipped, tms, both]) p.dispose();
  });

  it('rotates subdomains deterministically, the same host for the same tile', () => {
    const p = new XyzPyramid({ url: 'https://{s}.tile.example/{z}/{x}/{y}.png{r}', maxZoom: 4 });
    expect(p.tileUrl(2, 0, 0)).toBe('https://a.tile.example/2/0/0.png');
    expect(p.tileUrl(2, 1, 0)).toBe('https://b.tile.example/2/1/0.png');
    expect(p.tileUrl(2, 1, 1)).toBe('https://c.tile.example/2/1/1.png');
    expect(p.tileUrl(2, 3, 0)).toBe('https://a.tile.example/2/3/0.png');
    expect(p.tileUrl(2, 1, 1)).toBe(p.tileUrl(2, 1, 1));
    const hosts = new Set<string>();
    for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) hosts.add(new URL(p.tileUrl(2, x, y)).host);
    expect(hosts.size).toBe(3);
    const listed = new XyzPyramid({
      url: 'https://{s}.example/{z}/{x}/{y}',
      maxZoom: 4,
      subdomains: ['t0', 't1'],
    });
    expect(listed.tileUrl(1, 1, 0)).toBe('https://t1.example/1/1/0');
    expect(listed.tileUrl(1, 1, 1)).toBe('https://t0.example/1/1/1');
    p.dispose();
    listed.dispose();
  });

  it('expands a WMTS RESTful template, with TileMatrix identifiers from an option', () => {
    const wmts = new XyzPyramid({
      url: 'https://wmts.example/layer/default/GoogleMapsCompatible/{TileMatrix}/{TileRow}/{TileCol}.jpg',
      maxZoom: 5,
    });
    expect(wmts.tileUrl(4, 7, 3)).toBe('https://wmts.example/layer/default/GoogleMapsCompatible/4/3/7.jpg');
    const named = new XyzPyramid({
      url: 'https://wmts.example/{TileMatrix}/{TileRow}/{TileCol}',
      maxZoom: 5,
      tileMatrix: (z) => `EPSG:3857:${z}`,
      scheme: 'tms', // TileRow counts from the top whatever the scheme
    });
    expect(named.tileUrl(4, 7, 3)).toBe('https://wmts.example/EPSG:3857:4/3/7');
    wmts.dispose();
    named.dispose();
  });

  it('rejects templates that do not address a tile, and impossible options', () => {
    const invalid = (options: ConstructorParameters<typeof XyzPyramid>[0]) => {
      const error = (() => {
        try {
          new XyzPyramid(options).dispose();
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(TesseraConfigError);
      return (error as TesseraConfigError).code;
    };
    expect(invalid({ url: '/{z}/{x}.png', maxZoom: 3 })).toBe('invalid-option');
    expect(invalid({ url: '/{z}/{x}/{y}/{apikey}.png', maxZoom: 3 })).toBe('invalid-option');
    expect(invalid({ url: '/{s}/{z}/{x}/{y}', maxZoom: 3, subdomains: '' })).toBe('invalid-option');
    expect(invalid({ url: '/{z}/{x}/{y}', maxZoom: 3, minZoom: 4 })).toBe('invalid-option');
    expect(invalid({ url: '/{z}/{x}/{y}', maxZoom: 31 })).toBe('invalid-option');
    expect(invalid({ url: '/{z}/{x}/{y}', maxZoom: 3, tileSize: 300 })).toBe('not-power-of-two');
  });
});

describe('XyzPyramid levels', () => {
  it('maps level i to zoom maxZoom - i, 2^(maxZoom - i) tiles of tileSize per side', () => {
    const p = new XyzPyramid({
      url: '/{z}/{x}/{y}.png',
      minZoom: 1,
      maxZoom: 4,
      tileSize: 512,
      attribution: '© Test',
    });
    expect(p.info.levels).toEqual([
      { width: 8192, height: 8192, tileWidth: 512, tileHeight: 512 },
      { width: 4096, height: 4096, tileWidth: 512, tileHeight: 512 },
      { width: 2048, height: 2048, tileWidth: 512, tileHeight: 512 },
      { width: 1024, height: 1024, tileWidth: 512, tileHeight: 512 },
    ]);
    expect(p.info.wrapX).toBe('repeat');
    expect(p.info.attribution).toBe('© Test');
    p.dispose();
  });

  it('requests zoom maxZoom - level, and no request for tiles outside the world', async () => {
    const p = pngPyramid();
    const before = server.requests.length;
    await p.loadTile(1, 1, 0, live());
    expect(server.requests.slice(before)).toEqual(['/png/1/1/0.png']);
    expect(await p.loadTile(2, 1, 0, live())).toBeNull(); // zoom 0 has one tile
    expect(await p.loadTile(0, -1, 0, live())).toBeNull();
    expect(await p.loadTile(0, 0, 4, live())).toBeNull();
    expect(server.requests.length).toBe(before + 1);
    await expect(p.loadTile(3, 0, 0, live())).rejects.toBeInstanceOf(RangeError);
    p.dispose();
  });
});

describe('XyzPyramid tiles over HTTP', { timeout: 30_000 }, () => {
  it('returns the texels of every PNG tile exactly', async () => {
    const p = pngPyramid();
    for (const tile of pngTiles) {
      const loaded = await p.loadTile(MAX_ZOOM - tile.z, tile.x, tile.y, live());
      expect(loaded).not.toBeNull();
      expect(loaded!.width).toBe(256);
      expect(loaded!.height).toBe(256);
      expect(Buffer.from(loaded!.data).equals(Buffer.from(tile.texels))).toBe(true);
    }
    p.dispose();
  });

  it('decodes WebP tiles close to what was encoded', async () => {
    const p = new XyzPyramid({
      url: `${server.baseUrl}/webp/{z}/{x}/{y}.webp`,
      maxZoom: MAX_ZOOM,
      http: new HttpClient(fast),
    });
    const tile = webpTiles.find((t) => t.z === 2 && t.x === 2 && t.y === 1)!;
    const loaded = (await p.loadTile(0, 2, 1, live()))!;
    let sum = 0;
    for (let i = 0; i < loaded.data.length; i++) sum += Math.abs(loaded.data[i] - tile.texels[i]);
    expect(sum / loaded.data.length).toBeLessThan(4);
    p.dispose();
  });

  it('resolves null for a missing tile (404), an empty body and 204, counting them', async () => {
    const p = pngPyramid();
    expect(await p.loadTile(0, OMITTED.x, OMITTED.y, live())).toBeNull();
    server.override('/png/1/0/1.png', (_req, res) => {
      res.writeHead(200, { 'content-length': 0 }).end();
      return true;
    });
    server.override('/png/1/1/1.png', (_req, res) => {
      res.writeHead(204).end();
      return true;
    });
    expect(await p.loadTile(1, 0, 1, live())).toBeNull();
    expect(await p.loadTile(1, 1, 1, live())).toBeNull();
    expect(p.counters.missing).toBe(3);
    expect(p.counters.retries).toBe(0);
    p.dispose();
  });

  it('retries a 503 and then succeeds', async () => {
    let failed = false;
    server.override('/png/2/0/3.png', (_req, res) => {
      if (failed) return false;
      failed = true;
      res.writeHead(503).end();
      return true;
    });
    const p = pngPyramid();
    const before = server.count('/png/2/0/3.png');
    const loaded = await p.loadTile(0, 0, 3, live());
    const expected = pngTiles.find((t) => t.z === 2 && t.x === 0 && t.y === 3)!;
    expect(Buffer.from(loaded!.data).equals(Buffer.from(expected.texels))).toBe(true);
    expect(server.count('/png/2/0/3.png') - before).toBe(2);
    expect(p.counters).toMatchObject({ requests: 2, retries: 1, failures: 1, missing: 0 });
    p.dispose();
  });

  it('gives a 404 for a tile as null but a 403 as a non-retryable http-status error', async () => {
    server.override('/png/2/1/3.png', (_req, res) => {
      res.writeHead(403).end();
      return true;
    });
    const p = pngPyramid();
    const before = server.count('/png/2/1/3.png');
    const error = await expectCode(p.loadTile(0, 1, 3, live()), 'http-status');
    expect(error.retryable).toBe(false);
    expect(server.count('/png/2/1/3.png') - before).toBe(1);
    p.dispose();
  });

  it('a dead server: one typed retryable error per tile after the retry limit', async () => {
    const dead = await serveWebMap(dir);
    const url = `${dead.baseUrl}/png/{z}/{x}/{y}.png`;
    await dead.close();
    const p = new XyzPyramid({ url, maxZoom: MAX_ZOOM, http: new HttpClient(fast) });
    const results = await Promise.allSettled([0, 1, 2, 3].map((x) => p.loadTile(0, x, 0, live())));
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const error = (result as PromiseRejectedResult).reason as TileSourceError;
      expect(error).toBeInstanceOf(TileSourceError);
      expect(error.code).toBe('network');
      expect(error.retryable).toBe(true);
    }
    expect(p.counters).toMatchObject({ requests: 4 * 3, retries: 4 * 2, failures: 4 * 3 });
    p.dispose();
  });

  it('never has more requests in flight per host than the shared client allows', async () => {
    const slow = await serveWebMap(dir, { delayMs: 20 });
    try {
      const client = new HttpClient({ ...fast, maxRequestsPerHost: 3 });
      const png = new XyzPyramid({
        url: `${slow.baseUrl}/png/{z}/{x}/{y}.png`,
        maxZoom: MAX_ZOOM,
        http: client,
      });
      const webp = new XyzPyramid({
        url: `${slow.baseUrl}/webp/{z}/{x}/{y}.webp`,
        maxZoom: MAX_ZOOM,
        http: client,
      });
      const loads: Promise<unknown>[] = [];
      for (let y = 0; y < 4; y++) {
        for (let x = 0; x < 4; x++) {
          loads.push(png.loadTile(0, x, y, live()), webp.loadTile(0, x, y, live()));
        }
      }
      const tiles = await Promise.all(loads);
      expect(tiles.filter((t) => t === null)).toHaveLength(1); // the omitted one
      expect(slow.requests).toHaveLength(32);
      expect(slow.peakInFlight).toBe(3);
      png.dispose();
      webp.dispose();
    } finally {
      await slow.close();
    }
  });

  it('aborts a load: the promise rejects with an AbortError and the request is cancelled', async () => {
    let pending: import('node:http').ServerResponse | undefined;
    server.override('/png/2/3/3.png', (_req, res) => {
      pending = res;
      return true;
    });
    const p = pngPyramid();
    const controller = new AbortController();
    const promise = p.loadTile(0, 3, 3, controller.signal);
    while (pending === undefined) await new Promise((r) => setTimeout(r, 5));
    const closed = new Promise((r) => pending!.on('close', r));
    controller.abort();
    expect(isAbortError(await errorOf(promise))).toBe(true);
    await closed;
    expect(p.counters.retries).toBe(0);
    // Already aborted: no request at all.
    const before = server.requests.length;
    expect(isAbortError(await errorOf(p.loadTile(0, 0, 0, controller.signal)))).toBe(true);
    expect(server.requests.length).toBe(before);
    p.dispose();
  });

  it('rejects a tile of the wrong size with wrong-size, and loads after dispose', async () => {
    const small = await sharp({ create: { width: 128, height: 128, channels: 4, background: '#f00' } })
      .png()
      .toBuffer();
    server.override('/png/2/2/3.png', (_req, res) => {
      res.writeHead(200, { 'content-length': small.length }).end(small);
      return true;
    });
    const p = pngPyramid();
    const error = await expectCode(p.loadTile(0, 2, 3, live()), 'wrong-size');
    expect(error.retryable).toBe(false);
    p.dispose();
    await expectCode(p.loadTile(0, 0, 0, live()), 'source-disposed');
  });
});

describe('openXyzPyramid: a template or a TileJSON', () => {
  it('reads a TileJSON (tiles relative to it, zooms, scheme, attribution, bounds) and fetches no tile outside its bounds', async () => {
    writeFileSync(
      join(dir, 'png', 'tiles.json'),
      JSON.stringify({
        tilejson: '3.0.0',
        tiles: ['{z}/{x}/{y}.png'],
        minzoom: 0,
        maxzoom: MAX_ZOOM,
        attribution: 'Earth, test tiles',
        // The eastern hemisphere, north of the equator.
        bounds: [0, 0, 180, 85],
      }),
    );
    const pyramid = await openXyzPyramid(`${server.baseUrl}/png/tiles.json`, { http: new HttpClient(fast) });
    expect(pyramid.tileUrl(2, 3, 1)).toBe(`${server.baseUrl}/png/2/3/1.png`);
    expect([pyramid.maxZoom, pyramid.minZoom, pyramid.info.attribution]).toEqual([
      MAX_ZOOM,
      0,
      'Earth, test tiles',
    ]);
    expect(pyramid.bounds).toEqual([0, 0, 180, 85]);
    const before = server.requests.length;
    // z2 (level 0): tile (2, 0) is inside, (0, 3) (west, south) outside: missing with no request.
    expect(await pyramid.loadTile(0, 2, 0, live())).not.toBeNull();
    expect(await pyramid.loadTile(0, 0, 3, live())).toBeNull();
    expect(server.requests.slice(before)).toEqual(['/png/2/2/0.png']);
    expect(pyramid.counters.missing).toBe(1);
    pyramid.dispose();
  });

  it('takes a template with maxZoom, and refuses one without', async () => {
    const pyramid = await openXyzPyramid('https://t.example/{z}/{x}/{y}.png', { maxZoom: 4 });
    expect(pyramid.maxZoom).toBe(4);
    pyramid.dispose();
    const error = await errorOf(openXyzPyramid('https://t.example/{z}/{x}/{y}.png'));
    expect(error).toBeInstanceOf(TesseraConfigError);
  });

  it('says corrupt for a TileJSON without tiles, with bad zooms or bounds', () => {
    const bad = [
      {},
      { tiles: [] },
      { tiles: ['a/{z}/{x}/{y}'], maxzoom: 31 },
      { tiles: ['{z}/{x}/{y}'], bounds: [0, 0, 1] },
    ];
    for (const json of bad) {
      expect(() => parseTileJson(json, 'https://t.example/tiles.json')).toThrowError(
        expect.objectContaining({ code: 'corrupt' }),
      );
    }
    expect(
      parseTileJson({ tiles: ['../t/{z}/{x}/{y}.jpg'], scheme: 'tms' }, 'https://t.example/a/tiles.json'),
    ).toMatchObject({
      tiles: 'https://t.example/t/{z}/{x}/{y}.jpg',
      scheme: 'tms',
      minZoom: 0,
      maxZoom: 30,
    });
  });
});
