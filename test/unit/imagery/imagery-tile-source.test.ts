import { LinearSRGBColorSpace, SRGBColorSpace } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import type { ImageryPyramid, ImageryTile } from '../../../src/sources/imagery/imagery-pyramid';
import { ImageryTileSource } from '../../../src/sources/imagery/imagery-tile-source';
import { downsampleRgba8, downsampleRgba8SkippingNoData } from '../../../src/sources/mips/box-downsample';
import { loadEarthImage, type RgbaImage } from '../../support/imagery/earth-image';

/** A pyramid cut from images in memory (as a tile server would serve them), counting loads. */
class MemoryPyramid implements ImageryPyramid {
  loads = 0;
  /** `level/x/y` of every load, in order. */
  readonly requested: string[] = [];
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
    this.requested.push(`${level}/${x}/${y}`);
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

/**
 * Throws unless every texel of `page` (T x T) is texel (x0 + i, y0 + j) of `im` within
 * `tolerance` levels per channel.
 * @returns the largest difference seen.
 */
function expectPage(
  page: Uint8Array,
  im: RgbaImage,
  x0: number,
  y0: number,
  T: number,
  repeat: boolean,
  tolerance = 0,
): number {
  let largest = 0;
  for (let j = 0; j < T; j++) {
    for (let i = 0; i < T; i++) {
      const got = [...page.subarray((j * T + i) * 4, (j * T + i) * 4 + 4)];
      const want = texel(im, x0 + i, y0 + j, repeat);
      const diff = Math.max(...got.map((v, c) => Math.abs(v - want[c])));
      largest = Math.max(largest, diff);
      if (diff > tolerance) {
        throw new Error(`texel ${i},${j} (image ${x0 + i},${y0 + j}): ${got} != ${want}`);
      }
    }
  }
  return largest;
}

// The sRGB transfer functions written out here, so the references share no code with the library.
const toLinear = (byte: number) => {
  const c = byte / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const toSrgbByte = (l: number) =>
  Math.round(255 * Math.min(1, Math.max(0, l <= 0.0031308 ? l * 12.92 : 1.055 * l ** (1 / 2.4) - 0.055)));

/**
 * Texel (x, y) of the finer level that `parent`, `k` levels coarser, becomes under a bilinear
 * sampler magnifying it: `parent` read at ((x + 0.5) / 2^k - 0.5, (y + 0.5) / 2^k - 0.5), texel
 * reads clamped to the edges (wrapped across x for `repeat`), colour interpolated in linear light
 * when `srgb` (as the sampler of an sRGB texture filters), alpha as stored.
 */
function bilinearTexel(
  parent: RgbaImage,
  k: number,
  x: number,
  y: number,
  srgb: boolean,
  repeat = false,
): number[] {
  const u = (x + 0.5) / 2 ** k - 0.5;
  const v = (y + 0.5) / 2 ** k - 0.5;
  const i = Math.floor(u);
  const j = Math.floor(v);
  const fx = u - i;
  const fy = v - j;
  const sum = [0, 0, 0, 0];
  for (const [di, dj, weight] of [
    [0, 0, (1 - fx) * (1 - fy)],
    [1, 0, fx * (1 - fy)],
    [0, 1, (1 - fx) * fy],
    [1, 1, fx * fy],
  ]) {
    const t = texel(parent, i + di, j + dj, repeat);
    for (let c = 0; c < 4; c++) sum[c] += weight * (srgb && c < 3 ? toLinear(t[c]) : t[c]);
  }
  return sum.map((value, c) => (srgb && c < 3 ? toSrgbByte(value) : Math.round(value)));
}

/**
 * `image` with the cells of `tileSize` for which `standIn(x, y)` gives a level distance `k > 0`
 * replaced by {@link bilinearTexel} of `levels[k]`: the reference of a level whose missing tiles
 * stand in smoothly.
 */
function withStandIns(
  image: RgbaImage,
  tileSize: number,
  parentOf: (tx: number, ty: number) => { parent: RgbaImage; k: number } | null,
  srgb = true,
  repeat = false,
): RgbaImage {
  const data = image.data.slice();
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const from = parentOf(Math.floor(x / tileSize), Math.floor(y / tileSize));
      if (from !== null)
        data.set(bilinearTexel(from.parent, from.k, x, y, srgb, repeat), (y * image.width + x) * 4);
    }
  }
  return { width: image.width, height: image.height, data };
}

const signal = () => new AbortController().signal;

// Top-level await: vitest runs ESM test files as modules.
const earth = await loadEarthImage(1000, 600, 10);

