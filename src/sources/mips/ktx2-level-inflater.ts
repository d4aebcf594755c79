/**
 * One stored KTX2 level to its texel bytes: as stored, or inflated from Zstandard (`zstddec`, the
 * wasm libzstd three's KTX2Loader uses too, loaded on the first zstd level) or zlib (`fflate`).
 * The result is exactly the level's texel bytes or a {@link TileSourceError}: a declared or
 * inflated size other than the index's is corruption, and inflation never writes past that size.
 */

import { unzlibSync } from 'fflate';
import { TileSourceError } from '../../core/errors';
import { loadZstd, zstdFrameContentSize } from '../io/uastc-payload';
import type { Ktx2Supercompression } from './ktx2-layout';

/**
 * @param stored the level's bytes as stored in the file.
 * @param expected the level's texel bytes (its `uncompressedByteLength`, checked against its size).
 * @throws TileSourceError('decode-failed') for a corrupt stream or one of another size.
 */
export async function inflateKtx2Level(
  scheme: Ktx2Supercompression,
  stored: Uint8Array,
  expected: number,
): Promise<Uint8Array> {
  // BasisLZ levels are ETC1S slices the transcoder decodes with the file's codebooks.
  if (scheme === 'none' || scheme === 'basislz') return stored;
  if (scheme === 'zstd') {
    const declared = zstdFrameContentSize(stored);
    if (declared >= 0 && declared !== expected) {
      throw new TileSourceError(
        'decode-failed',
        `zstd level declares ${declared} bytes, expected ${expected}`,
        false,
      );
    }
    const zstd = await loadZstd();
    let inflated: Uint8Array;
    try {
      inflated = zstd.decode(stored, expected);
    } catch (error) {
      throw new TileSourceError('decode-failed', 'corrupt Zstandard level', false, { cause: error });
    }
    // zstddec reports libzstd's errors as a short result.
    if (inflated.length !== expected) {
      throw new TileSourceError('decode-failed', 'corrupt Zstandard level', false);
    }
    return inflated;
  }
  let inflated: Uint8Array;
  try {
    // A fixed output buffer: a stream inflating past `expected` fails instead of growing.
    inflated = unzlibSync(stored, { out: new Uint8Array(expected) });
  } catch (error) {
    throw new TileSourceError('decode-failed', 'corrupt zlib level', false, { cause: error });
  }
  if (inflated.length !== expected) {
    throw new TileSourceError(
      'decode-failed',
      `zlib level inflates to ${inflated.length} bytes, expected ${expected}`,
      false,
    );
  }
  return inflated;
}
