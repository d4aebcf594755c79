import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAbortError, TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { type CogDecoderPool, openCogPyramid } from '../../../src/sources/imagery/cog-pyramid';
import type { ImageryTile } from '../../../src/sources/imagery/imagery-pyramid';
import { ImageryTileSource } from '../../../src/sources/imagery/imagery-tile-source';
import { HttpClient } from '../../../src/sources/io/http/http-client';
import { MemoryRangeReader, type RangeReader } from '../../../src/sources/io/range-reader';
import {
  type RangeServer,
  serveRanges,
  writeSharpCog,
  writeTiledTiff,
} from '../../support/imagery/cog-fixtures';
import { loadEarthImage, type RgbaImage } from '../../support/imagery/earth-image';

const live = () => new AbortController().signal;

let geotiff: typeof import('geotiff');
let image: RgbaImage;
/** Box-downsampled references, index 0 = the image itself. */
let reference: RgbaImage[];
let deflate: Uint8Array;
let lzw: Uint8Array;

beforeAll(async () => {
  geotiff = await importGeotiffInTestThread();
  image = await loadEarthImage(1300, 700, 8);
  // Some translucency, so alpha is checked as well as colour.
  for (let y = 300; y < 400; y++) {
    for (let x = 600; x < 700; x++) image.data[(y * image.width + x) * 4 + 3] = (x * 7 + y) & 255;
  }
  reference = [image];
  for (let k = 1; k < 4; k++) reference.push(boxHalve(reference[k - 1]));
  deflate = await writeSharpCog(image, { compression: 'deflate' });
  lzw = await writeSharpCog(image, { compression: 'lzw' });
}, 60_000);

/**
 * geotiff's worker shim (web-worker) throws on import in a worker thread without `workerData`,
 * which is where vitest's threads pool runs this file; with a global `Worker` present it takes
 * that instead. The stand-in is removed at once so nothing else here sees a `Worker`.
 */
async function importGeotiffInTestThread(): Promise<typeof import('geotiff')> {
  const global = globalThis as { Worker?: unknown };
  if (global.Worker !== undefined) return import('geotiff');
  global.Worker = class {
    constructor() {
      throw new Error('no Web Workers in this test thread');
    }
  };
  try {
    return await import('geotiff');
  } finally {
    delete global.Worker;
  }
}

/** Halves `source` with a 2 x 2 box, rounding up the size (edge texels repeat). */
function boxHalve(source: RgbaImage): RgbaImage {
  const width = Math.ceil(source.width / 2);
  const height = Math.ceil(source.height / 2);
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 4; c++) {
        let sum = 0;
        for (let dy = 0; dy < 2; dy++) {
          for (let dx = 0; dx < 2; dx++) {
            const sx = Math.min(source.width - 1, 2 * x + dx);
            const sy = Math.min(source.height - 1, 2 * y + dy);
            sum += source.data[(sy * source.width + sx) * 4 + c];
          }
        }
        data[(y * width + x) * 4 + c] = Math.round(sum / 4);
      }
    }
  }
  return { width, height, data };
}

/** The texels of `tile` inside its cell (`x`, `y`) of side `cell`, and those of `expected` there. */
function cellPair(
  tile: ImageryTile,
  expected: RgbaImage,
  x: number,
  y: number,
  cell: number,
): [Uint8Array, Uint8Array] {
  const w = Math.min(cell, expected.width - x * cell);
  const h = Math.min(cell, expected.height - y * cell);
  const got = new Uint8Array(w * h * 4);
  const want = new Uint8Array(w * h * 4);
  for (let row = 0; row < h; row++) {
    const t = row * tile.width * 4;
    const e = ((y * cell + row) * expected.width + x * cell) * 4;
    got.set(tile.data.subarray(t, t + w * 4), row * w * 4);
    want.set(expected.data.subarray(e, e + w * 4), row * w * 4);
  }
  return [got, want];
}

/** Bytes that differ (0 when equal; a count is a readable failure, unlike a huge array diff). */
function differing(got: Uint8Array, want: Uint8Array): number {
  expect(got.length).toBe(want.length);
  let n = 0;
  for (let i = 0; i < got.length; i++) if (got[i] !== want[i]) n++;
  return n;
}

/** The first `n` texels of `tile`, each as `[r, g, b, a]`. */
function firstTexels(tile: ImageryTile, n: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < n; i++) out.push(Array.from(tile.data.subarray(i * 4, i * 4 + 4)));
  return out;
}

