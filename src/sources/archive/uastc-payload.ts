/**
 * Reads one UASTC layer payload: raw blocks are only checked, Zstandard frames are inflated. The
 * result is the tile's `(tileSize / 4)² x 16` UASTC bytes, which the source hands on as they are
 * (the compressed pool transcodes them). Pure JS (fzstd), so it runs in any worker.
 *
 * Allocation: inflation writes into one scratch buffer per tile size, kept for the life of the
 * thread, then copies into the payload's own buffer when the fetcher gave it room (the archive
 * source does), so a steady stream of tiles allocates nothing here and the result is transferable.
 */

import { decompress } from 'fzstd';
import { TileSourceError } from '../../core/errors';
import { uastcTileBytes } from './archive-format';

/** First four bytes of a Zstandard frame (0xFD2FB528, little-endian). */
const ZSTD_MAGIC = 0xfd2fb528;

let scratch = new Uint8Array(0);

/**
 * The content size a Zstandard frame header declares, in bytes, or -1 when the frame does not
 * declare one. Throws `decode-failed` when `bytes` does not start with a frame header.
 */
export function zstdFrameContentSize(bytes: Uint8Array): number {
  if (bytes.length < 6) throw new TileSourceError('decode-failed', 'Zstandard frame header cut short', false);
  const magic = (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24)) >>> 0;
  if (magic !== ZSTD_MAGIC) throw new TileSourceError('decode-failed', 'not a Zstandard frame', false);
  const descriptor = bytes[4];
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  if ((descriptor >> 3) & 1)
    throw new TileSourceError('decode-failed', 'reserved Zstandard frame bit set', false);
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3];
  const sizeBytes = sizeFlag === 0 ? singleSegment : [1, 2, 4, 8][sizeFlag];
  if (sizeBytes === 0) return -1;
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryBytes;
  if (bytes.length < at + sizeBytes)
    throw new TileSourceError('decode-failed', 'Zstandard frame header cut short', false);
  let size = 0;
  for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + bytes[at + i];
  // The two-byte form is stored minus 256 (RFC 8878, Frame_Content_Size).
  return sizeBytes === 2 ? size + 256 : size;
}

/**
 * Returns the UASTC blocks of one tile from a `uastc` (raw) or `uastc-zstd` payload, or throws a
 * {@link TileSourceError}: `wrong-size` / `oversized` when the blocks (or the size a frame
 * declares) are not exactly `(tileSize / 4)² x 16` bytes, `decode-failed` for a corrupt frame.
 * `bytes` and the rest of its buffer belong to the call: the result may be written into it.
 */
export function decodeUastcPayload(
  encoding: 'uastc' | 'uastc-zstd',
  bytes: Uint8Array,
  tileSize: number,
): Uint8Array<ArrayBuffer> {
  if (tileSize % 4 !== 0) {
    throw new TileSourceError(
      'corrupt',
      `UASTC tiles need a tile size that is a multiple of 4, not ${tileSize}`,
      false,
    );
  }
  const expected = uastcTileBytes(tileSize);
  if (encoding === 'uastc') {
    checkSize('UASTC tile', bytes.length, expected);
    return bytes as Uint8Array<ArrayBuffer>;
  }
  const declared = zstdFrameContentSize(bytes);
  if (declared < 0)
    throw new TileSourceError('decode-failed', 'Zstandard frame without a content size', false);
  checkSize('Zstandard UASTC frame', declared, expected);
  if (scratch.length !== expected) scratch = new Uint8Array(expected);
  let inflated: Uint8Array;
  try {
    // The output buffer is exactly the declared size: a frame cannot write past it.
    inflated = decompress(bytes, scratch);
  } catch (e) {
    throw new TileSourceError('decode-failed', 'corrupt Zstandard frame', false, { cause: e });
  }
  checkSize('inflated UASTC tile', inflated.length, expected);
  const out =
    bytes.byteOffset === 0 && bytes.buffer.byteLength >= expected && bytes.buffer instanceof ArrayBuffer
      ? new Uint8Array(bytes.buffer, 0, expected)
      : new Uint8Array(expected);
  out.set(inflated);
  return out;
}

function checkSize(what: string, length: number, expected: number): void {
  if (length === expected) return;
  throw new TileSourceError(
    length > expected ? 'oversized' : 'wrong-size',
    `${what} is ${length} bytes, expected ${expected}`,
    false,
  );
}
