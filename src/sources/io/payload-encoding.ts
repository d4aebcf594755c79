/**
 * The encodings of one tile's payload: what the decoders (inline and in the decode worker) read and
 * the baker writes. The tile archive stores each layer's encoding by its numeric code (see
 * docs/FORMAT.md, and `archive-format.ts` for the rest of the format).
 */

import { tileLayerBytes } from '../../core/vt/tile-bytes';

/** Payload encoding of a layer; numeric values are the on-disk codes. */
export const PayloadEncoding = {
  /** tileSize² x 4 bytes of rgba8, row-major, no header. */
  raw: 0,
  /** Raw rgba8 compressed with zlib-less DEFLATE (RFC 1951). */
  deflate: 1,
  png: 2,
  jpeg: 3,
  webp: 4,
  /** Version 2: Basis Universal UASTC 4x4 blocks of the whole tile, `(tileSize / 4)² x 16` bytes. */
  uastc: 5,
  /** Version 2: those UASTC blocks as one Zstandard frame per tile (content size declared). */
  'uastc-zstd': 6,
} as const;
/** Name of a payload encoding. */
export type PayloadEncodingName = keyof typeof PayloadEncoding;
/** Encodings this version reads and writes. */
export const SUPPORTED_ENCODINGS: readonly PayloadEncodingName[] = [
  'raw',
  'deflate',
  'png',
  'jpeg',
  'webp',
  'uastc',
  'uastc-zstd',
];

/** True for the encodings whose tiles are UASTC blocks rather than rgba8. */
export function isUastcEncoding(encoding: PayloadEncodingName): boolean {
  return encoding === 'uastc' || encoding === 'uastc-zstd';
}

/** Bytes of one tile's UASTC blocks: 16 per 4x4 block; `tileSize` must be a multiple of 4. */
export function uastcTileBytes(tileSize: number): number {
  return tileLayerBytes('uastc-4x4', tileSize);
}
