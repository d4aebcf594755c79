import { TesseraConfigError } from '../errors';
import { type TextureFormatName, textureFormatInfo } from './texture-format';

/** The size-relevant fields of a GPU texture, as in a WebGPU texture descriptor. */
export interface TextureByteDescriptor {
  /** Format name; block-compressed formats are sized by whole blocks. */
  format: TextureFormatName;
  /** Width of level 0 in texels. */
  width: number;
  /** Height of level 0 in texels. */
  height: number;
  /** Mip levels stored, from level 0 down (default 1). */
  mipLevelCount?: number;
  /** Array layers (2d) or depth slices (3d) of level 0 (default 1). */
  depthOrArrayLayers?: number;
  /** '3d' halves the depth per level; '2d' keeps the layer count (default '2d'). */
  dimension?: '2d' | '3d';
  /** MSAA samples, 1 or 4 (default 1); multisampled textures have one level. */
  sampleCount?: number;
}

/** Largest edge accepted, in texels (well beyond any adapter's limit, so only nonsense is refused). */
export const MAX_TEXTURE_EDGE = 65536;

function checkEdge(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 1 || value > MAX_TEXTURE_EDGE) {
    throw new TesseraConfigError(
      'invalid-size',
      `${what} must be an integer in 1..${MAX_TEXTURE_EDGE}, got ${value}.`,
    );
  }
}

/** Number of levels of a full mip chain for a `width` x `height` (x `depth` for 3d) texture. */
export function fullMipCount(width: number, height: number, depth = 1): number {
  checkEdge(width, 'width');
  checkEdge(height, 'height');
  checkEdge(depth, 'depth');
  return 32 - Math.clz32(Math.max(width, height, depth));
}

/**
 * Bytes of one mip level of one layer/slice: whole blocks of the format.
 * No validation (hot path); `level` must be within the chain.
 */
export function mipLevelBytes(
  format: TextureFormatName,
  width: number,
  height: number,
  level: number,
): number {
  const info = textureFormatInfo(format);
  const w = Math.max(1, width >>> level);
  const h = Math.max(1, height >>> level);
  return Math.ceil(w / info.blockWidth) * Math.ceil(h / info.blockHeight) * info.bytesPerBlock;
}

/**
 * Exact bytes a texture occupies: the sum over its levels of whole blocks x layers (2d arrays) or
 * slices (3d, halved per level) x samples. Driver padding/alignment is not modelled.
 * e.g. 256x256 rgba8unorm full chain = 349,524 bytes; 256x256 bc7-rgba-unorm one level = 65,536 bytes.
 * @throws TesseraConfigError('invalid-size' | 'invalid-layers' | 'invalid-option') for bad descriptors.
 */
export function textureBytes(desc: TextureByteDescriptor): number {
  return textureLevelRangeBytes(desc, 0, desc.mipLevelCount ?? 1);
}

/**
 * Bytes of levels `firstLevel .. firstLevel + levelCount - 1` of the texture `desc` describes
 * (a streamed texture whose finest resident level is `firstLevel`), same rules as {@link textureBytes}.
 */
export function textureLevelRangeBytes(
  desc: TextureByteDescriptor,
  firstLevel: number,
  levelCount: number,
): number {
  const { format, width, height } = desc;
  const layers = desc.depthOrArrayLayers ?? 1;
  const is3d = (desc.dimension ?? '2d') === '3d';
  const samples = desc.sampleCount ?? 1;
  const mips = desc.mipLevelCount ?? 1;
  textureFormatInfo(format);
  checkEdge(width, 'width');
  checkEdge(height, 'height');
  if (!Number.isInteger(layers) || layers < 1 || layers > MAX_TEXTURE_EDGE) {
    throw new TesseraConfigError(
      'invalid-layers',
      `depthOrArrayLayers must be an integer >= 1, got ${layers}.`,
    );
  }
  if (samples !== 1 && samples !== 4) {
    throw new TesseraConfigError('invalid-option', `sampleCount must be 1 or 4, got ${samples}.`);
  }
  const maxMips = fullMipCount(width, height, is3d ? layers : 1);
  if (!Number.isInteger(mips) || mips < 1 || mips > maxMips || (samples > 1 && mips !== 1)) {
    throw new TesseraConfigError(
      'invalid-option',
      `mipLevelCount must be 1..${maxMips} (1 when multisampled), got ${mips}.`,
    );
  }
  if (!Number.isInteger(firstLevel) || !Number.isInteger(levelCount) || firstLevel < 0 || levelCount < 0) {
    throw new TesseraConfigError('invalid-option', `Level range ${firstLevel}+${levelCount} is not valid.`);
  }
  if (firstLevel + levelCount > mips) {
    throw new TesseraConfigError(
      'invalid-option',
      `Level range ${firstLevel}+${levelCount} exceeds ${mips} levels.`,
    );
  }
  let total = 0;
  for (let level = firstLevel; level < firstLevel + levelCount; level++) {
    const slices = is3d ? Math.max(1, layers >>> level) : layers;
    total += mipLevelBytes(format, width, height, level) * slices;
  }
  return total * samples;
}

/**
 * Bytes a GPU buffer of `size` bytes occupies: WebGPU implementations round buffer sizes up to a
 * multiple of 4 bytes, so the budget counts the rounded figure.
 * @throws TesseraConfigError('invalid-size') for a negative or non-integer size.
 */
export function bufferBytes(size: number): number {
  if (!Number.isInteger(size) || size < 0) {
    throw new TesseraConfigError('invalid-size', `Buffer size must be a non-negative integer, got ${size}.`);
  }
  return Math.ceil(size / 4) * 4;
}
