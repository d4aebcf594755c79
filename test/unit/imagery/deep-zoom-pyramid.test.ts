import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAbortError, TileSourceError } from '../../../src/core/errors';
import { openDeepZoomPyramid, parseDeepZoomDescriptor } from '../../../src/sources/imagery/deep-zoom-pyramid';
import type { ImageryTile } from '../../../src/sources/imagery/imagery-pyramid';
import { HttpClient, type HttpClientOptions } from '../../../src/sources/io/http/http-client';
import {
  readLibvipsLevels,
  type StaticServer,
  serveDirectory,
  writeDeepZoomFixture,
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
  dir = mkdtempSync(join(tmpdir(), 'tessera-dzi-'));
  image = await loadEarthImage(3000, 1700, 8);
  await writeDeepZoomFixture(image, dir, 'earth-png', { tileSize: 512, overlap: 1, format: 'png' });
  await writeDeepZoomFixture(image, dir, 'earth-jpeg', { tileSize: 254, overlap: 1, format: 'jpeg' });
  reference = await readLibvipsLevels(image, dir, 'reference');
  server = await serveDirectory(dir);
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The `width x height` texels of `level` from (`left`, `top`). */
function region(level: RgbaImage, left: number, top: number, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row++) {
    const from = ((top + row) * level.width + left) * 4;
    out.set(level.data.subarray(from, from + width * 4), row * width * 4);
  }
  return out;
}

/**
 * Mean absolute difference per channel between `tile`'s inner texels (one in from each edge) and
 * `level`'s texels at (`left` + `dx`, `top` + `dy`): a one-texel shift stays inside the level.
 */
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

