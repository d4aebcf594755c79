/**
 * Reads one UASTC layer payload: raw blocks are only checked, Zstandard frames are inflated. The
 * result is the tile's `(tileSize / 4)² x 16` UASTC bytes, which the source hands on as they are
 * (the compressed pool transcodes them).
 *
 * Inflation uses `zstddec` (reference libzstd in WebAssembly, embedded in the module, so it loads
 * in any worker and bundler; three's KTX2Loader uses it too): ~55 µs per 16 KiB tile here, against
 * ~1 ms for the pure-JS fzstd (`bench/sources-uastc.bench.ts`). Its output buffer, allocated once
 * per tile, is the result itself: nothing is copied, and a worker transfers it back as it is.
 */

import type { ZSTDDecoder } from 'zstddec';
import { TileSourceError } from '../../core/errors';
import { uastcTileBytes } from './payload-encoding';

/** First four bytes of a Zstandard frame (0xFD2FB528, little-endian). */
const ZSTD_MAGIC = 0xfd2fb528;

let zstdReady: Promise<ZSTDDecoder> | undefined;

/**
 * The decoder, loaded on the first zstd payload (its own chunk: pages without zstd never load it);
 * shared by the archive's UASTC tiles and zstd-supercompressed KTX2 levels.
 */
export function loadZstd(): Promise<ZSTDDecoder> {
  zstdReady ??= import('zstddec').then(async ({ ZSTDDecoder }) => {
    const decoder = new ZSTDDecoder();
    await decoder.init();
    return decoder;
  });
  return zstdReady;
}

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
  if ((descriptor >> 3) & 1) {
    throw new TileSourceError('decode-failed', 'reserved Zstandard frame bit set', false);
  }
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3];
  const sizeBytes = sizeFlag === 0 ? singleSegment : [1, 2, 4, 8][sizeFlag];
  if (sizeBytes === 0) return -1;
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryBytes;
  if (bytes.length < at + sizeBytes) {
    throw new TileSourceError('decode-failed', 'Zstandard frame header cut short', false);
  }
  let size = 0;
  for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + bytes[at + i];
  // The two-byte form is stored minus 256 (RFC 8878, Frame_Content_Size).
  return sizeBytes === 2 ? size + 256 : size;
}

/**
 * Returns the UASTC blocks of one tile from a `uastc` (raw: `bytes` itself) or `uastc-zstd`
 * payload, or rejects with a {@link TileSourceError}: `wrong-size` / `oversized` when the blocks
 * (or the size a frame declares) are not exactly `(tileSize / 4)² x 16` bytes, `decode-failed`
 * for a corrupt frame. The frame's declared size is checked first, so inflation never allocates
 * more than one tile.
 */
export async function decodeUastcPayload(
  encoding: 'uastc' | 'uastc-zstd',
  bytes: Uint8Array,
  tileSize: number,
): Promise<Uint8Array<ArrayBuffer>> {
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
  if (declared < 0) {
    throw new TileSourceError('decode-failed', 'Zstandard frame without a content size', false);
  }
  checkSize('Zstandard UASTC frame', declared, expected);
  const zstd = await loadZstd();
  let inflated: Uint8Array;
  try {
    inflated = zstd.decode(bytes, expected);
  } catch (e) {
    throw new TileSourceError('decode-failed', 'corrupt Zstandard frame', false, { cause: e });
  }
  // libzstd reports a corrupt frame as an error code, which zstddec turns into a short result:
  // the frame declared exactly one tile, so any other length is corruption.
  if (inflated.length !== expected) {
    throw new TileSourceError('decode-failed', 'corrupt Zstandard frame', false);
  }
  return inflated as Uint8Array<ArrayBuffer>;
}

function checkSize(what: string, length: number, expected: number): void {
  if (length === expected) return;
  throw new TileSourceError(
    length > expected ? 'oversized' : 'wrong-size',
    `${what} is ${length} bytes, expected ${expected}`,
    false,
  );
}