function psnr(got: Uint8Array, want: Uint8Array, channels = [0, 1, 2]): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < got.length; i += 4) {
    for (const c of channels) {
      const d = got[i + c] - want[i + c];
      sum += d * d;
      n++;
    }
  }
  return 10 * Math.log10((255 * 255) / (sum / n));
}

function meanError(got: Uint8Array, want: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < got.length; i++) sum += Math.abs(got[i] - want[i]);
  return sum / got.length;
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

function bufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer;
}

describe('openCogPyramid: levels', () => {
  it('makes every halving overview a level, with its tile grid', async () => {
    const pyramid = await openCogPyramid(bufferOf(deflate));
    const { levels } = pyramid.info;
    expect(levels.length).toBeGreaterThanOrEqual(3);
    expect(levels[0]).toEqual({ width: 1300, height: 700, tileWidth: 256, tileHeight: 256 });
    levels.forEach((level, k) => {
      expect(Math.abs(level.width - Math.ceil(1300 / 2 ** k))).toBeLessThanOrEqual(1);
      expect(Math.abs(level.height - Math.ceil(700 / 2 ** k))).toBeLessThanOrEqual(1);
      expect(level.tileWidth).toBe(256);
    });
    expect(pyramid.info.wrapX).toBe('clamp');
    expect(pyramid.info.attribution).toBeUndefined();
    pyramid.dispose();
  });

  it('skips mask and non-halving IFDs and stops at the first missing level', async () => {
    const grey = (w: number, h: number) => new Uint8Array(w * h).fill(100);
    const bytes = writeTiledTiff([
      { width: 1024, height: 512, samples: grey(1024, 512), samplesPerPixel: 1, photometric: 1 },
      {
        width: 1024,
        height: 512,
        samples: grey(1024, 512),
        samplesPerPixel: 1,
        photometric: 4,
        newSubfileType: 5,
      },
      { width: 512, height: 256, samples: grey(512, 256), samplesPerPixel: 1, photometric: 1 },
      { width: 300, height: 150, samples: grey(300, 150), samplesPerPixel: 1, photometric: 1 },
      { width: 128, height: 64, samples: grey(128, 64), samplesPerPixel: 1, photometric: 1, tileSize: 64 },
    ]);
    const pyramid = await openCogPyramid(bufferOf(bytes));
    expect(pyramid.info.levels.map((l) => [l.width, l.height])).toEqual([
      [1024, 512],
      [512, 256],
    ]);
  });
});

