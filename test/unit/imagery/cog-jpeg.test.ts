/**
 * JPEG COG tiles decode as GDAL decodes them: the tile's stream spliced with the IFD's
 * `JPEGTables` and decoded by the platform's image decoder (sharp here), compared with sharp's
 * own reading of the whole TIFF (libtiff + libjpeg), for YCbCr 4:2:0 tiles with colour edges
 * (where geotiff's replicated chroma is tens of levels off), RGB tiles, and RGB tiles whose
 * streams do not say they are RGB.
 */

import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyRgbNodata, spliceCogJpeg } from '../../../src/sources/imagery/cog-jpeg';
import { openCogPyramid } from '../../../src/sources/imagery/cog-pyramid';
import type { ImageryTile } from '../../../src/sources/imagery/imagery-pyramid';
import { writeSharpCog } from '../../support/imagery/cog-fixtures';
import {
  colourEdgeImage,
  DifferenceHistogram,
  geotiffJpegTile,
  loadGeotiff,
  referenceLevel0,
  withoutRgbMarkers,
} from '../../support/imagery/jpeg-cog-reference';

const TILE = 256;
/** Not a multiple of the tile size: the right and bottom tiles are padded. */
const image = colourEdgeImage(600, 400);
// Writing and decoding the COGs takes seconds on a loaded 2-core machine: 30 s per test.
const live = () => new AbortController().signal;
const bufferOf = (bytes: Uint8Array) => bytes.slice().buffer;

/** Every level-0 tile of `tiff` through `openCogPyramid`, against the reference decoding. */
async function compareLevel0(tiff: Uint8Array, options: { nodata?: number } = {}) {
  const reference = await referenceLevel0(tiff);
  const pyramid = await openCogPyramid(bufferOf(tiff), options);
  const histogram = new DifferenceHistogram();
  const alphas = new Set<number>();
  for (let ty = 0; ty < Math.ceil(reference.height / TILE); ty++) {
    for (let tx = 0; tx < Math.ceil(reference.width / TILE); tx++) {
      const tile = (await pyramid.loadTile(0, tx, ty, live())) as ImageryTile;
      expect([tile.width, tile.height, tile.data.length]).toEqual([TILE, TILE, TILE * TILE * 4]);
      histogram.addTile(tile.data, tx, ty, TILE, reference);
      for (let i = 3; i < tile.data.length; i += 4) alphas.add(tile.data[i]);
    }
  }
  pyramid.dispose();
  return { ...histogram.summary(), alphas: [...alphas].sort((a, b) => a - b) };
}

/** Every level-0 tile as geotiff's decoder gives it, against the same reference. */
async function compareGeotiff(tiff: Uint8Array) {
  const reference = await referenceLevel0(tiff);
  const across = Math.ceil(reference.width / TILE);
  const histogram = new DifferenceHistogram();
  for (let i = 0; i < across * Math.ceil(reference.height / TILE); i++) {
    histogram.addTile(await geotiffJpegTile(tiff, i), i % across, Math.floor(i / across), TILE, reference);
  }
  return histogram.summary();
}

