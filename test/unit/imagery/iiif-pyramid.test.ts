import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAbortError, TileSourceError } from '../../../src/core/errors';
import {
  type IiifPyramid,
  iiifTilePath,
  openIiifPyramid,
  parseIiifInfo,
} from '../../../src/sources/imagery/iiif-pyramid';
import type { ImageryTile } from '../../../src/sources/imagery/imagery-pyramid';
import { HttpClient, type HttpClientOptions } from '../../../src/sources/io/http/http-client';
import type { ImageDecoder } from '../../../src/sources/io/tile-decoder';
import {
  readLibvipsLevels,
  type StaticServer,
  serveDirectory,
  writeIiifFixture,
} from '../../support/imagery/deep-zoom-fixtures';
import { loadEarthImage, type RgbaImage } from '../../support/imagery/earth-image';

const live = () => new AbortController().signal;
const fast: HttpClientOptions = { retries: 0, timeoutMs: 5000 };

let dir: string;
let server: StaticServer;
let image: RgbaImage;
/** libvips' own level images, index 0 = full resolution. */
let reference: RgbaImage[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tessera-iiif-'));
  // The server comes first: a level 0 service's id (its tiles' base URL) is where it is served.
  server = await serveDirectory(dir);
  image = await loadEarthImage(3000, 1700, 8);
  const baseUrl = server.baseUrl;
  await writeIiifFixture(image, dir, 'v2-png', { tileSize: 512, format: 'png', version: 2, baseUrl });
  await writeIiifFixture(image, dir, 'v3-png', { tileSize: 512, format: 'png', version: 3, baseUrl });
  await writeIiifFixture(image, dir, 'v2-jpeg', { tileSize: 256, format: 'jpeg', version: 2, baseUrl });
  await writeIiifFixture(image, dir, 'v3-jpeg', { tileSize: 256, format: 'jpeg', version: 3, baseUrl });
  reference = await readLibvipsLevels(image, dir, 'reference');
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function region(level: RgbaImage, left: number, top: number, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row++) {
    const from = ((top + row) * level.width + left) * 4;
    out.set(level.data.subarray(from, from + width * 4), row * width * 4);
  }
  return out;
}

/** Mean absolute difference per channel between `tile`'s inner texels and `level`'s, shifted by (`dx`, `dy`). */
function meanError(tile: ImageryTile, level: RgbaImage, left: number, top: number, dx = 0, dy = 0): number {
  let sum = 0;
  for (let y = 1; y < tile.height - 1; y++) {
    for (let x = 1; x < tile.width - 1; x++) {
      const a = (y * tile.width + x) * 4;
      const b = ((top + y + dy) * level.width + left + x + dx) * 4;
      for (let c = 0; c < 4; c++) sum += Math.abs(tile.data[a + c] - level.data[b + c]);
    }
  }
  return sum / ((tile.width - 2) * (tile.height - 2) * 4);
}

/** Every tile file under `<dir>/<name>/`, as a path after the service id. */
function writtenTiles(name: string): string[] {
  const root = join(dir, name);
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((p) => p.endsWith('default.png') || p.endsWith('default.jpg'))
    .map((p) => relative(root, join(root, p)).split(sep).join('/'))
    .sort();
}

/** Every tile path the pyramid asks for. */
function requestedTiles(pyramid: IiifPyramid): string[] {
  const paths: string[] = [];
  pyramid.info.levels.forEach(({ width, height, tileWidth, tileHeight }, level) => {
    for (let y = 0; y * tileHeight < height; y++) {
      for (let x = 0; x * tileWidth < width; x++) paths.push(iiifTilePath(pyramid.service, 2 ** level, x, y));
    }
  });
  return paths.sort();
}

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

