/**
 * Decodes one layer payload of one tile into `tileSize² x 4` rgba8 bytes, or, for the UASTC
 * encodings, into the tile's `(tileSize / 4)² x 16` UASTC blocks (see `uastc-payload.ts`). Raw,
 * DEFLATE, PNG and UASTC are decoded here in pure JS (works in any worker); JPEG and WebP go to
 * platform codecs injected as {@link ImageCodecs}. Every path checks the declared size before
 * decoding.
 */

import { inflateSync } from 'fflate';
import { TileSourceError } from '../../core/errors';
import { jpegSize, webpSize } from './image-dimensions';
import type { PayloadEncodingName } from './payload-encoding';
import { checkDimensions, decodePng } from './png-codec';
import { decodeUastcPayload } from './uastc-payload';

/** Platform decoders for lossy formats; each gets bytes whose declared size was already checked. */
export interface ImageCodecs {
  /** Decodes a JPEG of `size x size` texels to rgba8. */
  jpeg?(bytes: Uint8Array, size: number): Promise<Uint8Array<ArrayBuffer>>;
  /** Decodes a WebP of `size x size` texels to rgba8. */
  webp?(bytes: Uint8Array, size: number): Promise<Uint8Array<ArrayBuffer>>;
}

/**
 * Decodes `bytes` of `encoding` into a `tileSize² x 4` rgba8 array (UASTC encodings: the tile's
 * blocks), or rejects with a {@link TileSourceError}. A raw `uastc` payload is returned as it is.
 */
export async function decodeTilePayload(
  encoding: PayloadEncodingName,
  bytes: Uint8Array,
  tileSize: number,
  codecs: ImageCodecs,
): Promise<Uint8Array<ArrayBuffer>> {
  const expected = tileSize * tileSize * 4;
  let out: Uint8Array<ArrayBuffer>;
  switch (encoding) {
    case 'raw':
      if (bytes.length !== expected) {
        throw new TileSourceError(
          bytes.length > expected ? 'oversized' : 'wrong-size',
          `raw tile is ${bytes.length} bytes, expected ${expected}`,
          false,
        );
      }
      return bytes.slice();
    case 'deflate': {
      let inflated: Uint8Array;
      try {
        // A spare byte detects overflow; fflate never grows a caller-given buffer, so a bomb costs nothing.
        inflated = inflateSync(bytes, { out: new Uint8Array(expected + 1) });
      } catch (e) {
        throw new TileSourceError('decode-failed', 'bad DEFLATE stream', false, { cause: e });
      }
      if (inflated.length !== expected) {
        throw new TileSourceError(
          inflated.length > expected ? 'oversized' : 'wrong-size',
          `inflated tile is ${inflated.length > expected ? 'over' : inflated.length} bytes, expected ${expected}`,
          false,
        );
      }
      return inflated.buffer.byteLength === expected
        ? (inflated as Uint8Array<ArrayBuffer>)
        : inflated.slice();
    }
    case 'png':
      return decodePng(bytes, tileSize, tileSize);
    case 'uastc':
    case 'uastc-zstd':
      return decodeUastcPayload(encoding, bytes, tileSize);
    case 'jpeg': {
      const size = jpegSize(bytes);
      checkDimensions('JPEG', size.width, size.height, tileSize, tileSize);
      if (!codecs.jpeg) throw new TileSourceError('decode-failed', 'no JPEG decoder on this platform', false);
      out = await codecs.jpeg(bytes, tileSize);
      break;
    }
    case 'webp': {
      const size = webpSize(bytes);
      checkDimensions('WebP', size.width, size.height, tileSize, tileSize);
      if (!codecs.webp) throw new TileSourceError('decode-failed', 'no WebP decoder on this platform', false);
      out = await codecs.webp(bytes, tileSize);
      break;
    }
    default:
      throw new TileSourceError('decode-failed', `unsupported encoding ${encoding}`, false);
  }
  if (out.length !== expected) {
    throw new TileSourceError(
      'wrong-size',
      `decoded tile is ${out.length} bytes, expected ${expected}`,
      false,
    );
  }
  return out;
}
