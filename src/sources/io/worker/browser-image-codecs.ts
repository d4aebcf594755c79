/**
 * {@link ImageCodecs} for browsers and Web Workers: `createImageBitmap` (no premultiplication,
 * no colour conversion, so texels arrive as stored) drawn into an `OffscreenCanvas` to read rgba8.
 */

import { TileSourceError } from '../../../core/errors';
import type { ImageCodecs } from '../tile-payload-decoder';

async function decodeWithBitmap(
  bytes: Uint8Array,
  size: number,
  type: string,
): Promise<Uint8Array<ArrayBuffer>> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), {
      premultiplyAlpha: 'none',
      colorSpaceConversion: 'none',
    });
  } catch (e) {
    throw new TileSourceError('decode-failed', `${type}: browser decoder failed`, false, { cause: e });
  }
  try {
    if (bitmap.width !== size || bitmap.height !== size) {
      throw new TileSourceError(
        'wrong-size',
        `${type}: ${bitmap.width}x${bitmap.height}, expected ${size}²`,
        false,
      );
    }
    const canvas = new OffscreenCanvas(size, size);
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (context === null) throw new TileSourceError('decode-failed', 'no 2D context in this worker', false);
    context.drawImage(bitmap, 0, 0);
    const data = context.getImageData(0, 0, size, size).data;
    return new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
  } finally {
    bitmap.close();
  }
}

/** Creates the browser codecs (JPEG, WebP). */
export function createBrowserImageCodecs(): ImageCodecs {
  return {
    jpeg: (bytes, size) => decodeWithBitmap(bytes, size, 'image/jpeg'),
    webp: (bytes, size) => decodeWithBitmap(bytes, size, 'image/webp'),
  };
}