describe('openIiifPyramid', { timeout: 60_000 }, () => {
  it('reads levels from the scale factors, each the size libvips made', async () => {
    for (const name of ['v2-png', 'v3-png']) {
      const pyramid = await openIiifPyramid(`${server.baseUrl}/${name}/info.json`, {
        http: new HttpClient(fast),
        format: 'png',
      });
      expect(pyramid.service).toMatchObject({
        version: name === 'v2-png' ? 2 : 3,
        id: `${server.baseUrl}/${name}`,
        complianceLevel: 0,
        width: 3000,
        height: 1700,
        tileWidth: 512,
        tileHeight: 512,
        levelCount: 4,
      });
      expect(pyramid.info.levels.map((l) => [l.width, l.height, l.tileWidth])).toEqual(
        reference.slice(0, 4).map((r) => [r.width, r.height, 512]),
      );
      pyramid.dispose?.();
    }
  });

  it('asks for exactly the tile URLs sharp wrote, API 2 and 3', async () => {
    for (const name of ['v2-png', 'v3-png', 'v2-jpeg', 'v3-jpeg']) {
      const pyramid = await openIiifPyramid(`${server.baseUrl}/${name}/info.json`, {
        http: new HttpClient(fast),
        format: name === 'v3-png' ? 'png' : undefined,
      });
      expect(requestedTiles(pyramid), name).toEqual(writtenTiles(name));
      pyramid.dispose?.();
    }
  });

  it('picks the tile format from the info.json: API 2 formats, else JPEG', async () => {
    const open = (name: string) =>
      openIiifPyramid(`${server.baseUrl}/${name}/info.json`, { http: new HttpClient(fast) });
    expect((await open('v2-png')).service.format).toBe('png');
    expect((await open('v2-jpeg')).service.format).toBe('jpg');
    // sharp's API 3 info.json says nothing of PNG tiles: the option has to.
    expect((await open('v3-png')).service.format).toBe('jpg');
    expect((await open('v3-jpeg')).service.format).toBe('jpg');
  });

  it('returns every tile of every level as exactly its cell of the level libvips made (PNG)', async () => {
    for (const [name, options] of [
      ['v2-png', {}],
      ['v3-png', { format: 'png' as const }],
    ] as const) {
      const pyramid = await openIiifPyramid(`${server.baseUrl}/${name}/info.json`, {
        http: new HttpClient(fast),
        ...options,
      });
      for (let level = 0; level < pyramid.info.levels.length; level++) {
        const { width, height, tileWidth, tileHeight } = pyramid.info.levels[level];
        for (let y = 0; y * tileHeight < height; y++) {
          for (let x = 0; x * tileWidth < width; x++) {
            const tile = await pyramid.loadTile(level, x, y, live());
            const label = `${name} level ${level} tile ${x},${y}`;
            expect(tile, label).not.toBeNull();
            const cellWidth = Math.min(tileWidth, width - x * tileWidth);
            const cellHeight = Math.min(tileHeight, height - y * tileHeight);
            expect([tile!.width, tile!.height], label).toEqual([cellWidth, cellHeight]);
            const expected = region(reference[level], x * tileWidth, y * tileHeight, cellWidth, cellHeight);
            expect(Buffer.from(tile!.data).equals(Buffer.from(expected)), label).toBe(true);
          }
        }
      }
      pyramid.dispose?.();
    }
  });

  it('places JPEG tiles where libvips drew them', async () => {
    const pyramid = await openIiifPyramid(`${server.baseUrl}/v3-jpeg/info.json`, {
      http: new HttpClient(fast),
    });
    expect(pyramid.info.levels).toHaveLength(5);
    for (const [level, x, y] of [
      [0, 0, 0],
      [0, 5, 3],
      [0, 11, 6],
      [1, 5, 3],
      [3, 1, 0],
    ]) {
      const tile = (await pyramid.loadTile(level, x, y, live()))!;
      const ref = reference[level];
      const aligned = meanError(tile, ref, x * 256, y * 256);
      expect(aligned, `level ${level} tile ${x},${y}`).toBeLessThan(4);
      for (const [dx, dy] of [
        [-1, 0],
        [1, 0],
        [0, -1],
        [0, 1],
      ]) {
        expect(aligned).toBeLessThan(0.85 * meanError(tile, ref, x * 256, y * 256, dx, dy));
      }
    }
    pyramid.dispose?.();
  });

  it('resolves null for a missing tile (404) and for cells outside the grid', async () => {
    const pyramid = await openIiifPyramid(`${server.baseUrl}/v2-png/info.json`, {
      http: new HttpClient(fast),
    });
    unlinkSync(join(dir, 'v2-png', '1024,1024,1024,676', '512,', '0', 'default.png'));
    expect(await pyramid.loadTile(1, 1, 1, live())).toBeNull();
    const before = server.requests.length;
    expect(await pyramid.loadTile(0, 6, 0, live())).toBeNull();
    expect(await pyramid.loadTile(3, 0, 1, live())).toBeNull();
    expect(server.requests.length).toBe(before);
    await expect(pyramid.loadTile(4, 0, 0, live())).rejects.toBeInstanceOf(RangeError);
    pyramid.dispose?.();
  });

  it('takes the tiles from serviceId when the info.json names another host', async () => {
    const info = JSON.parse(readFileSync(join(dir, 'v2-png', 'info.json'), 'utf8'));
    info['@id'] = 'https://example.com/iiif/earth';
    writeFileSync(join(dir, 'v2-png', 'moved.json'), JSON.stringify(info));
    const pyramid = await openIiifPyramid(`${server.baseUrl}/v2-png/moved.json`, {
      http: new HttpClient(fast),
      serviceId: `${server.baseUrl}/v2-png/`,
    });
    expect(pyramid.service.id).toBe(`${server.baseUrl}/v2-png`);
    const tile = (await pyramid.loadTile(3, 0, 0, live()))!;
    expect([tile.width, tile.height]).toEqual([375, 213]);
    pyramid.dispose?.();
  });

  it('rejects an info.json that is not an image service it can read with a typed error', async () => {
    const serve = (name: string, body: unknown) =>
      writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body));
    const v2 = {
      '@context': 'http://iiif.io/api/image/2/context.json',
      '@id': 'http://x/i',
      protocol: 'http://iiif.io/api/image',
    };
    serve('not-json.json', '<html>');
    serve('array.json', [1, 2]);
    serve('v1.json', {
      '@context': 'http://library.stanford.edu/iiif/image-api/1.1/context.json',
      width: 10,
      height: 10,
    });
    serve('v11.json', {
      '@context': 'http://iiif.io/api/image/1/context.json',
      '@id': 'http://x/i',
      width: 10,
      height: 10,
    });
    serve('no-width.json', { ...v2, height: 10, tiles: [{ width: 256, scaleFactors: [1] }] });
    serve('no-scale-1.json', { ...v2, width: 10, height: 10, tiles: [{ width: 256, scaleFactors: [2, 4] }] });
    serve('level0-no-tiles.json', {
      ...v2,
      width: 10,
      height: 10,
      profile: ['http://iiif.io/api/image/2/level0.json'],
    });
    serve('huge-tiles.json', { ...v2, width: 10, height: 10, tiles: [{ width: 8192, scaleFactors: [1] }] });
    const open = (name: string) =>
      openIiifPyramid(`${server.baseUrl}/${name}`, { http: new HttpClient(fast) });
    await expectCode(open('not-json.json'), 'corrupt');
    await expectCode(open('array.json'), 'corrupt');
    await expectCode(open('v1.json'), 'corrupt');
    await expectCode(open('v11.json'), 'unsupported');
    await expectCode(open('no-width.json'), 'corrupt');
    await expectCode(open('no-scale-1.json'), 'unsupported');
    await expectCode(open('level0-no-tiles.json'), 'unsupported');
    await expectCode(open('huge-tiles.json'), 'oversized');
    expect((await expectCode(open('missing/info.json'), 'http-status')).retryable).toBe(false);
  });

  it('reports a failing tile server as retryable, and a disposed pyramid as such', async () => {
    const pyramid = await openIiifPyramid(`${server.baseUrl}/v2-png/info.json`, {
      http: new HttpClient(fast),
    });
    server.override('/v2-png/0,512,512,512/512,/0/default.png', (_req, res) => {
      res.writeHead(503).end();
      return true;
    });
    expect((await expectCode(pyramid.loadTile(0, 0, 1, live()), 'http-status')).retryable).toBe(true);
    pyramid.dispose?.();
    await expectCode(pyramid.loadTile(0, 0, 0, live()), 'source-disposed');
  });

  it('stops on abort: opening, and a tile whose server never answers', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const url = `${server.baseUrl}/v2-png/info.json`;
    expect(isAbortError(await errorOf(openIiifPyramid(url, { signal: aborted.signal })))).toBe(true);
    const pyramid = await openIiifPyramid(url, { http: new HttpClient(fast) });
    let reached!: () => void;
    const requested = new Promise<void>((resolve) => {
      reached = resolve;
    });
    server.override('/v2-png/1024,1024,512,512/512,/0/default.png', () => {
      reached();
      return true;
    });
    const controller = new AbortController();
    const pending = errorOf(pyramid.loadTile(0, 2, 2, controller.signal));
    await requested;
    controller.abort();
    expect(isAbortError(await pending)).toBe(true);
    pyramid.dispose?.();
  });

  it('pads a tile one texel short (a server rounding w, heights down) and refuses a smaller one', async () => {
    const short = (dw: number, dh: number): ImageDecoder => ({
      decodeImage: async () => {
        const width = 512 - dw;
        const height = 164 - dh;
        const data = new Uint8Array(width * height * 4);
        for (let i = 0; i < data.length; i++) data[i] = (i >> 2) % 251;
        return { width, height, data };
      },
    });
    const url = `${server.baseUrl}/v2-png/info.json`;
    const padded = await openIiifPyramid(url, { http: new HttpClient(fast), decoder: short(0, 1) });
    const tile = (await padded.loadTile(0, 0, 3, live()))!;
    expect([tile.width, tile.height]).toEqual([512, 164]);
    expect(
      Buffer.from(tile.data.subarray(163 * 2048)).equals(
        Buffer.from(tile.data.subarray(162 * 2048, 163 * 2048)),
      ),
    ).toBe(true);
    const refused = await openIiifPyramid(url, { http: new HttpClient(fast), decoder: short(2, 0) });
    await expectCode(refused.loadTile(0, 0, 3, live()), 'wrong-size');
  });
});

