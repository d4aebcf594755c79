import { TesseraConfigError } from '../../core/errors';
import type { GpuBlockFormat } from './block-layout';

/** Where a compressed tile goes: texel origin of its slot in the block texture. */
export interface BlockSlotOrigin {
  /** Left edge of the slot, in texels (a multiple of 4). */
  x: number;
  /** Top edge of the slot, in texels (a multiple of 4). */
  y: number;
  /** Array layer of the slot (0 for a 2D texture). */
  arrayLayer?: number;
}

/** Where the tile sits in the source texture (default: its top-left corner). */
export interface SourceTileOrigin {
  /** Left edge of the tile in the source, in texels. */
  x: number;
  /** Top edge of the tile in the source, in texels. */
  y: number;
}

function isTexelCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Checks that `source` can give one `tileSize²` tile at `origin`: an rgba8 (or rgba8 sRGB) 2D
 * texture the shader may read, large enough. Throws a typed error naming what is wrong.
 */
export function checkSourceTile(source: GPUTexture, origin: SourceTileOrigin, tileSize: number): void {
  if (source.format !== 'rgba8unorm' && source.format !== 'rgba8unorm-srgb') {
    throw new TesseraConfigError(
      'invalid-option',
      `source texture format ${source.format} is not rgba8unorm or rgba8unorm-srgb`,
    );
  }
  if (source.dimension !== '2d' || source.depthOrArrayLayers !== 1) {
    throw new TesseraConfigError('invalid-option', 'source texture must be a 2D texture of one layer');
  }
  if ((source.usage & GPUTextureUsage.TEXTURE_BINDING) === 0) {
    throw new TesseraConfigError('invalid-option', 'source texture was created without TEXTURE_BINDING');
  }
  if (!isTexelCount(origin.x) || !isTexelCount(origin.y)) {
    throw new TesseraConfigError(
      'invalid-size',
      `source origin (${origin.x}, ${origin.y}) is not whole texels`,
    );
  }
  if (origin.x + tileSize > source.width || origin.y + tileSize > source.height) {
    throw new TesseraConfigError(
      'invalid-size',
      `a ${tileSize}² tile at (${origin.x}, ${origin.y}) does not fit the ${source.width}x${source.height} source`,
    );
  }
}

/**
 * Checks that `target` is a `format` texture with a block-aligned `tileSize²` slot at `slot` that
 * a buffer copy may write. Throws a typed error naming what is wrong.
 */
export function checkBlockSlot(
  target: GPUTexture,
  format: GpuBlockFormat,
  slot: BlockSlotOrigin,
  tileSize: number,
): void {
  if (target.format !== format) {
    throw new TesseraConfigError(
      'invalid-option',
      `pool texture format ${target.format} is not the compressor's ${format}`,
    );
  }
  if ((target.usage & GPUTextureUsage.COPY_DST) === 0) {
    throw new TesseraConfigError('invalid-option', 'pool texture was created without COPY_DST');
  }
  const layer = slot.arrayLayer ?? 0;
  if (!isTexelCount(slot.x) || !isTexelCount(slot.y) || !isTexelCount(layer)) {
    throw new TesseraConfigError(
      'invalid-size',
      `slot origin (${slot.x}, ${slot.y}, layer ${layer}) is not whole texels`,
    );
  }
  if (slot.x % 4 !== 0 || slot.y % 4 !== 0) {
    throw new TesseraConfigError('invalid-size', `slot origin (${slot.x}, ${slot.y}) is not on a 4x4 block`);
  }
  if (slot.x + tileSize > target.width || slot.y + tileSize > target.height) {
    throw new TesseraConfigError(
      'invalid-size',
      `a ${tileSize}² slot at (${slot.x}, ${slot.y}) does not fit the ${target.width}x${target.height} pool`,
    );
  }
  if (layer >= target.depthOrArrayLayers) {
    throw new TesseraConfigError(
      'invalid-size',
      `array layer ${layer} is past the pool's ${target.depthOrArrayLayers} layers`,
    );
  }
}