describe('ImageryTileSource', () => {
  it("cuts its pages to the system's geometry unless given its own", async () => {
    const levels = levelsOf(earth, 3);
    const follows = new ImageryTileSource(new MemoryPyramid(levels, 256));
    expect(follows.info).toMatchObject({ tileSize: 128, border: 4, widthPages: 16, heightPages: 8 });
    follows.followPageGeometry(256, 8);
    expect(follows.info).toMatchObject({ tileSize: 256, border: 8, widthPages: 8, heightPages: 4 });
    const tile = await follows.load(0, 1, 1, signal());
    expectPage(tile.layers[0], levels[0], 240 - 8, 240 - 8, 256, false);
    const own = new ImageryTileSource(new MemoryPyramid(levels, 256), { tileSize: 128, border: 4 });
    own.followPageGeometry(256, 8);
    expect(own.info).toMatchObject({ tileSize: 128, border: 4 });
    expect(() => follows.followPageGeometry(8, 4)).toThrowError(
      expect.objectContaining({ code: 'invalid-tile' }),
    );
    follows.dispose();
    own.dispose();
  });

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

  it('watched, reads one tile per page aligned to the tiles, and reports the page when a neighbour its border stood in for arrives', async () => {
    const levels = levelsOf(earth, 3);
    const pyramid = new MemoryPyramid(levels, 256);
    // Pages of 264 with a border of 4: each payload is exactly one 256-texel tile.
    const source = new ImageryTileSource(pyramid, { tileSize: 264, border: 4 });
    const reports: number[][] = [];
    source.watchPages((mip, x, y) => reports.push([mip, x, y]));
    const im = levels[0];
    const T = 264;
    /** Texels of `page` in columns [i0, i1) and rows [j0, j1) that differ from `want(i, j)`'s image texel. */
    const mismatches = (
      page: Uint8Array,
      [i0, i1, j0, j1]: number[],
      want: (i: number, j: number) => [number, number],
    ): string[] => {
      const wrong: string[] = [];
      for (let j = j0; j < j1; j++) {
        for (let i = i0; i < i1; i++) {
          const [x, y] = want(i, j);
          const got = page.subarray((j * T + i) * 4, (j * T + i) * 4 + 4).join();
          if (got !== texel(im, x, y, false).join()) wrong.push(`${i},${j}`);
        }
      }
      return wrong;
    };
    const before = (await source.load(0, 1, 1, signal())).layers[0];
    expect(pyramid.requested).toEqual(['0/1/1']);
    // The payload is the tile; the border repeats the payload's nearest texel (no neighbour read).
    const clampToTile = (v: number) => Math.min(511, Math.max(256, v));
    expect(mismatches(before, [0, T, 0, T], (i, j) => [clampToTile(252 + i), clampToTile(252 + j)])).toEqual(
      [],
    );
    expect(reports).toEqual([]);
    // The right neighbour reads its own tile only (its left border: the tile already loaded).
    const right = (await source.load(0, 2, 1, signal())).layers[0];
    expect(pyramid.requested).toEqual(['0/1/1', '0/2/1']);
    expect(mismatches(right, [0, 4, 4, T - 4], (i, j) => [508 + i, 252 + j])).toEqual([]);
    expect(reports).toEqual([[0, 1, 1]]);
    // Loaded again, the first page's right border is its neighbour's texels; the rest unchanged.
    const after = (await source.load(0, 1, 1, signal())).layers[0];
    expect(pyramid.requested).toHaveLength(2);
    expect(mismatches(after, [0, T, 4, T - 4], (i, j) => [Math.max(256, 252 + i), 252 + j])).toEqual([]);
    // Its left border still repeats its first column: that neighbour never loaded.
    expect(mismatches(after, [0, 4, 4, T - 4], (_i, j) => [256, 252 + j])).toEqual([]);
    // Without a watcher, every tile the border reaches is read, as before.
    source.watchPages(null);
    await source.load(0, 1, 0, signal());
    expect(pyramid.requested.slice(2).sort()).toEqual(['0/0/0', '0/0/1', '0/1/0', '0/2/0']);
    source.dispose();
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
        for (let c = 0; c < 3; c++) halvedX.data[o + c] = toSrgbByte((toLinear(a[c]) + toLinear(b[c])) / 2);
        halvedX.data[o + 3] = (a[3] + b[3] + 1) >> 1;
      }
    }
    // Within a level: the reference rounds the exact transfer functions, the library its tables.
    expectPage((await source.load(5, 0, 0, signal())).layers[0], halvedX, -2, -2, 64, false, 1);
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
    const reference = withStandIns(levels[0], 256, (tx, ty) =>
      tx === 1 && ty === 0 ? { parent: levels[1], k: 1 } : null,
    );
    expectPage(page, reference, 3 * 120 - 4, -4, 128, false, 1);
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

  it("takes three's colour spaces; the deprecated 'linear' works as 'srgb-linear', warning once; others are refused", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    // Black and white texels in columns: a derived coarser mip averages them in light, so its
    // texels say which colour space the source decoded with.
    const stripes = { width: 32, height: 32, data: new Uint8Array(32 * 32 * 4) };
    for (let i = 0; i < 32 * 32; i++) stripes.data.fill(i % 2 === 0 ? 255 : 0, i * 4, i * 4 + 3);
    for (let i = 3; i < stripes.data.length; i += 4) stripes.data[i] = 255;
    const averaged = async (colorSpace?: 'srgb' | 'srgb-linear' | 'linear') => {
      const source = new ImageryTileSource(new MemoryPyramid([stripes], 32), {
        tileSize: 16,
        border: 2,
        colorSpace,
      });
      const page = (await source.load(1, 0, 0, signal())).layers[0];
      return page[((2 + 2) * 16 + (2 + 2)) * 4];
    };
    const srgb = await averaged(SRGBColorSpace);
    const linear = await averaged(LinearSRGBColorSpace);
    expect(await averaged()).toBe(srgb);
    expect(Math.abs(srgb - toSrgbByte(0.5))).toBeLessThanOrEqual(1);
    expect(Math.abs(linear - 128)).toBeLessThanOrEqual(1);
    const warned = () =>
      warn.mock.calls.filter((call) => String(call[0]).includes("colorSpace 'linear'")).length;
    expect(warned()).toBe(0);
    expect(await averaged('linear')).toBe(linear);
    expect(await averaged('linear')).toBe(linear);
    expect(warned()).toBe(1);
    expect(
      () => new ImageryTileSource(new MemoryPyramid([stripes], 32), { colorSpace: '' as never }),
    ).toThrow(expect.objectContaining({ code: 'invalid-option' }));
    warn.mockRestore();
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

describe('ImageryTileSource stand-ins and derived levels', () => {
  it('stands in for missing tiles with the coarser level bilinearly magnified: every page, borders included, matches a whole-image reference', async () => {
    const levels = levelsOf(earth, 3); // 1000x600 in 4x3 tiles, 500x300 in 2x2, 250x150 in one
    // Level 0 lacks (1, 0) and (2, 0), side by side over two different level-1 tiles, and (1, 2),
    // whose level-1 tile (0, 1) is missing too: it stands in from level 2, four times magnified.
    const missing = (level: number, x: number, y: number) =>
      (level === 0 && y === 0 && (x === 1 || x === 2)) ||
      (level === 0 && x === 1 && y === 2) ||
      (level === 1 && x === 0 && y === 1);
    const pyramid = new MemoryPyramid(levels, 256, { missing });
    const source = new ImageryTileSource(pyramid, { tileSize: 128, border: 4 });
    const reference = withStandIns(levels[0], 256, (tx, ty) => {
      if (ty === 0 && (tx === 1 || tx === 2)) return { parent: levels[1], k: 1 };
      if (tx === 1 && ty === 2) return { parent: levels[2], k: 2 };
      return null;
    });
    let largest = 0;
    for (let y = 0; y * 120 < 600; y++) {
      for (let x = 0; x * 120 < 1000; x++) {
        const page = (await source.load(0, x, y, signal())).layers[0];
        largest = Math.max(largest, expectPage(page, reference, x * 120 - 4, y * 120 - 4, 128, false, 1));
      }
    }
    console.log(`stand-in pages against the bilinear reference: max abs diff ${largest}`);
    // The nearest-texel fallback this replaces is far from the reference (so the check can fail).
    const blocky = texel(levels[1], (300 >> 1) + 1, 61 >> 1, false);
    const smooth = texel(reference, 302, 61, false);
    expect(Math.max(...blocky.map((v, c) => Math.abs(v - smooth[c])))).toBeGreaterThan(1);
    // Each tile was asked for once, and only the ones a level-by-level fallback asks for.
    expect(new Set(pyramid.requested).size).toBe(pyramid.requested.length);
    expect(pyramid.requested.filter((key) => !key.startsWith('0/')).sort()).toEqual([
      '1/0/0',
      '1/0/1',
      '1/1/0',
      '2/0/0',
    ]);
  });

  it('magnifies a single bright texel into a tent, not a block, in linear and in sRGB colour', async () => {
    for (const colorSpace of [LinearSRGBColorSpace, SRGBColorSpace]) {
      // Level 1: 32x32 black with one white texel at (5, 5). Level 0: 64x64, its tile (0, 0) missing.
      const coarse = { width: 32, height: 32, data: new Uint8Array(32 * 32 * 4) };
      for (let i = 3; i < coarse.data.length; i += 4) coarse.data[i] = 255;
      coarse.data.fill(255, (5 * 32 + 5) * 4, (5 * 32 + 5) * 4 + 4);
      const fine = { width: 64, height: 64, data: new Uint8Array(64 * 64 * 4).fill(255) };
      const pyramid = new MemoryPyramid([fine, coarse], 32, {
        missing: (l, x, y) => l === 0 && x === 0 && y === 0,
      });
      const source = new ImageryTileSource(pyramid, { tileSize: 16, border: 2, colorSpace });
      const page = (await source.load(0, 0, 0, signal())).layers[0]; // texels -2..13
      const at = (x: number, y: number) => page[((y + 2) * 16 + (x + 2)) * 4];
      // Texel x of level 0 reads level 1 at (x + 0.5) / 2 - 0.5: the white texel weighs 0, 1/4,
      // 3/4, 3/4, 1/4, 0 on texels 8..13 (and the same down the rows), in light.
      const tent = [0, 0.25, 0.75, 0.75, 0.25, 0];
      const encode = (l: number) => (colorSpace === 'srgb' ? toSrgbByte(l) : Math.round(255 * l));
      let largestStep = 0;
      for (let j = 0; j < 6; j++) {
        for (let i = 0; i < 6; i++) {
          expect(
            Math.abs(at(8 + i, 8 + j) - encode(tent[i] * tent[j])),
            `${colorSpace} ${i},${j}`,
          ).toBeLessThanOrEqual(1);
        }
      }
      // In light, no step between neighbouring texels is larger than half the parent's one step
      // (a block would step by all of it, 255, at its edge).
      const light = (v: number) => (colorSpace === 'srgb' ? 255 * toLinear(v) : v);
      for (let y = 0; y < 13; y++) {
        for (let x = 0; x < 13; x++) {
          largestStep = Math.max(
            largestStep,
            Math.abs(light(at(x + 1, y)) - light(at(x, y))),
            Math.abs(light(at(x, y + 1)) - light(at(x, y))),
          );
        }
      }
      expect(largestStep).toBeLessThanOrEqual(255 / 2 + 1);
      expect(at(10, 10)).toBeLessThan(255);
    }
  });

  it('wraps a stand-in across the antimeridian as a repeating sampler would', async () => {
    const world = await loadEarthImage(512, 256, 10);
    const levels = levelsOf(world, 2);
    // Level 0 lacks its leftmost column of tiles: their stand-ins read level 1's far right column.
    const pyramid = new MemoryPyramid(levels, 128, {
      wrapX: 'repeat',
      missing: (l, x) => l === 0 && x === 0,
    });
    const source = new ImageryTileSource(pyramid, { tileSize: 64, border: 4 });
    const reference = withStandIns(
      levels[0],
      128,
      (tx) => (tx === 0 ? { parent: levels[1], k: 1 } : null),
      true,
      true,
    );
    for (const [x, y] of [
      [0, 0],
      [0, 2],
      [8, 1],
    ]) {
      expectPage(
        (await source.load(0, x, y, signal())).layers[0],
        reference,
        x * 56 - 4,
        y * 56 - 4,
        64,
        true,
        1,
      );
    }
  });

  it('keys stand-ins apart from the tiles of coarse levels in a pyramid of more than 16 levels', async () => {
    // 17 levels of 2x2 tiles, each level one colour; tile (0, 0) is missing from levels 0..15, so
    // level 0's stands in from level 16, whose tile (0, 0) must not be taken for that stand-in.
    const levels = Array.from({ length: 17 }, (_, i) => ({
      width: 2 ** (17 - i),
      height: 2 ** (17 - i),
      tileWidth: 2,
      tileHeight: 2,
    }));
    const pyramid: ImageryPyramid = {
      info: { levels },
      loadTile: async (level, x, y) => {
        if (level < 16 && x === 0 && y === 0) return null;
        const width = Math.min(2, levels[level].width - 2 * x);
        const data = new Uint8Array(width * 2 * 4);
        for (let i = 0; i < data.length; i += 4) data.set([level * 10, 100, 50, 255], i);
        return { width, height: 2, data };
      },
    };
    const source = new ImageryTileSource(pyramid, {
      tileSize: 64,
      border: 2,
      colorSpace: LinearSRGBColorSpace,
    });
    const page = (await source.load(0, 0, 0, signal())).layers[0];
    // Texels 0..1 of level 0 (page texels 2..3): level 16's colour, magnified.
    expect([...page.subarray((2 * 64 + 2) * 4, (2 * 64 + 2) * 4 + 4)]).toEqual([160, 100, 50, 255]);
    expect([...page.subarray((3 * 64 + 3) * 4, (3 * 64 + 3) * 4 + 4)]).toEqual([160, 100, 50, 255]);
  });

  it('derives coarser levels of an image half no-data without darkening its valid half', async () => {
    // 64x64: columns 0..36 an sRGB orange, opaque; the rest no-data (transparent black).
    const orange = [200, 120, 40, 255];
    const image = { width: 64, height: 64, data: new Uint8Array(64 * 64 * 4) };
    for (let y = 0; y < 64; y++) for (let x = 0; x < 37; x++) image.data.set(orange, (y * 64 + x) * 4);
    const source = new ImageryTileSource(new MemoryPyramid([image], 64), { tileSize: 16, border: 2 });
    expect(source.info.widthPages).toBe(8); // mips 1..3 derived in memory
    for (let mip = 1; mip <= 3; mip++) {
      const width = 64 >> mip;
      // Column 37 / 2^mip holds the coastline: part data, part not.
      const coast = Math.floor(37 / 2 ** mip);
      for (let px = 0; px * 12 < width; px++) {
        const page = (await source.load(mip, px, 0, signal())).layers[0];
        for (let i = 2; i < 14 && px * 12 + i - 2 < width; i++) {
          const x = px * 12 + i - 2;
          const got = [...page.subarray((8 * 16 + i) * 4, (8 * 16 + i) * 4 + 4)];
          if (x < coast) expect(got, `mip ${mip} x ${x}`).toEqual(orange);
          else if (x > coast) expect(got, `mip ${mip} x ${x}`).toEqual([0, 0, 0, 0]);
          else {
            // The valid fraction of the block as alpha, the colour undarkened.
            expect(got.slice(0, 3), `mip ${mip} coast`).toEqual(orange.slice(0, 3));
            const valid = (37 - coast * 2 ** mip) / 2 ** mip;
            expect(Math.abs(got[3] - 255 * valid)).toBeLessThanOrEqual(1);
          }
        }
      }
    }
    // A plain box filter darkens that coastline (what this guards against).
    const plain = downsampleRgba8(image.data, 64, 64, true);
    expect(plain[18 * 4]).toBeLessThan(orange[0] - 40);
  });
});

describe('downsampleRgba8SkippingNoData', () => {
  it('averages only texels with data, weighted by alpha; alpha is the covered fraction', () => {
    // One 2x2 block: transparent black and opaque white.
    const src = new Uint8Array([0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
    expect([...downsampleRgba8SkippingNoData(src, 2, 2, true)]).toEqual([255, 255, 255, 128]);
    expect([...downsampleRgba8SkippingNoData(src, 2, 2, false)]).toEqual([255, 255, 255, 128]);
    // Along x only: each row's pair; along y only: each column's pair.
    expect([...downsampleRgba8SkippingNoData(src, 2, 2, true, true, false)]).toEqual([
      255, 255, 255, 128, 255, 255, 255, 128,
    ]);
    expect([...downsampleRgba8SkippingNoData(src, 2, 2, true, false, true)]).toEqual([
      0, 0, 0, 0, 255, 255, 255, 255,
    ]);
    // Half-transparent red beside opaque blue, linear data: red weighs a third.
    const mixed = new Uint8Array([255, 0, 0, 128, 0, 0, 255, 255]);
    const [r, g, b, a] = downsampleRgba8SkippingNoData(mixed, 2, 1, false, true, false);
    expect([r, g, b, a]).toEqual([Math.round((255 * 128) / 383), 0, Math.round((255 * 255) / 383), 192]);
  });

  it('equals the plain box filter on an opaque image', () => {
    const { data, width, height } = earth;
    expect(
      Buffer.from(downsampleRgba8SkippingNoData(data, width, height, true)).equals(
        Buffer.from(downsampleRgba8(data, width, height, true)),
      ),
    ).toBe(true);
  });
});
