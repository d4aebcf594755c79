/**
 * Reads what a KTX2 file says before its level data: the 80-byte header, the level index, the Data
 * Format Descriptor and where the supercompression global data ends (KTX 2.0 spec, section 3), so
 * each level can then be fetched alone by byte range. Every field is bound-checked into a
 * {@link TileSourceError}; nothing here allocates more than the index.
 */

import { type TesseraConfigError, TileSourceError } from '../../core/errors';
import {
  type BasisLzGlobalData,
  checkPyramidShape,
  type Etc1sPyramidFormat,
  isSrgbFormat,
  levelByteLength,
  type StreamedTextureFormat,
  type UastcPyramidFormat,
  uastcLevelByteLength,
} from '../../core/streaming/mip-pyramid-source';
import { parseBasisLzGlobalData } from './basislz-global-data';
import { DFD_MODEL, DFD_TRANSFER_SRGB, ktx2FormatEntry } from './ktx2-formats';

/** Bytes of the fixed KTX2 header; the level index follows it. */
export const KTX2_HEADER_BYTES = 80;
/** Bytes of one level index entry (byteOffset, byteLength, uncompressedByteLength: u64 each). */
export const KTX2_LEVEL_ENTRY_BYTES = 24;
/** Largest header + index + DFD + key/value data + global data accepted, bytes (a bound on a bad header). */
export const KTX2_MAX_PREFIX_BYTES = 1 << 20;

/** Longest level-0 edge accepted, texels (WebGPU's `maxTextureDimension2D` is 8192 to 16384). */
export const KTX2_MAX_EDGE = 16384;

