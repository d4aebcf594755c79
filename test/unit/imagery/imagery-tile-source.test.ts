import { describe, expect, it } from 'vitest';
import { TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { linearToSrgbByte, SRGB_BYTE_TO_LINEAR } from '../../../src/sources/color/srgb';
import type { ImageryPyramid, ImageryTile } from '../../../src/sources/imagery/imagery-pyramid';
import { ImageryTileSource } from '../../../src/sources/imagery/imagery-tile-source';
import { downsampleRgba8 } from '../../../src/sources/mips/box-downsample';
import { loadEarthImage, type RgbaImage } from '../../support/imagery/earth-image';

/** A pyramid cut from images in memory (as a tile server would serve them), counting loads. */
class MemoryPyramid implements ImageryPyramid {
  loads = 0;
  readonly info: ImageryPyramid['info'];
  constructor(
    readonly images: RgbaImage[],
    readonly tileSize: number,
    options: { wrapX?: 'clamp' | 'repeat'; missing?: (level: number, x: number, y: number) => boolean } = {},
  ) {
    this.info = {
      levels: images.map((im) => ({
        width: im.width,
        height: im.height,
        tileWidth: tileSize,
        tileHeight: tileSize,
      })),
      wrapX: options.wrapX,
    };
    this.missing = options.missing ?? (() => false);
  }
  private readonly missing: (level: number, x: number, y: number) => boolean;
  async loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    await new Promise((r) => setTimeout(r, 1));
    if (signal.aborted) throw signal.reason;
    this.loads++;
    if (this.missing(level, x, y)) return null;
    const im = this.images[level];
    const w = Math.min(this.tileSize, im.width - x * this.tileSize);
    const h = Math.min(this.tileSize, im.height - y * this.tileSize);
    if (w <= 0 || h <= 0) return null;
    const data = new Uint8Array(w * h * 4);
    for (let j = 0; j < h; j++) {
      const from = ((y * this.tileSize + j) * im.width + x * this.tileSize) * 4;
      data.set(im.data.subarray(from, from + w * 4), j * w * 4);
    }
    return { width: w, height: h, data };
  }
}

function levelsOf(image: RgbaImage, count: number): RgbaImage[] {
  const out = [image];
  for (let i = 1; i < count; i++) {
    const p = out[i - 1];
    out.push({
      width: p.width >> 1,
      height: p.height >> 1,
      data: downsampleRgba8(p.data, p.width, p.height, true),
    });
  }
  return out;
}

/** Texel (x, y) of `im`, x wrapped or clamped, y clamped. */
function texel(im: RgbaImage, x: number, y: number, repeat: boolean): number[] {
  const cx = repeat ? ((x % im.width) + im.width) % im.width : Math.min(im.width - 1, Math.max(0, x));
  const cy = Math.min(im.height - 1, Math.max(0, y));
  const i = (cy * im.width + cx) * 4;
  return [...im.data.subarray(i, i + 4)];
}

function expectPage(
  page: Uint8Array,
  im: RgbaImage,
  x0: number,
  y0: number,
  T: number,
  repeat: boolean,
): void {
  for (let j = 0; j < T; j++) {
    for (let i = 0; i < T; i++) {
      const got = [...page.subarray((j * T + i) * 4, (j * T + i) * 4 + 4)];
      const want = texel(im, x0 + i, y0 + j, repeat);
      if (got.join() !== want.join()) {
        throw new Error(`texel ${i},${j} (image ${x0 + i},${y0 + j}): ${got} != ${want}`);
      }
    }
  }
}

const signal = () => new AbortController().signal;

// Top-level await: vitest runs ESM test files as modules.
const earth = await loadEarthImage(1000, 600, 10);

