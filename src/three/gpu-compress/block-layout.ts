import { TesseraConfigError } from '../../core/errors';

/**
 * Block formats the GPU tile compressor writes (WebGPU names): BC7 (16-byte blocks, colour with
 * alpha, mode 6), BC1 (8-byte blocks, opaque colour at half BC7's size), BC5 (16-byte blocks, red
 * and green as two BC4 channels, for tangent-space normals). The sRGB variants store sRGB-encoded
 * colour, as the matching rgba8 sRGB formats do.
 */
export type GpuBlockFormat =
  | 'bc7-rgba-unorm'
  | 'bc7-rgba-unorm-srgb'
  | 'bc1-rgba-unorm'
  | 'bc1-rgba-unorm-srgb'
  | 'bc5-rg-unorm';

/** Every {@link GpuBlockFormat}. */
export const GPU_BLOCK_FORMATS: readonly GpuBlockFormat[] = [
  'bc7-rgba-unorm',
  'bc7-rgba-unorm-srgb',
  'bc1-rgba-unorm',
  'bc1-rgba-unorm-srgb',
  'bc5-rg-unorm',
];

/** Where one tile's blocks sit in the compressor's output buffer, in bytes. */
export interface TileBlockLayout {
  /** Blocks along one side of the tile (tileSize / 4). */
  readonly blocksPerSide: number;
  /** Bytes of one 4x4 block (8 for BC1, 16 for BC7 and BC5). */
  readonly blockBytes: number;
  /** Bytes of one row of blocks as the texture stores it (blocksPerSide x blockBytes). */
  readonly rowBytes: number;
  /**
   * Distance between block rows in the buffer: `rowBytes` rounded up to the row alignment, since
   * `copyBufferToTexture` requires `bytesPerRow` to be a multiple of 256.
   */
  readonly paddedRowBytes: number;
  /** Bytes of one tile in the buffer (`blocksPerSide` padded rows). */
  readonly bufferBytes: number;
  /** Bytes of one tile in the texture (no padding): what the pool slot holds. */
  readonly textureBytes: number;
}

/** Bytes of one 4x4 block of `format`. */
export function blockBytesOf(format: GpuBlockFormat): number {
  return format === 'bc1-rgba-unorm' || format === 'bc1-rgba-unorm-srgb' ? 8 : 16;
}

/** True when `format` stores sRGB-encoded colour (the encoder works on the encoded values). */
export function isSrgbBlockFormat(format: GpuBlockFormat): boolean {
  return format.endsWith('-srgb');
}

/**
 * The buffer layout of one `tileSize²` tile (border included) in `format`, rows padded to
 * `rowAlignment` bytes: a 128-texel tile's BC7 rows (512 bytes) and BC1 rows (256 bytes) need no
 * padding, a 136-texel tile's (544 / 272 bytes) are padded to 768 / 512.
 * @throws TesseraConfigError `invalid-tile` when `tileSize` is not a positive multiple of 4.
 */
export function tileBlockLayout(
  format: GpuBlockFormat,
  tileSize: number,
  rowAlignment = 256,
): TileBlockLayout {
  if (!Number.isInteger(tileSize) || tileSize <= 0 || tileSize % 4 !== 0) {
    throw new TesseraConfigError(
      'invalid-tile',
      `tile size ${tileSize} is not a positive multiple of 4 texels`,
    );
  }
  const blocksPerSide = tileSize / 4;
  const blockBytes = blockBytesOf(format);
  const rowBytes = blocksPerSide * blockBytes;
  const paddedRowBytes = Math.ceil(rowBytes / rowAlignment) * rowAlignment;
  return {
    blocksPerSide,
    blockBytes,
    rowBytes,
    paddedRowBytes,
    bufferBytes: paddedRowBytes * blocksPerSide,
    textureBytes: rowBytes * blocksPerSide,
  };
}