describe('openCogPyramid: texels', () => {
  it.each([
    ['deflate', () => deflate],
    ['lzw', () => lzw],
  ])('%s tiles hold the source texels exactly, edge tiles included', async (_name, bytes) => {
    const pyramid = await openCogPyramid(bufferOf(bytes()));
    const across = Math.ceil(1300 / 256);
    const down = Math.ceil(700 / 256);
    for (const [x, y] of [
      [0, 0],
      [2, 1],
      [across - 1, 0],
      [0, down - 1],
      [across - 1, down - 1],
    ]) {
      const tile = (await pyramid.loadTile(0, x, y, live())) as ImageryTile;
      expect(tile.width).toBe(256);
      expect(tile.height).toBe(256);
      expect(tile.data.length).toBe(256 * 256 * 4);
      const [got, want] = cellPair(tile, image, x, y, 256);
      expect(differing(got, want)).toBe(0);
    }
  });

  it('overview levels match a box-downsampled image', async () => {
    const pyramid = await openCogPyramid(bufferOf(deflate));
    for (let k = 1; k < Math.min(3, pyramid.info.levels.length); k++) {
      const tile = (await pyramid.loadTile(k, 0, 0, live())) as ImageryTile;
      const [got, want] = cellPair(tile, reference[k], 0, 0, 200);
      expect(meanError(got, want)).toBeLessThan(2);
    }
  });

  it('JPEG tiles are within a PSNR bound of the source, alpha opaque', async () => {
    const bytes = await writeSharpCog(image, { compression: 'jpeg', channels: 3, quality: 90 });
    const pyramid = await openCogPyramid(bufferOf(bytes));
    for (const [x, y] of [
      [0, 0],
      [3, 1],
      [5, 2],
    ]) {
      const tile = (await pyramid.loadTile(0, x, y, live())) as ImageryTile;
      const [got, want] = cellPair(tile, image, x, y, 256);
      expect(psnr(got, want)).toBeGreaterThan(30);
      let translucent = 0;
      for (let i = 3; i < got.length; i += 4) if (got[i] !== 255) translucent++;
      expect(translucent).toBe(0);
    }
  });

  it('WebP tiles decode (with the default image decoder) within a PSNR bound', async () => {
    const bytes = await writeSharpCog(image, { compression: 'webp', quality: 90 });
    const pyramid = await openCogPyramid(bufferOf(bytes));
    const tile = (await pyramid.loadTile(0, 1, 1, live())) as ImageryTile;
    const [got, want] = cellPair(tile, image, 1, 1, 256);
    expect(psnr(got, want)).toBeGreaterThan(30);
    pyramid.dispose();
  });

  it('greyscale: grey texels, GDAL_NODATA transparent', async () => {
    const samples = new Uint8Array(300 * 200);
    for (let i = 0; i < samples.length; i++) samples[i] = i % 251;
    const bytes = writeTiledTiff([
      { width: 300, height: 200, samples, samplesPerPixel: 1, photometric: 1, nodata: '0', compression: 8 },
    ]);
    const pyramid = await openCogPyramid(bufferOf(bytes));
    const tile = (await pyramid.loadTile(0, 0, 0, live())) as ImageryTile;
    for (const i of [0, 1, 250, 251, 252, 300 + 5]) {
      const v = samples[Math.floor(i / 256) * 300 + (i % 256)];
      const t = i * 4;
      const expected = v === 0 ? [0, 0, 0, 0] : [v, v, v, 255];
      expect(Array.from(tile.data.subarray(t, t + 4))).toEqual(expected);
    }
  });

  it('16-bit and float bands go through the ramp; nodata and NaN are transparent', async () => {
    const ramp = [
      { value: 0, color: [0, 0, 255] as const },
      { value: 1000, color: [255, 255, 255] as const },
      { value: 2000, color: [255, 0, 0, 128] as const },
    ];
    const u16 = new Uint16Array(64 * 64);
    u16.set([0, 500, 1000, 1500, 2000, 5000, 65535]);
    const f32 = new Float32Array(64 * 64);
    f32.set([0, 500, 1000, 1500, 2000, -9999, Number.NaN, -1]);
    const expectedU16 = [
      [0, 0, 255, 255],
      [128, 128, 255, 255],
      [255, 255, 255, 255],
      [255, 128, 128, 192],
      [255, 0, 0, 128],
      [255, 0, 0, 128],
      [0, 0, 0, 0],
    ];
    const u16Pyramid = await openCogPyramid(
      bufferOf(
        writeTiledTiff([
          {
            width: 64,
            height: 64,
            tileSize: 64,
            samples: u16,
            samplesPerPixel: 1,
            photometric: 1,
            nodata: '65535',
          },
        ]),
      ),
      { ramp },
    );
    const a = (await u16Pyramid.loadTile(0, 0, 0, live())) as ImageryTile;
    expect(firstTexels(a, expectedU16.length)).toEqual(expectedU16);
    const floatPyramid = await openCogPyramid(
      bufferOf(
        writeTiledTiff([
          {
            width: 64,
            height: 64,
            tileSize: 64,
            samples: f32,
            samplesPerPixel: 1,
            photometric: 1,
            nodata: '-9999',
            compression: 8,
          },
        ]),
      ),
      { ramp },
    );
    const b = (await floatPyramid.loadTile(0, 0, 0, live())) as ImageryTile;
    const expectedF32 = [...expectedU16.slice(0, 5), [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 255, 255]];
    expect(firstTexels(b, expectedF32.length)).toEqual(expectedF32);
    // Without a ramp: grey over the type's range; `nodata: null` ignores the file's value.
    const plain = await openCogPyramid(
      bufferOf(
        writeTiledTiff([
          {
            width: 64,
            height: 64,
            tileSize: 64,
            samples: u16,
            samplesPerPixel: 1,
            photometric: 1,
            nodata: '65535',
          },
        ]),
      ),
      { nodata: null },
    );
    const c = (await plain.loadTile(0, 0, 0, live())) as ImageryTile;
    expect(Array.from(c.data.subarray(24, 28))).toEqual([255, 255, 255, 255]);
    expect(Array.from(c.data.subarray(4, 8))).toEqual([2, 2, 2, 255]);
  });

  it('palette images use their ColorMap; premultiplied RGBA is un-premultiplied', async () => {
    const colorMap = new Uint16Array(3 * 256);
    colorMap[1] = 0xff00; // red of entry 1
    colorMap[256 + 2] = 0x8000; // green of entry 2
    const indices = new Uint8Array(32 * 32);
    indices.set([0, 1, 2]);
    const palette = await openCogPyramid(
      bufferOf(
        writeTiledTiff([
          {
            width: 32,
            height: 32,
            tileSize: 32,
            samples: indices,
            samplesPerPixel: 1,
            photometric: 3,
            colorMap,
          },
        ]),
      ),
    );
    const p = (await palette.loadTile(0, 0, 0, live())) as ImageryTile;
    expect(Array.from(p.data.subarray(0, 12))).toEqual([0, 0, 0, 255, 255, 0, 0, 255, 0, 128, 0, 255]);

    const rgba = new Uint8Array(32 * 32 * 4);
    rgba.set([100, 50, 0, 128, 10, 20, 30, 255, 0, 0, 0, 0]);
    const premultiplied = await openCogPyramid(
      bufferOf(
        writeTiledTiff([
          {
            width: 32,
            height: 32,
            tileSize: 32,
            samples: rgba,
            samplesPerPixel: 4,
            photometric: 2,
            extraSamples: [1],
          },
        ]),
      ),
    );
    const q = (await premultiplied.loadTile(0, 0, 0, live())) as ImageryTile;
    expect(Array.from(q.data.subarray(0, 12))).toEqual([199, 100, 0, 128, 10, 20, 30, 255, 0, 0, 0, 0]);
  });
});