describe('ImageryTileSource', () => {
  it('composes every page of every mip, borders from the neighbours, edges clamped', async () => {
    const levels = levelsOf(earth, 3);
    const pyramid = new MemoryPyramid(levels, 256);
    const source = new ImageryTileSource(pyramid, { tileSize: 128, border: 4 });
    expect(source.info).toMatchObject({
      widthPages: 16,
      heightPages: 8,
      contentWidth: 1000,
      contentHeight: 600,
    });
    for (let mip = 0; mip < 3; mip++) {
      const im = levels[mip];
      for (let y = 0; y * 120 < im.height; y++) {
        for (let x = 0; x * 120 < im.width; x++) {
          const tile = await source.load(mip, x, y, signal());
          expectPage(tile.layers[0], im, x * 120 - 4, y * 120 - 4, 128, false);
        }
      }
    }
    // Each source tile was loaded once however many pages read it.
    const tilesPerLevel = levels.map((im) => Math.ceil(im.width / 256) * Math.ceil(im.height / 256));
    expect(pyramid.loads).toBe(tilesPerLevel.reduce((a, b) => a + b));
  });

  it('splits 512-texel tiles and wraps the border across the antimeridian', async () => {
    const world = { width: 1024, height: 1024, data: new Uint8Array(1024 * 1024 * 4) };
    for (let y = 0; y < 1024; y++)
      for (let x = 0; x < 1024; x++) world.data.set(texel(earth, x, y >> 1, false), (y * 1024 + x) * 4);
    const pyramid = new MemoryPyramid([world], 512, { wrapX: 'repeat' });
    const source = new ImageryTileSource(pyramid, { tileSize: 256, border: 4 });
    for (const [x, y] of [
      [0, 0],
      [4, 2],
      [1, 4],
    ]) {
      const tile = await source.load(0, x, y, signal());
      expectPage(tile.layers[0], world, x * 248 - 4, y * 248 - 4, 256, true);
    }
  });

  it('derives mips coarser than the pyramid from its coarsest level', async () => {
    const levels = levelsOf(earth, 2);
    const source = new ImageryTileSource(new MemoryPyramid(levels, 256), { tileSize: 64, border: 2 });
    expect(source.info.widthPages).toBe(32);
    let im = levels[1];
    for (let mip = 2; mip <= 4; mip++) {
      im = {
        width: im.width >> 1,
        height: im.height >> 1,
        data: downsampleRgba8(im.data, im.width, im.height, true),
      };
      const tile = await source.load(mip, 0, 0, signal());
      expectPage(tile.layers[0], im, -2, -2, 64, false);
    }
    // 32 x 16 pages: mip 5 keeps mip 4's one page of height, so only its width halves.
    const halvedX = {
      width: im.width >> 1,
      height: im.height,
      data: new Uint8Array((im.width >> 1) * im.height * 4),
    };
    for (let y = 0; y < im.height; y++) {
      for (let x = 0; x < halvedX.width; x++) {
        const a = texel(im, 2 * x, y, false);
        const b = texel(im, 2 * x + 1, y, false);
        const o = (y * halvedX.width + x) * 4;
        for (let c = 0; c < 3; c++)
          halvedX.data[o + c] = linearToSrgbByte((SRGB_BYTE_TO_LINEAR[a[c]] + SRGB_BYTE_TO_LINEAR[b[c]]) / 2);
        halvedX.data[o + 3] = (a[3] + b[3] + 1) >> 1;
      }
    }
    expectPage((await source.load(5, 0, 0, signal())).layers[0], halvedX, -2, -2, 64, false);
  });

  it('fills missing tiles from the coarser level, and leaves uncovered areas transparent', async () => {
    const levels = levelsOf(earth, 2);
    // Level 0 lacks tile (1, 0); level 1 lacks tile (1, 1) and so does level 0 under it.
    const missing = (level: number, x: number, y: number) =>
      (level === 0 && x === 1 && y === 0) ||
      (level === 1 && x === 1 && y === 1) ||
      (level === 0 && x >= 2 && y >= 2);
    const source = new ImageryTileSource(new MemoryPyramid(levels, 256, { missing }), {
      tileSize: 128,
      border: 4,
    });
    const page = (await source.load(0, 3, 0, signal())).layers[0]; // texels 356..484: inside level-0 tile (1, 0)
    const parent = levels[1];
    for (const [i, j] of [
      [10, 10],
      [60, 100],
    ]) {
      const x = 3 * 120 - 4 + i;
      const y = j - 4;
      expect([...page.subarray((j * 128 + i) * 4, (j * 128 + i) * 4 + 4)]).toEqual(
        texel(parent, x >> 1, y >> 1, false),
      );
    }
    const hole = (await source.load(0, 5, 5, signal())).layers[0]; // texels ~596: level-0 (2, 2), level-1 (1, 1)
    expect(hole.subarray((64 * 128 + 64) * 4, (64 * 128 + 64) * 4 + 4).every((v) => v === 0)).toBe(true);
    expect(source.counters.missingTiles).toBeGreaterThanOrEqual(2);
  });

  it('shares a source tile between pages and aborts it only when every page gave up', async () => {
    const pyramid = new MemoryPyramid(levelsOf(earth, 1), 512);
    const source = new ImageryTileSource(pyramid, { tileSize: 128, border: 4 });
    const a = new AbortController();
    const b = new AbortController();
    const first = source.load(0, 0, 0, a.signal);
    const second = source.load(0, 1, 1, b.signal);
    a.abort();
    await expect(first).rejects.toBeDefined();
    const tile = await second;
    expectPage(tile.layers[0], earth, 116, 116, 128, false);
  });

  it('covers a region of the image, its borders from the image around it', async () => {
    const levels = levelsOf(earth, 3);
    const region = { x: 256, y: 128, width: 400, height: 300 };
    const source = new ImageryTileSource(new MemoryPyramid(levels, 256), { tileSize: 64, border: 2, region });
    expect(source.info).toMatchObject({
      widthPages: 8,
      heightPages: 8,
      contentWidth: 400,
      contentHeight: 300,
    });
    for (const [mip, x, y] of [
      [0, 0, 0],
      [0, 3, 2],
      [1, 1, 1],
      [2, 0, 0],
    ]) {
      const tile = await source.load(mip, x, y, signal());
      const x0 = (region.x >> mip) + x * 60 - 2;
      const y0 = (region.y >> mip) + y * 60 - 2;
      expectPage(tile.layers[0], levels[mip], x0, y0, 64, false);
    }
    expect(
      () => new ImageryTileSource(new MemoryPyramid(levels, 256), { region: { ...region, x: 102 } }),
    ).toThrow(TesseraConfigError);
  });

  it('refuses geometry a page table cannot hold, with typed errors', () => {
    const huge: ImageryPyramid = {
      info: { levels: [{ width: 2 ** 20, height: 2 ** 20, tileWidth: 256, tileHeight: 256 }] },
      loadTile: async () => null,
    };
    expect(() => new ImageryTileSource(huge, { tileSize: 128 })).toThrow(TesseraConfigError);
    expect(() => new ImageryTileSource({ info: { levels: [] }, loadTile: async () => null })).toThrow(
      TesseraConfigError,
    );
  });

  it('rejects a tile smaller than its cell as wrong-size, and the next page still loads', async () => {
    const levels = levelsOf(earth, 1);
    const pyramid = new MemoryPyramid(levels, 256);
    const bad: ImageryPyramid = {
      info: pyramid.info,
      loadTile: async (level, x, y, s) =>
        x === 0 && y === 0
          ? { width: 8, height: 8, data: new Uint8Array(256) }
          : pyramid.loadTile(level, x, y, s),
    };
    const source = new ImageryTileSource(bad, { tileSize: 128, border: 4 });
    await expect(source.load(0, 0, 0, signal())).rejects.toSatisfy(
      (e) => e instanceof TileSourceError && e.code === 'wrong-size',
    );
    const ok = await source.load(0, 4, 2, signal());
    expectPage(ok.layers[0], earth, 476, 236, 128, false);
  });
});
