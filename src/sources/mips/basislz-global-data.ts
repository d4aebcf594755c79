/**
 * The BasisLZ supercompression global data of an ETC1S KTX2 file (KTX 2.0 section 3.12.1): the
 * endpoint and selector codebooks and Huffman tables every level's slices decode against, and one
 * image descriptor per level saying where its RGB and alpha slices lie. Read from the metadata
 * prefix (the same Range request as the header), every field bound-checked.
 */

import { TileSourceError } from '../../core/errors';
import type { BasisLzGlobalData } from '../../core/streaming/mip-pyramid-source';

/** Bytes before the image descriptors: two u16 counts and four u32 byte lengths. */
const FIXED_BYTES = 20;
/** Bytes of one image descriptor: flags and the RGB and alpha slice offset and length (u32 each). */
const IMAGE_DESC_BYTES = 20;
/** `imageFlags` bit of a video P-frame, which needs the previous frame: not a texture. */
const P_FRAME_FLAG = 0x2;

function u16(bytes: Uint8Array, at: number): number {
  return bytes[at] | (bytes[at + 1] << 8);
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/**
 * Parses the global data at `offset` (`length` bytes) of `prefix` for a 2D texture of
 * `levelLengths.length` levels (one image per level), each level `levelLengths[level]` bytes.
 * The codebooks are copied out so each owns its buffer (they travel to the transcode workers).
 * @throws TileSourceError('corrupt') when the sections do not add up to `length`, a codebook is
 *   empty, or a slice lies outside its level (or alpha slices are missing where the DFD declares
 *   alpha); ('unsupported') for video P-frames.
 */
export function parseBasisLzGlobalData(
  prefix: Uint8Array,
  offset: number,
  length: number,
  levelLengths: Float64Array,
  hasAlphaSlices: boolean,
): BasisLzGlobalData {
  const levels = levelLengths.length;
  const descBytes = levels * IMAGE_DESC_BYTES;
  if (length < FIXED_BYTES + descBytes || offset + length > prefix.length) {
    throw new TileSourceError(
      'corrupt',
      `KTX2 BasisLZ global data of ${length} bytes cannot hold ${levels} image descriptors`,
      false,
    );
  }
  const endpointCount = u16(prefix, offset);
  const selectorCount = u16(prefix, offset + 2);
  const endpointsBytes = u32(prefix, offset + 4);
  const selectorsBytes = u32(prefix, offset + 8);
  const tablesBytes = u32(prefix, offset + 12);
  const extendedBytes = u32(prefix, offset + 16);
  const total = FIXED_BYTES + descBytes + endpointsBytes + selectorsBytes + tablesBytes + extendedBytes;
  if (total !== length) {
    throw new TileSourceError(
      'corrupt',
      `KTX2 BasisLZ global data sections add up to ${total} bytes, the header says ${length}`,
      false,
    );
  }
  if (
    endpointCount === 0 ||
    selectorCount === 0 ||
    endpointsBytes === 0 ||
    selectorsBytes === 0 ||
    tablesBytes === 0
  ) {
    throw new TileSourceError('corrupt', 'KTX2 BasisLZ global data has an empty codebook', false);
  }
  const slices = new Uint32Array(levels * 4);
  for (let level = 0; level < levels; level++) {
    const at = offset + FIXED_BYTES + level * IMAGE_DESC_BYTES;
    const flags = u32(prefix, at);
    if ((flags & P_FRAME_FLAG) !== 0) {
      throw new TileSourceError('unsupported', `KTX2 BasisLZ level ${level} is a video P-frame`, false);
    }
    const rgbOffset = u32(prefix, at + 4);
    const rgbLength = u32(prefix, at + 8);
    const alphaOffset = u32(prefix, at + 12);
    const alphaLength = u32(prefix, at + 16);
    const levelLength = levelLengths[level];
    if (
      rgbLength === 0 ||
      rgbOffset + rgbLength > levelLength ||
      alphaOffset + alphaLength > levelLength ||
      hasAlphaSlices !== alphaLength > 0
    ) {
      throw new TileSourceError(
        'corrupt',
        `KTX2 BasisLZ level ${level}: slices (rgb ${rgbOffset}+${rgbLength}, alpha ${alphaOffset}+${alphaLength}) do not fit its ${levelLength} bytes${hasAlphaSlices ? ' with alpha' : ''}`,
        false,
      );
    }
    slices.set([rgbOffset, rgbLength, alphaOffset, alphaLength], level * 4);
  }
  let at = offset + FIXED_BYTES + descBytes;
  const endpoints = prefix.slice(at, at + endpointsBytes);
  at += endpointsBytes;
  const selectors = prefix.slice(at, at + selectorsBytes);
  at += selectorsBytes;
  const tables = prefix.slice(at, at + tablesBytes);
  return { endpointCount, selectorCount, endpoints, selectors, tables, hasAlphaSlices, slices };
}