describe('JPEG COG decoding', () => {
  let ycbcr: Uint8Array;
  let rgb: Uint8Array;
  beforeAll(async () => {
    await loadGeotiff();
    // libvips writes YCbCr 4:2:0 below quality 90 (GDAL's JPEG COG default), RGB from 90.
    ycbcr = await writeSharpCog(image, { compression: 'jpeg', channels: 3, quality: 80 });
    rgb = await writeSharpCog(image, { compression: 'jpeg', channels: 3, quality: 90 });
  });

  it('YCbCr 4:2:0 tiles with colour edges: within 1 level of GDAL, where geotiff is not', async () => {
    const spliced = await compareLevel0(ycbcr);
    expect(spliced.max).toBeLessThanOrEqual(1);
    expect(spliced.alphas).toEqual([255]);
    const replicated = await compareGeotiff(ycbcr);
    expect(replicated.max).toBeGreaterThan(16);
    expect(replicated.psnr).toBeLessThan(40);
  }, 30_000);

  it('RGB tiles (Adobe transform 0), alpha opaque, no-data transparent as the converter makes it', async () => {
    const spliced = await compareLevel0(rgb);
    expect(spliced.max).toBeLessThanOrEqual(1);
    expect(spliced.alphas).toEqual([255]);
    // The white diagonals are the texels whose three samples decode to 255.
    const reference = await referenceLevel0(rgb);
    const pyramid = await openCogPyramid(bufferOf(rgb), { nodata: 255 });
    const tile = (await pyramid.loadTile(0, 0, 0, live())) as ImageryTile;
    let transparent = 0;
    for (let y = 0; y < TILE; y++) {
      for (let x = 0; x < TILE; x++) {
        const r = (y * reference.width + x) * reference.channels;
        const white =
          reference.data[r] === 255 && reference.data[r + 1] === 255 && reference.data[r + 2] === 255;
        expect(tile.data[(y * TILE + x) * 4 + 3]).toBe(white ? 0 : 255);
        if (white) transparent++;
      }
    }
    expect(transparent).toBeGreaterThan(100);
    pyramid.dispose();
  }, 30_000);

  it("RGB tiles whose streams do not say RGB decode by the TIFF's photometric", async () => {
    const bare = await withoutRgbMarkers(rgb);
    // The reference reads the untouched file: what the tiles hold.
    const reference = await referenceLevel0(rgb);
    const pyramid = await openCogPyramid(bufferOf(bare));
    const histogram = new DifferenceHistogram();
    const tile = (await pyramid.loadTile(0, 1, 0, live())) as ImageryTile;
    histogram.addTile(tile.data, 1, 0, TILE, reference);
    expect(histogram.summary().max).toBeLessThanOrEqual(1);
    pyramid.dispose();
  }, 30_000);
});

describe('spliceCogJpeg', () => {
  async function decode(jpeg: Uint8Array): Promise<Uint8Array> {
    return new Uint8Array(await sharp(jpeg).raw().toBuffer());
  }

  it('a complete stream without tables decodes as itself; the photometric decides the colour', async () => {
    const block = colourEdgeImage(64, 64);
    const jpeg = new Uint8Array(
      await sharp(block.data, { raw: { width: 64, height: 64, channels: 4 } })
        .removeAlpha()
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
    const own = await decode(jpeg);
    expect(await decode(spliceCogJpeg(null, jpeg, 'ycbcr'))).toEqual(own);
    // Read as RGB, the YCbCr samples are not the picture.
    const asRgb = await decode(spliceCogJpeg(null, jpeg, 'rgb'));
    let far = 0;
    for (let i = 0; i < own.length; i++) if (Math.abs(asRgb[i] - own[i]) > 32) far++;
    expect(far).toBeGreaterThan(own.length / 4);
  });

  it('refuses what is not a JPEG stream', () => {
    expect(() => spliceCogJpeg(null, Uint8Array.of(1, 2, 3, 4, 5), 'rgb')).toThrow(/no SOI/);
    // A segment longer than the stream.
    expect(() => spliceCogJpeg(null, Uint8Array.of(0xff, 0xd8, 0xff, 0xdb, 0x01, 0x00, 0, 0), 'rgb')).toThrow(
      /past the end/,
    );
    // Tables, then no scan.
    expect(() => spliceCogJpeg(null, Uint8Array.of(0xff, 0xd8, 0xff, 0xd9), 'rgb')).toThrow(/no scan/);
  });

  it('applyRgbNodata clears alpha only where all three samples are the value', () => {
    const rgba = Uint8Array.of(5, 5, 5, 255, 5, 5, 6, 255, 0, 0, 0, 255);
    applyRgbNodata(rgba, 5);
    expect(Array.from(rgba)).toEqual([5, 5, 5, 0, 5, 5, 6, 255, 0, 0, 0, 255]);
    applyRgbNodata(rgba, null);
    expect(rgba[7]).toBe(255);
  });
});