const IDENTIFIER = [0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * KTX2 `supercompressionScheme` values this reader reads: stored, zstd and zlib levels are
 * inflated here; BasisLZ (ETC1S) levels stay as stored and are decoded by the transcoder.
 */
export type Ktx2Supercompression = 'none' | 'zstd' | 'zlib' | 'basislz';

/** What a stream needs to know about a KTX2 file: its shape, format and where each level lies. */
export interface Ktx2Layout {
  /** Width of level 0, in texels. */
  readonly width: number;
  /** Height of level 0, in texels. */
  readonly height: number;
  /** Levels in the file (at least 1). */
  readonly levelCount: number;
  /** The levels' format: as stored, or UASTC blocks / ETC1S slices to transcode. */
  readonly format: StreamedTextureFormat | UastcPyramidFormat | Etc1sPyramidFormat;
  /**
   * UASTC: the DFD says the blocks carry alpha (channel RGBA or RRRG); ETC1S: the DFD has an alpha
   * sample (alpha slices); false otherwise.
   */
  readonly hasAlpha: boolean;
  /** ETC1S only: the checked BasisLZ codebooks and slice positions; null otherwise. */
  readonly basisLz: BasisLzGlobalData | null;
  /**
   * The levels' supercompression: `zstd` and `zlib` are inflated on load; `basislz` is ETC1S, which
   * the transcoder decodes.
   */
  readonly supercompression: Ktx2Supercompression;
  /** Byte offset of each level in the file (index = level, 0 finest). */
  readonly levelOffsets: Float64Array;
  /** Stored bytes of each level. */
  readonly levelLengths: Float64Array;
  /**
   * Bytes of each level once inflated (exactly its texel bytes, block padding included); for
   * ETC1S, its stored bytes (its slices, decoded only by the transcoder).
   */
  readonly levelBytes: Float64Array;
  /** Bytes from the start of the file to the end of the last metadata section (before any level). */
  readonly prefixBytes: number;
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/** A u64 as a number; values past 2^53 (no real file) are a corrupt header. */
function u64(bytes: Uint8Array, at: number, what: string): number {
  const high = u32(bytes, at + 4);
  if (high >= 1 << 21) throw new TileSourceError('corrupt', `KTX2 ${what} is past 2^53 bytes`, false);
  return high * 2 ** 32 + u32(bytes, at);
}

/**
 * Bytes from the start of the file that hold every metadata section (header, level index, DFD,
 * key/value data, supercompression global data), read from the first {@link KTX2_HEADER_BYTES}.
 * @throws TileSourceError 'truncated' (fewer than 80 bytes), 'bad-magic', 'oversized' (past
 *   {@link KTX2_MAX_PREFIX_BYTES}).
 */
export function ktx2PrefixBytes(head: Uint8Array): number {
  if (head.length < KTX2_HEADER_BYTES) {
    throw new TileSourceError('truncated', `KTX2 header cut short at ${head.length} bytes`, false);
  }
  for (let i = 0; i < IDENTIFIER.length; i++) {
    if (head[i] !== IDENTIFIER[i]) throw new TileSourceError('bad-magic', 'not a KTX2 file', false);
  }
  const levels = Math.max(1, u32(head, 40));
  let end = KTX2_HEADER_BYTES + levels * KTX2_LEVEL_ENTRY_BYTES;
  end = Math.max(end, u32(head, 48) + u32(head, 52), u32(head, 56) + u32(head, 60));
  end = Math.max(end, u64(head, 64, 'global data offset') + u64(head, 72, 'global data length'));
  if (end > KTX2_MAX_PREFIX_BYTES) {
    throw new TileSourceError(
      'oversized',
      `KTX2 metadata of ${end} bytes (most ${KTX2_MAX_PREFIX_BYTES})`,
      false,
    );
  }
  return end;
}

/**
 * Parses and checks the metadata of a KTX2 file of `fileBytes` bytes from its first
 * {@link ktx2PrefixBytes} bytes.
 * @throws TileSourceError: 'truncated' (prefix cut short), 'bad-magic', 'corrupt' (a field out of
 *   range, or a DFD that does not match the vkFormat), 'bad-index' (a level outside the file or
 *   of the wrong size), 'unsupported' (an unknown vkFormat or
 *   supercompression, cube maps, arrays, 3D textures, a pyramid without levels down to 64 texels).
 */
export function parseKtx2Layout(prefix: Uint8Array, fileBytes: number): Ktx2Layout {
  const prefixBytes = ktx2PrefixBytes(prefix);
  if (prefix.length < prefixBytes) {
    throw new TileSourceError(
      'truncated',
      `KTX2 metadata needs ${prefixBytes} bytes, got ${prefix.length}`,
      false,
    );
  }
  const vkFormat = u32(prefix, 12);
  const width = u32(prefix, 20);
  const height = u32(prefix, 24);
  const depth = u32(prefix, 28);
  const layers = u32(prefix, 32);
  const faces = u32(prefix, 36);
  const levelCount = Math.max(1, u32(prefix, 40));
  const scheme = u32(prefix, 44);
  const dfdOffset = u32(prefix, 48);
  const dfdLength = u32(prefix, 52);
  if (faces !== 1 || layers > 1 || depth > 1) {
    throw new TileSourceError(
      'unsupported',
      `KTX2 cube maps, arrays and 3D textures are not streamed (faces ${faces}, layers ${layers}, depth ${depth})`,
      false,
    );
  }
  if (width === 0 || height === 0) {
    throw new TileSourceError('corrupt', `KTX2 size ${width}x${height}`, false);
  }
  // Bounds what one inflated level may allocate (a 16384² rgba8 level is 1 GiB).
  if (width > KTX2_MAX_EDGE || height > KTX2_MAX_EDGE) {
    throw new TileSourceError(
      'oversized',
      `KTX2 size ${width}x${height} (most ${KTX2_MAX_EDGE} texels an edge)`,
      false,
    );
  }
  // A DFD holds its total size (4 bytes) and at least one basic block header (24 bytes).
  if (dfdLength < 28 || dfdOffset < KTX2_HEADER_BYTES) {
    throw new TileSourceError('corrupt', `KTX2 DFD of ${dfdLength} bytes at ${dfdOffset}`, false);
  }
  const colorModel = prefix[dfdOffset + 12];
  const transfer = prefix[dfdOffset + 14];
  const blockWidth = prefix[dfdOffset + 16] + 1;
  const blockHeight = prefix[dfdOffset + 17] + 1;
  // ETC1S payloads come only BasisLZ-supercompressed, and BasisLZ holds only ETC1S.
  const etc1s = scheme === 1;
  if (
    etc1s !== (colorModel === DFD_MODEL.etc1s) ||
    (etc1s && (vkFormat !== 0 || blockWidth !== 4 || blockHeight !== 4))
  ) {
    throw new TileSourceError(
      'corrupt',
      `KTX2 supercompression ${scheme} with DFD model ${colorModel}, vkFormat ${vkFormat}, block ${blockWidth}x${blockHeight} (BasisLZ needs ETC1S, vkFormat 0, 4x4)`,
      false,
    );
  }
  const supercompression =
    scheme === 0 ? 'none' : scheme === 1 ? 'basislz' : scheme === 2 ? 'zstd' : scheme === 3 ? 'zlib' : null;
  if (supercompression === null) {
    throw new TileSourceError(
      'unsupported',
      `KTX2 supercompression scheme ${scheme} is not supported`,
      false,
    );
  }
  const uastc = colorModel === DFD_MODEL.uastc;
  if (uastc && (vkFormat !== 0 || blockWidth !== 4 || blockHeight !== 4)) {
    throw new TileSourceError(
      'corrupt',
      `KTX2 UASTC DFD with vkFormat ${vkFormat} and block ${blockWidth}x${blockHeight} (expected 0 and 4x4)`,
      false,
    );
  }
  const format = uastc
    ? uastcFormatOf(transfer)
    : etc1s
      ? transfer === DFD_TRANSFER_SRGB
        ? 'etc1s-srgb'
        : 'etc1s'
      : storedFormatOf(vkFormat, colorModel, transfer, blockWidth, blockHeight);
  // The first sample's channel (KHR_DF_CHANNEL_UASTC_*): RGBA (3) and RRRG (5) carry alpha.
  const channel = dfdLength >= 32 ? prefix[dfdOffset + 31] & 0x0f : 0;
  // ETC1S: a second sample (the AAA slice) after the 24-byte block header and the first 16-byte one.
  const etc1sSamples = (u32(prefix, dfdOffset + 8) >>> 16) - 24;
  const hasAlpha = uastc ? channel === 3 || channel === 5 : etc1s && etc1sSamples >= 32;
  try {
    checkPyramidShape(width, height, levelCount);
  } catch (error) {
    throw new TileSourceError('unsupported', `KTX2 pyramid: ${(error as TesseraConfigError).message}`, false);
  }
  const levelOffsets = new Float64Array(levelCount);
  const levelLengths = new Float64Array(levelCount);
  const levelBytes = new Float64Array(levelCount);
  for (let level = 0; level < levelCount; level++) {
    const at = KTX2_HEADER_BYTES + level * KTX2_LEVEL_ENTRY_BYTES;
    const offset = u64(prefix, at, `level ${level} offset`);
    const length = u64(prefix, at + 8, `level ${level} length`);
    const inflated = u64(prefix, at + 16, `level ${level} uncompressed length`);
    const expected =
      format === 'uastc-4x4' || format === 'uastc-4x4-srgb'
        ? uastcLevelByteLength(width, height, level)
        : format === 'etc1s' || format === 'etc1s-srgb'
          ? 0
          : levelByteLength(format, width, height, level);
    if (offset < prefixBytes || offset + length > fileBytes || length === 0) {
      throw new TileSourceError(
        'bad-index',
        `KTX2 level ${level} (${length} bytes at ${offset}) lies outside the level data (${prefixBytes}..${fileBytes})`,
        false,
      );
    }
    if (inflated !== expected || (supercompression === 'none' && length !== expected)) {
      throw new TileSourceError(
        'bad-index',
        `KTX2 level ${level} holds ${inflated} bytes (${length} stored), expected ${expected}`,
        false,
      );
    }
    levelOffsets[level] = offset;
    levelLengths[level] = length;
    // BasisLZ levels declare 0 uncompressed bytes (the spec's rule): they are read as stored.
    levelBytes[level] = etc1s ? length : expected;
  }
  const basisLz = etc1s
    ? parseBasisLzGlobalData(
        prefix,
        u64(prefix, 64, 'global data offset'),
        u64(prefix, 72, 'global data length'),
        levelLengths,
        hasAlpha,
      )
    : null;
  return {
    width,
    height,
    levelCount,
    format,
    hasAlpha,
    basisLz,
    supercompression,
    levelOffsets,
    levelLengths,
    levelBytes,
    prefixBytes,
  };
}

function uastcFormatOf(transfer: number): UastcPyramidFormat {
  return transfer === DFD_TRANSFER_SRGB ? 'uastc-4x4-srgb' : 'uastc-4x4';
}

/** The format of a vkFormat taken as stored, checked against its DFD. */
function storedFormatOf(
  vkFormat: number,
  colorModel: number,
  transfer: number,
  blockWidth: number,
  blockHeight: number,
): StreamedTextureFormat {
  const entry = ktx2FormatEntry(vkFormat);
  if (entry === undefined) {
    throw new TileSourceError('unsupported', `KTX2 vkFormat ${vkFormat} is not supported`, false);
  }
  const format = entry.format;
  const block = format.startsWith('rgba8') ? 1 : 4;
  // A DFD whose model is 0 (KHR_DF_MODEL_UNSPECIFIED, what minimal writers leave) declares no
  // model or block size to contradict the vkFormat; its transfer function is still checked.
  const declared = colorModel !== DFD_MODEL.unspecified;
  if (
    (declared && (colorModel !== entry.colorModel || blockWidth !== block || blockHeight !== block)) ||
    (transfer === DFD_TRANSFER_SRGB) !== isSrgbFormat(format)
  ) {
    throw new TileSourceError(
      'corrupt',
      `KTX2 DFD (model ${colorModel}, transfer ${transfer}, block ${blockWidth}x${blockHeight}) does not match vkFormat ${vkFormat} (${format})`,
      false,
    );
  }
  return format;
}