describe('openCogPyramid: missing tiles and errors', () => {
  it('resolves null outside the grid, past the last level and for sparse tiles', async () => {
    const pyramid = await openCogPyramid(bufferOf(deflate));
    expect(await pyramid.loadTile(0, 6, 0, live())).toBeNull();
    expect(await pyramid.loadTile(0, 0, 3, live())).toBeNull();
    expect(await pyramid.loadTile(0, -1, 0, live())).toBeNull();
    expect(await pyramid.loadTile(pyramid.info.levels.length, 0, 0, live())).toBeNull();
    const sparse = await openCogPyramid(
      bufferOf(
        writeTiledTiff([
          {
            width: 64,
            height: 32,
            tileSize: 32,
            samples: new Uint8Array(64 * 32).fill(9),
            samplesPerPixel: 1,
            photometric: 1,
            emptyTiles: [1],
          },
        ]),
      ),
    );
    expect(await sparse.loadTile(0, 1, 0, live())).toBeNull();
    expect(await sparse.loadTile(0, 0, 0, live())).not.toBeNull();
  });

  it('rejects a stripped TIFF and a file that is not a TIFF with typed errors', async () => {
    const stripped = await writeSharpCog(image, { compression: 'lzw', tiled: false });
    const error = await errorOf(openCogPyramid(bufferOf(stripped)));
    expect(error).toBeInstanceOf(TileSourceError);
    expect((error as TileSourceError).code).toBe('unsupported');
    expect((error as TileSourceError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/stripped/);
    const notTiff = await errorOf(
      openCogPyramid(bufferOf(new TextEncoder().encode('<html>not found</html>'))),
    );
    expect((notTiff as TileSourceError).code).toBe('bad-magic');
    const badRamp = await errorOf(openCogPyramid(bufferOf(deflate), { ramp: [] }));
    expect(badRamp).toBeInstanceOf(TesseraConfigError);
  });

  it('an abort rejects a pending load promptly with the signal reason', async () => {
    const memory = new MemoryRangeReader(deflate);
    let stall = false;
    const stalling: RangeReader = {
      get length() {
        return memory.length;
      },
      read: (start, end, signal) =>
        stall
          ? new Promise((_, reject) => {
              if (signal.aborted) reject(signal.reason);
              signal.addEventListener('abort', () => reject(signal.reason), { once: true });
            })
          : memory.read(start, end, signal),
      readAtMost: (start, end, signal) => memory.readAtMost(start, end, signal),
    };
    const pyramid = await openCogPyramid(stalling);
    await pyramid.loadTile(0, 0, 0, live());
    stall = true;
    const controller = new AbortController();
    const pending = pyramid.loadTile(0, 1, 0, controller.signal);
    const reason = new DOMException('gone', 'AbortError');
    controller.abort(reason);
    expect(await errorOf(pending)).toBe(reason);
    expect(await errorOf(pyramid.loadTile(0, 1, 0, controller.signal))).toBe(reason);
    // Disposing fails what is pending with source-disposed.
    const orphan = pyramid.loadTile(0, 2, 0, live());
    pyramid.dispose();
    const disposed = await errorOf(orphan);
    expect(isAbortError(disposed)).toBe(true);
    expect((disposed as TileSourceError).code).toBe('source-disposed');
  });
});

describe('openCogPyramid: decoding on a pool', () => {
  it('sends tiles to the pool given', async () => {
    const bound: number[] = [];
    const pool: CogDecoderPool = {
      bindParameters(compression, parameters) {
        bound.push(compression);
        const decoder = geotiff.getDecoder(
          compression,
          parameters as unknown as Parameters<typeof geotiff.getDecoder>[1],
        );
        return { decode: async (buffer) => (await decoder).decode(buffer) };
      },
    };
    const pyramid = await openCogPyramid(bufferOf(lzw), { pool });
    const tile = (await pyramid.loadTile(0, 1, 1, live())) as ImageryTile;
    const [got, want] = cellPair(tile, image, 1, 1, 256);
    expect(differing(got, want)).toBe(0);
    expect(bound).toEqual([5]);
  });

  it("a decode failure names the file and the tile, keeping a typed error's code and retryable, as a JPEG tile's does", async () => {
    const failing = (error: unknown): CogDecoderPool => ({
      bindParameters: () => ({
        decode: async () => {
          throw error;
        },
      }),
    });
    const crashed = await openCogPyramid(bufferOf(lzw), {
      pool: failing(new TileSourceError('decode-failed', 'decode worker crashed on a job', true)),
    });
    const typed = await errorOf(crashed.loadTile(0, 1, 1, live()));
    expect(typed).toBeInstanceOf(TileSourceError);
    expect(typed).toMatchObject({ code: 'decode-failed', retryable: true });
    expect((typed as Error).message).toMatch(/tile 1,1 of level 0: decode worker crashed on a job$/);
    const broken = await openCogPyramid(bufferOf(lzw), { pool: failing(new RangeError('bad LZW code')) });
    const plain = await errorOf(broken.loadTile(0, 1, 0, live()));
    expect(plain).toMatchObject({ code: 'decode-failed', retryable: false });
    expect((plain as Error).message).toMatch(/tile 1,0 of level 0: bad LZW code$/);
  });
});

describe('openCogPyramid over HTTP', () => {
  let server: RangeServer;

  beforeAll(async () => {
    server = await serveRanges({ 'earth.tif': deflate });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('opens in a few Range requests, then one request per tile, retrying a 503', async () => {
    const client = new HttpClient({ retries: 2, baseDelayMs: 1, random: () => 0 });
    server.requests = 0;
    const pyramid = await openCogPyramid(`${server.url}/earth.tif`, { http: client });
    const opening = server.requests;
    // Header plus one block per IFD that libvips writes after its level's tiles.
    expect(opening).toBeLessThanOrEqual(pyramid.info.levels.length + 2);
    expect(server.ranges.every((r) => /^bytes=\d+-\d+$/.test(r))).toBe(true);

    const first = (await pyramid.loadTile(0, 0, 0, live())) as ImageryTile;
    expect(differing(...cellPair(first, image, 0, 0, 256))).toBe(0);
    const afterFirst = server.requests;
    // The tile, and at most the level's offset arrays.
    expect(afterFirst - opening).toBeLessThanOrEqual(3);
    for (const x of [1, 2, 3]) await pyramid.loadTile(0, x, 0, live());
    expect(server.requests - afterFirst).toBe(3);

    server.failNext(1);
    const before = server.requests;
    const retried = (await pyramid.loadTile(0, 4, 1, live())) as ImageryTile;
    const [got, want] = cellPair(retried, image, 4, 1, 256);
    expect(differing(got, want)).toBe(0);
    expect(server.requests - before).toBe(2);
    expect(client.counters.retries).toBe(1);
    // The virtual texture's stats read them through the source (VirtualTextureSystem sums them).
    expect(new ImageryTileSource(pyramid).requestCounters?.retries).toBe(1);
  });

  it('a 404 is a typed http-status error', async () => {
    const error = await errorOf(
      openCogPyramid(`${server.url}/missing.tif`, { http: new HttpClient({ retries: 0 }) }),
    );
    expect(error).toBeInstanceOf(TileSourceError);
    expect((error as TileSourceError).code).toBe('http-status');
  });
});
