/**
 * Reads the declared width and height of a JPEG or WebP from its header bytes, so oversized
 * images (decompression bombs) are refused before any decoder allocates for them.
 */

import { TileSourceError } from '../../core/errors';

/** Declared size of an image, texels. */
export interface ImageSize {
  width: number;
  height: number;
}

const truncated = (format: string) => new TileSourceError('truncated', `${format}: header cut short`, false);

/** Declared size of a baseline/progressive JPEG (first SOF marker). */
export function jpegSize(bytes: Uint8Array): ImageSize {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    throw new TileSourceError('decode-failed', 'JPEG: no SOI marker', false);
  }
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) throw new TileSourceError('decode-failed', 'JPEG: bad marker', false);
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (at + 9 > bytes.length) throw truncated('JPEG');
      return { height: (bytes[at + 5] << 8) | bytes[at + 6], width: (bytes[at + 7] << 8) | bytes[at + 8] };
    }
    if (length < 2) throw new TileSourceError('decode-failed', 'JPEG: bad segment length', false);
    at += 2 + length;
  }
  throw truncated('JPEG');
}

/** Declared size of a lossy (VP8), lossless (VP8L) or extended (VP8X) WebP. */
export function webpSize(bytes: Uint8Array): ImageSize {
  const tag = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (bytes.length < 30) throw truncated('WebP');
  if (tag(0) !== 'RIFF' || tag(8) !== 'WEBP') {
    throw new TileSourceError('decode-failed', 'WebP: not RIFF/WEBP', false);
  }
  const kind = tag(12);
  if (kind === 'VP8 ') {
    return {
      width: (bytes[26] | (bytes[27] << 8)) & 0x3fff,
      height: (bytes[28] | (bytes[29] << 8)) & 0x3fff,
    };
  }
  if (kind === 'VP8L') {
    const b = bytes[21] | (bytes[22] << 8) | (bytes[23] << 16) | (bytes[24] << 24);
    return { width: (b & 0x3fff) + 1, height: ((b >>> 14) & 0x3fff) + 1 };
  }
  if (kind === 'VP8X') {
    return {
      width: (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16)) + 1,
      height: (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16)) + 1,
    };
  }
  throw new TileSourceError('decode-failed', `WebP: unknown chunk '${kind}'`, false);
}
