/**
 * JPEG COGs with colour edges and their decoding as GDAL decodes them, for the JPEG decoding
 * tests: an image of saturated colour blocks crossed by thin lines (where chroma subsampling
 * shows), written by sharp (libvips and libtiff, GDAL's codec family: YCbCr 4:2:0 below quality 90,
 * RGB with no subsampling from 90), and the reference decoding of a whole level by sharp, which
 * reads the TIFF with libtiff and libjpeg(-turbo) as GDAL does: chroma interpolated ("fancy
 * upsampling"), libjpeg's integer IDCT. No code of the library takes part in the reference.
 * Also the tile as geotiff's JPEG decoder gives it (what `CogPyramid` did before), to show the
 * comparison can fail.
 */

import sharp from 'sharp';
import { CogTexelConverter } from '../../../src/sources/imagery/cog-texels';
import type { RgbaImage } from './earth-image';

/**
 * geotiff, loaded when first used. Its worker shim (web-worker) throws on import in a worker
 * thread without `workerData`, which is where vitest's threads pool runs the unit tests; with a
 * global `Worker` present it takes that instead. The stand-in is removed at once so nothing else
 * sees a `Worker`. Once loaded, the library's own `import('geotiff')` gets the same module.
 */
export async function loadGeotiff(): Promise<typeof import('geotiff')> {
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

/**
 * `width x height` rgba8: 16-texel blocks of saturated red, blue, green and yellow, 1-texel
 * magenta lines every 37 columns and 29 rows, and a 2-texel white diagonal every 53 texels.
 */
export function colourEdgeImage(width: number, height: number): RgbaImage {
  const colours = [
    [255, 0, 0],
    [0, 0, 255],
    [0, 255, 0],
    [255, 255, 0],
  ];
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      let [r, g, b] = colours[((x >> 4) + (y >> 4)) % 4];
      if (x % 37 === 0 || y % 29 === 0) [r, g, b] = [255, 0, 255];
      if ((x + y) % 53 < 2) [r, g, b] = [255, 255, 255];
      data[i] = r;
      data[i + 1] = g;
      data[i + 2] = b;
      data[i + 3] = 255;
    }
  }
  return { width, height, data };
}

/** A level decoded in full, rgb8 or rgba8 (`channels`), rows top-down. */
export interface DecodedLevel {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

/** Level 0 of a TIFF as GDAL would decode it (libtiff + libjpeg, through sharp). */
export async function referenceLevel0(tiff: Uint8Array): Promise<DecodedLevel> {
  const { data, info } = await sharp(tiff, { page: 0, limitInputPixels: false })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data) };
}

/** Level 0 tile `index` (row-major) of a JPEG TIFF as geotiff's JPEG decoder and the texel converter give it. */
export async function geotiffJpegTile(tiff: Uint8Array, index: number): Promise<Uint8Array> {
  const geotiff = await loadGeotiff();
  const file = await geotiff.fromArrayBuffer(tiff.slice().buffer);
  const image = await file.getImage(0);
  const ifd = image.fileDirectory;
  const offsets = (await ifd.loadValue('TileOffsets')) as ArrayLike<number>;
  const counts = (await ifd.loadValue('TileByteCounts')) as ArrayLike<number>;
  const photometric = Number(ifd.getValue('PhotometricInterpretation'));
  const tileWidth = image.getTileWidth();
  const tileHeight = image.getTileHeight();
  const decoder = await geotiff.getDecoder(7, {
    tileWidth,
    tileHeight,
    planarConfiguration: 1,
    bitsPerSample: [8, 8, 8],
    predictor: 1,
    JPEGTables: await ifd.loadValue('JPEGTables'),
  } as unknown as Parameters<typeof geotiff.getDecoder>[1]);
  const start = Number(offsets[index]);
  const bytes = tiff.slice(start, start + Number(counts[index]));
  const decoded = await decoder.decode(bytes.buffer);
  const converter = new CogTexelConverter(
    {
      kind: photometric === 6 ? 'ycbcr' : 'rgb',
      samplesPerPixel: 3,
      sampleType: 'uint8',
      littleEndian: true,
      alpha: 'none',
      nodata: null,
      whiteIsZero: false,
    },
    undefined,
  );
  return converter.convert(decoded as ArrayBuffer, tileWidth * tileHeight);
}

/** Per-channel absolute differences of decoded tiles against a reference, accumulated. */
export class DifferenceHistogram {
  /** Count of colour samples by absolute difference, 0..255. */
  readonly counts = new Float64Array(256);
  private squared = 0;
  private samples = 0;

  /**
   * Adds tile (`tileX`, `tileY`) of `tileSize` (rgba8, `tileSize²` texels), compared over the part
   * inside the reference level (edge tiles' padding is not image).
   */
  addTile(rgba: Uint8Array, tileX: number, tileY: number, tileSize: number, reference: DecodedLevel): void {
    const { width, height, channels, data } = reference;
    for (let y = 0; y < tileSize; y++) {
      const gy = tileY * tileSize + y;
      if (gy >= height) break;
      for (let x = 0; x < tileSize; x++) {
        const gx = tileX * tileSize + x;
        if (gx >= width) break;
        const t = (y * tileSize + x) * 4;
        const r = (gy * width + gx) * channels;
        for (let c = 0; c < 3; c++) {
          const e = Math.abs(rgba[t + c] - data[r + c]);
          this.counts[e]++;
          this.squared += e * e;
          this.samples++;
        }
      }
    }
  }

  /** Largest difference, PSNR (dB, `Infinity` when identical), and the share of samples within 1. */
  summary(): { max: number; psnr: number; withinOne: number; samples: number } {
    let max = 0;
    for (let e = 0; e < 256; e++) if (this.counts[e] > 0) max = e;
    const mse = this.squared / this.samples;
    return {
      max,
      psnr: mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse),
      withinOne: (this.counts[0] + this.counts[1]) / this.samples,
      samples: this.samples,
    };
  }
}

/**
 * The TIFF with every level-0 JPEG tile stripped of what says "RGB" in the stream itself, as a
 * writer that leaves it to TIFF's `PhotometricInterpretation` may write it: the Adobe `APP14`
 * marker becomes a comment (`COM`, same length) and the components' ids `R`, `G`, `B` (in the frame
 * and the scan header) become 1, 2, 3 (YCbCr's), each in place. Only the TIFF's photometric (RGB) then says the tiles are RGB.
 */
export async function withoutRgbMarkers(tiff: Uint8Array): Promise<Uint8Array> {
  const out = tiff.slice();
  const geotiff = await loadGeotiff();
  const file = await geotiff.fromArrayBuffer(tiff.slice().buffer);
  const ifd = (await file.getImage(0)).fileDirectory;
  const offsets = (await ifd.loadValue('TileOffsets')) as ArrayLike<number>;
  const counts = (await ifd.loadValue('TileByteCounts')) as ArrayLike<number>;
  for (let i = 0; i < offsets.length; i++) {
    const end = Number(offsets[i]) + Number(counts[i]);
    let at = Number(offsets[i]) + 2;
    while (at + 4 <= end && out[at] === 0xff) {
      const marker = out[at + 1];
      const length = (out[at + 2] << 8) | out[at + 3];
      if (marker === 0xee) out[at + 1] = 0xfe;
      if (marker === 0xc0) for (let c = 0; c < out[at + 9]; c++) out[at + 10 + c * 3] = c + 1;
      if (marker === 0xda) {
        // The scan names its components by the same ids.
        for (let c = 0; c < out[at + 4]; c++) out[at + 5 + c * 2] = c + 1;
        break;
      }
      at += 2 + length;
    }
  }
  return out;
}
