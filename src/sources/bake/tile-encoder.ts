/**
 * Encodes rgba8 tiles for the archive. Raw, DEFLATE and PNG are pure JS; JPEG and WebP use sharp
 * (Node only, loaded on first use). Same texels and quality give the same bytes.
 */

import type { PayloadEncodingName } from '../archive/archive-format';
import { deflateRaw, encodePng } from '../archive/png-codec';

/** Quality of the lossy encodings, 1..100. */
export interface TileEncoderOptions {
  quality?: number;
}

/** Encodes a `size x size` rgba8 tile. */
export async function encodeTile(
  encoding: PayloadEncodingName,
  rgba: Uint8Array,
  size: number,
  options: TileEncoderOptions = {},
): Promise<Uint8Array> {
  switch (encoding) {
    case 'raw':
      return rgba.slice();
    case 'deflate':
      return deflateRaw(rgba);
    case 'png':
      return encodePng(rgba, size, size);
    case 'jpeg':
    case 'webp': {
      const { default: sharp } = await import('sharp');
      const image = sharp(rgba, { raw: { width: size, height: size, channels: 4 } });
      const quality = options.quality ?? 90;
      const out =
        encoding === 'jpeg'
          ? await image.removeAlpha().jpeg({ quality, chromaSubsampling: '4:4:4', mozjpeg: false }).toBuffer()
          : await image.webp({ quality, alphaQuality: 100, effort: 4, smartSubsample: false }).toBuffer();
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    }
    default:
      throw new Error(`cannot encode ${encoding}`);
  }
}