describe('parseIiifInfo', () => {
  const base = {
    '@context': 'http://iiif.io/api/image/3/context.json',
    id: 'https://images.example.org/iiif/3/abc',
    type: 'ImageService3',
    protocol: 'http://iiif.io/api/image',
    profile: 'level2',
    width: 6000,
    height: 4000,
  };

  it('stops the levels at the first missing power of two', () => {
    const info = parseIiifInfo(
      { ...base, tiles: [{ width: 512, height: 256, scaleFactors: [1, 2, 8, 16] }] },
      'x',
    );
    expect(info).toMatchObject({ levelCount: 2, tileWidth: 512, tileHeight: 256, complianceLevel: 2 });
  });

  it('cuts 512-texel tiles down to one tile from a level 1 or 2 service listing none', () => {
    expect(parseIiifInfo(base, 'x')).toMatchObject({ tileWidth: 512, levelCount: 5 });
  });

  it('prefers preferredFormats, then JPEG, and resolves a relative id against the info.json', () => {
    const tiles = [{ width: 512, scaleFactors: [1] }];
    expect(parseIiifInfo({ ...base, tiles, preferredFormats: ['webp', 'jpg'] }, 'x').format).toBe('webp');
    expect(parseIiifInfo({ ...base, tiles, extraFormats: ['png'] }, 'x').format).toBe('jpg');
    expect(parseIiifInfo({ ...base, tiles, profile: 'level0', extraFormats: ['png'] }, 'x').format).toBe(
      'png',
    );
    expect(parseIiifInfo({ ...base, tiles, id: 'abc/' }, 'https://h.org/iiif/info.json').id).toBe(
      'https://h.org/iiif/abc',
    );
  });

  it('builds API 3 sizes as w,h and API 2 as w,, with full for a tile over the whole image', () => {
    const service = { width: 3000, height: 1700, tileWidth: 512, tileHeight: 512, format: 'jpg' as const };
    expect(iiifTilePath({ ...service, version: 2 }, 2, 2, 1)).toBe('2048,1024,952,676/476,/0/default.jpg');
    expect(iiifTilePath({ ...service, version: 3 }, 2, 2, 1)).toBe('2048,1024,952,676/476,338/0/default.jpg');
    expect(iiifTilePath({ ...service, version: 3 }, 8, 0, 0)).toBe('full/375,213/0/default.jpg');
  });
});