describe('openDeepZoomPyramid', { timeout: 60_000 }, () => {
  it('states the levels Deep Zoom numbers, from full resolution down to 1 x 1', async () => {
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-png.dzi`, {
      http: new HttpClient(fast),
    });
    expect(pyramid.descriptor).toEqual({
      width: 3000,
      height: 1700,
      tileSize: 512,
      overlap: 1,
      format: 'png',
    });
    const levels = pyramid.info.levels;
    expect(levels).toHaveLength(13);
    expect(levels.map((l) => [l.width, l.height])).toEqual(reference.map((r) => [r.width, r.height]));
    expect(levels[0]).toEqual({ width: 3000, height: 1700, tileWidth: 512, tileHeight: 512 });
    expect(levels[1]).toMatchObject({ width: 1500, height: 850 });
    expect(levels[3]).toMatchObject({ width: 375, height: 213 });
    expect(levels[12]).toMatchObject({ width: 1, height: 1 });
    pyramid.dispose?.();
  });

  it('returns every tile of every level as exactly its cell of the level libvips made (PNG)', async () => {
    // libvips' full-resolution level is the image itself.
    expect(Buffer.from(reference[0].data).equals(Buffer.from(image.data))).toBe(true);
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-png.dzi`, {
      http: new HttpClient(fast),
    });
    for (let level = 0; level < pyramid.info.levels.length; level++) {
      const { width, height, tileWidth, tileHeight } = pyramid.info.levels[level];
      for (let y = 0; y * tileHeight < height; y++) {
        for (let x = 0; x * tileWidth < width; x++) {
          const tile = await pyramid.loadTile(level, x, y, live());
          expect(tile, `level ${level} tile ${x},${y}`).not.toBeNull();
          const cellWidth = Math.min(tileWidth, width - x * tileWidth);
          const cellHeight = Math.min(tileHeight, height - y * tileHeight);
          expect([tile!.width, tile!.height]).toEqual([cellWidth, cellHeight]);
          const expected = region(reference[level], x * tileWidth, y * tileHeight, cellWidth, cellHeight);
          expect(Buffer.from(tile!.data).equals(Buffer.from(expected)), `level ${level} tile ${x},${y}`).toBe(
            true,
          );
        }
      }
    }
    pyramid.dispose?.();
  });

  it('strips the overlap from interior, first and edge tiles', async () => {
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-png.dzi`, {
      http: new HttpClient(fast),
    });
    const fileSize = async (path: string) => {
      const meta = await sharp(join(dir, 'earth-png_files', path)).metadata();
      return [meta.width, meta.height];
    };
    // What the files hold: overlap on every side with a neighbour.
    expect(await fileSize('12/0_0.png')).toEqual([513, 513]);
    expect(await fileSize('12/1_1.png')).toEqual([514, 514]);
    expect(await fileSize('12/5_3.png')).toEqual([441, 165]);
    const cases: Array<[number, number, number, number]> = [
      [0, 0, 512, 512],
      [1, 1, 512, 512],
      [5, 1, 440, 512],
      [2, 3, 512, 164],
      [5, 3, 440, 164],
    ];
    for (const [x, y, w, h] of cases) {
      const tile = (await pyramid.loadTile(0, x, y, live()))!;
      expect([tile.width, tile.height]).toEqual([w, h]);
      expect(Buffer.from(tile.data).equals(Buffer.from(region(image, x * 512, y * 512, w, h)))).toBe(true);
    }
    pyramid.dispose?.();
  });

  it('places JPEG tiles (254-texel cells, overlap 1) where libvips drew them', async () => {
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-jpeg.dzi`, {
      http: new HttpClient(fast),
    });
    expect(pyramid.info.levels[0]).toMatchObject({ tileWidth: 254, tileHeight: 254 });
    for (const [level, x, y] of [
      [0, 0, 0],
      [0, 3, 2],
      [0, 11, 6],
      [1, 5, 3],
      [2, 2, 1],
    ]) {
      const tile = (await pyramid.loadTile(level, x, y, live()))!;
      const ref = reference[level];
      const aligned = meanError(tile, ref, x * 254, y * 254);
      expect(aligned, `level ${level} tile ${x},${y}`).toBeLessThan(4);
      // Any one-texel shift matches worse: the grain differs from texel to texel.
      for (const [dx, dy] of [
        [-1, -1],
        [0, -1],
        [1, -1],
        [-1, 0],
        [1, 0],
        [-1, 1],
        [0, 1],
        [1, 1],
      ]) {
        expect(aligned, `level ${level} tile ${x},${y} shifted ${dx},${dy}`).toBeLessThan(
          0.85 * meanError(tile, ref, x * 254, y * 254, dx, dy),
        );
      }
    }
    pyramid.dispose?.();
  });

  it('resolves null for a missing tile (404) and for cells outside the grid, without a request', async () => {
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-png.dzi`, {
      http: new HttpClient(fast),
    });
    unlinkSync(join(dir, 'earth-png_files', '11', '2_1.png'));
    expect(await pyramid.loadTile(1, 2, 1, live())).toBeNull();
    const before = server.requests.length;
    expect(await pyramid.loadTile(0, 6, 0, live())).toBeNull();
    expect(await pyramid.loadTile(0, 0, 4, live())).toBeNull();
    expect(server.requests.length).toBe(before);
    await expect(pyramid.loadTile(13, 0, 0, live())).rejects.toBeInstanceOf(RangeError);
    pyramid.dispose?.();
  });

  it('reads the JSON flavour and keeps the query string on tile URLs', async () => {
    writeFileSync(
      join(dir, 'earth-png.json'),
      JSON.stringify({
        Image: {
          xmlns: 'http://schemas.microsoft.com/deepzoom/2008',
          Format: 'png',
          Overlap: '1',
          TileSize: '512',
          Size: { Width: '3000', Height: '1700' },
        },
      }),
    );
    const urls: string[] = [];
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-png.json?v=2`, {
      http: new HttpClient({
        ...fast,
        fetch: (input, init) => {
          urls.push(String(input));
          return fetch(input, init);
        },
      }),
    });
    expect(pyramid.info.levels).toHaveLength(13);
    const tile = (await pyramid.loadTile(0, 1, 1, live()))!;
    expect(Buffer.from(tile.data).equals(Buffer.from(region(image, 512, 512, 512, 512)))).toBe(true);
    expect(urls.at(-1)).toBe(`${server.baseUrl}/earth-png_files/12/1_1.png?v=2`);
    pyramid.dispose?.();
  });

  it('follows a descriptor Url to the tiles', async () => {
    writeFileSync(
      join(dir, 'moved.json'),
      JSON.stringify({
        Image: {
          Url: 'earth-png_files/',
          Format: 'png',
          Overlap: 1,
          TileSize: 512,
          Size: { Width: 3000, Height: 1700 },
        },
      }),
    );
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/moved.json`, { http: new HttpClient(fast) });
    const tile = (await pyramid.loadTile(3, 0, 0, live()))!;
    expect([tile.width, tile.height]).toEqual([375, 213]);
    pyramid.dispose?.();
  });

  it('rejects a descriptor that is not one Deep Zoom image with a typed error', async () => {
    const serve = (name: string, body: string) => writeFileSync(join(dir, name), body);
    serve('html.dzi', '<!doctype html><html><body>Not found</body></html>');
    serve(
      'collection.dzc',
      '<?xml version="1.0"?><Collection MaxLevel="7" TileSize="256" Format="jpg" xmlns="http://schemas.microsoft.com/deepzoom/2008"><Items/></Collection>',
    );
    serve('no-tile-size.dzi', '<Image Format="jpg" Overlap="1"><Size Width="10" Height="10"/></Image>');
    serve(
      'bad-format.dzi',
      '<Image Format="../x" Overlap="1" TileSize="256"><Size Width="10" Height="10"/></Image>',
    );
    serve('bad-json.json', '{"Image": ');
    const open = (name: string) =>
      openDeepZoomPyramid(`${server.baseUrl}/${name}`, { http: new HttpClient(fast) });
    await expectCode(open('html.dzi'), 'corrupt');
    await expectCode(open('collection.dzc'), 'unsupported');
    await expectCode(open('no-tile-size.dzi'), 'corrupt');
    await expectCode(open('bad-format.dzi'), 'corrupt');
    await expectCode(open('bad-json.json'), 'corrupt');
    const missing = await expectCode(open('missing.dzi'), 'http-status');
    expect(missing.retryable).toBe(false);
  });

  it('reports a failing tile server as a retryable typed error, and a disposed pyramid as such', async () => {
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-png.dzi`, {
      http: new HttpClient(fast),
    });
    server.override('/earth-png_files/12/0_1.png', (_req, res) => {
      res.writeHead(503).end();
      return true;
    });
    const error = await expectCode(pyramid.loadTile(0, 0, 1, live()), 'http-status');
    expect(error.retryable).toBe(true);
    pyramid.dispose?.();
    await expectCode(pyramid.loadTile(0, 0, 0, live()), 'source-disposed');
  });

  it('stops on abort: opening, and a tile whose server never answers', async () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(
      isAbortError(
        await errorOf(openDeepZoomPyramid(`${server.baseUrl}/earth-png.dzi`, { signal: aborted.signal })),
      ),
    ).toBe(true);
    const pyramid = await openDeepZoomPyramid(`${server.baseUrl}/earth-png.dzi`, {
      http: new HttpClient(fast),
    });
    let reached!: () => void;
    const requested = new Promise<void>((resolve) => {
      reached = resolve;
    });
    server.override('/earth-png_files/12/2_2.png', () => {
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
});

describe('parseDeepZoomDescriptor', () => {
  it('reads namespace prefixes, single quotes and any attribute order', () => {
    const xml =
      "<?xml version='1.0'?>\n<dz:Image xmlns:dz='http://schemas.microsoft.com/deepzoom/2009' TileSize='254'\n Overlap='0' Format='jpeg'><dz:Size Height='1000' Width='2000'></dz:Size></dz:Image>";
    expect(parseDeepZoomDescriptor(xml)).toEqual({
      width: 2000,
      height: 1000,
      tileSize: 254,
      overlap: 0,
      format: 'jpeg',
    });
  });

  it('refuses tiles larger than the decoder accepts', () => {
    expect(() =>
      parseDeepZoomDescriptor(
        '<Image Format="png" Overlap="1" TileSize="8192"><Size Width="9000" Height="9000"/></Image>',
      ),
    ).toThrow(expect.objectContaining({ code: 'oversized' }));
  });
});
