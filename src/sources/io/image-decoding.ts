/**
 * Decodes whole images of any size (the tiles of XYZ servers, PMTiles, IIIF and Deep Zoom: PNG,
 * JPEG, WebP, AVIF) to rgba8, refusing those whose declared size passes a cap before any decoder
 * allocates for them. Browsers decode with their own codecs (`createImageBitmap`, so every format
 * the browser knows works), Node with sharp, else the pure-JS PNG decoder and jpeg-js.
 */

import { TileSourceError } from '../../core/errors';
import { jpegSize, webpSize } from './image-dimensions';
import { decodePng, PNG_SIGNATURE } from './png-codec';
import type { ImageryTile } from './tile-decoder';

/** Largest image a tile decode accepts, in texels (4096 x 4096). */
export const MAX_IMAGE_TEXELS = 4096 * 4096;

/** The image formats recognised by their first bytes. */
export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'avif' | 'unknown';

/** Recognises an image format by its signature. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const tag = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (bytes.length >= 12 && tag(0) === 'RIFF' && tag(8) === 'WEBP') return 'webp';
  if (bytes.length >= 12 && tag(4) === 'ftyp' && (tag(8) === 'avif' || tag(8) === 'avis')) return 'avif';
  return 'unknown';
}

/** Declared size of a PNG, JPEG or WebP, or null where the header does not tell it cheaply (AVIF). */
function declaredSize(format: ImageFormat, bytes: Uint8Array): { width: number; height: number } | null {
  switch (format) {
    case 'png': {
      if (bytes.length < 24) throw new TileSourceError('truncated', 'PNG: shorter than its header', false);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return { width: view.getUint32(16), height: view.getUint32(20) };
    }
    case 'jpeg':
      return jpegSize(bytes);
    case 'webp':
      return webpSize(bytes);
    default:
      return null;
  }
}

/**
 * Checks an image's format and declared size before decoding.
 * @throws TileSourceError `decode-failed` (not an image), `oversized` (over `maxTexels`).
 */
export function checkImageHeader(bytes: Uint8Array, maxTexels: number): ImageFormat {
  const format = sniffImageFormat(bytes);
  if (format === 'unknown') {
    throw new TileSourceError('decode-failed', 'not a PNG, JPEG, WebP or AVIF image', false);
  }
  const size = declaredSize(format, bytes);
  if (size !== null && (size.width < 1 || size.height < 1 || size.width * size.height > maxTexels)) {
    throw new TileSourceError(
      size.width * size.height > maxTexels ? 'oversized' : 'decode-failed',
      `${format}: ${size.width}x${size.height} texels (at most ${maxTexels})`,
      false,
    );
  }
  return format;
}

/** Decodes an image with the browser's codecs (in a worker or a page). */
export async function decodeImageInBrowser(bytes: Uint8Array, maxTexels: number): Promise<ImageryTile> {
  const format = checkImageHeader(bytes, maxTexels);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(
      new Blob([bytes as Uint8Array<ArrayBuffer>], { type: `image/${format}` }),
      {
        premultiplyAlpha: 'none',
        colorSpaceConversion: 'none',
      },
    );
  } catch (e) {
    throw new TileSourceError('decode-failed', `${format}: the browser could not decode it`, false, {
      cause: e,
    });
  }
  try {
    const { width, height } = bitmap;
    if (width * height > maxTexels) {
      throw new TileSourceError(
        'oversized',
        `${format}: ${width}x${height} texels (at most ${maxTexels})`,
        false,
      );
    }
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (context === null) throw new TileSourceError('decode-failed', 'no 2D context here', false);
    context.drawImage(bitmap, 0, 0);
    const data = context.getImageData(0, 0, width, height).data;
    return { width, height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
  } finally {
    bitmap.close();
  }
}

// Kept out of bundlers' sight, as in node-image-codecs.ts: a browser bundle must not pull sharp.
const SHARP_MODULE = 'sharp';
const JPEG_JS_MODULE = 'jpeg-js';

/** Decodes an image in Node: sharp where installed, else PNG in pure JS and JPEG with jpeg-js. */
export async function decodeImageInNode(bytes: Uint8Array, maxTexels: number): Promise<ImageryTile> {
  const format = checkImageHeader(bytes, maxTexels);
  let sharp: typeof import('sharp').default | undefined;
  try {
    sharp = (
      (await import(/* @vite-ignore */ /* webpackIgnore: true */ SHARP_MODULE)) as typeof import('sharp')
    ).default;
  } catch {
    sharp = undefined;
  }
  if (sharp) {
    try {
      const { data, info } = await sharp(bytes, { limitInputPixels: maxTexels, failOn: 'error' })
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return {
        width: info.width,
        height: info.height,
        data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      };
    } catch (e) {
      throw new TileSourceError('decode-failed', `${format}: decoder failed`, false, { cause: e });
    }
  }
  const size = declaredSize(format, bytes);
  if (format === 'png' && size) return { ...size, data: decodePng(bytes, size.width, size.height) };
  if (format === 'jpeg' && size) {
    const { default: jpeg } = (await import(/* @vite-ignore */ /* webpackIgnore: true */ JPEG_JS_MODULE)) as {
      default: typeof import('jpeg-js');
    };
    try {
      const image = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: maxTexels / 1e6,
        // jpeg-js reads an Adobe marker's transform 0 (RGB, as a TIFF's RGB JPEG tiles say) as YCbCr.
        ...(adobeTransform(bytes) === 0 ? { colorTransform: false } : {}),
      });
      return { width: image.width, height: image.height, data: new Uint8Array(image.data) };
    } catch (e) {
      throw new TileSourceError('decode-failed', 'JPEG: decoder failed', false, { cause: e });
    }
  }
  throw new TileSourceError('unsupported', `${format}: no decoder here (install sharp)`, false);
}

/** The colour transform of a JPEG's Adobe `APP14` marker (0 none, 1 YCbCr, 2 YCCK), or `null` without one. */
function adobeTransform(bytes: Uint8Array): number | null {
  let at = 2;
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    // The scan starts: no marker before it said anything.
    if (marker === 0xda || marker === 0xd9) return null;
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    const isAdobe =
      marker === 0xee && length >= 12 && String.fromCharCode(...bytes.subarray(at + 4, at + 9)) === 'Adobe';
    if (isAdobe && at + 15 < bytes.length) return bytes[at + 15];
    at += 2 + length;
  }
  return null;
}
