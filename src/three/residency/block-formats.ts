/**
 * The one table of block-compressed texture formats on the device: the WebGPU feature and the
 * WebGL2 extensions each needs, and the three.js constant that allocates or uploads it. Pool
 * textures (`compressed-pool-texture.ts`), the device's compression support
 * (`compression-support.ts`) and streamed textures (`streamed/streamed-format-support.ts`) all read
 * it, so a format's requirements are written once. Colour space (sRGB or linear) is carried by
 * `texture.colorSpace`, as three expects, so the sRGB variants share a three constant.
 */

import {
  type CompressedPixelFormat,
  R11_EAC_Format,
  RED_GREEN_RGTC2_Format,
  RED_RGTC1_Format,
  RG11_EAC_Format,
  RGB_ETC2_Format,
  RGBA_ASTC_4x4_Format,
  RGBA_BPTC_Format,
  RGBA_ETC2_EAC_Format,
  RGBA_S3TC_DXT1_Format,
  RGBA_S3TC_DXT5_Format,
  SIGNED_R11_EAC_Format,
  SIGNED_RED_GREEN_RGTC2_Format,
  SIGNED_RED_RGTC1_Format,
  SIGNED_RG11_EAC_Format,
} from 'three';
import type { StreamedTextureFormat } from '../../core/streaming/mip-pyramid-source';

/** Every block-compressed format Tessera uploads (WebGPU names): the streamed ones, which include the pool's. */
export type BlockTextureFormat = Exclude<StreamedTextureFormat, 'rgba8unorm' | 'rgba8unorm-srgb'>;

/** The WebGPU feature a block format needs. */
export type BlockCompressionFeature =
  | 'texture-compression-bc'
  | 'texture-compression-etc2'
  | 'texture-compression-astc';

/** How one block format reaches the GPU. */
export interface BlockFormatEntry {
  /** three.js constant of the format (the same for its sRGB variant). */
  readonly three: CompressedPixelFormat;
  /** The WebGPU feature it needs. */
  readonly feature: BlockCompressionFeature;
  /** WebGL2 extensions of which one must exist (sRGB variants may need their own). */
  readonly glExtensions: readonly string[];
}

const S3TC = ['WEBGL_compressed_texture_s3tc'];
const S3TC_SRGB = ['WEBGL_compressed_texture_s3tc_srgb'];
const RGTC = ['EXT_texture_compression_rgtc'];
const BPTC = ['EXT_texture_compression_bptc'];
const ETC = ['WEBGL_compressed_texture_etc'];
const ASTC = ['WEBGL_compressed_texture_astc'];

const BC = 'texture-compression-bc';
const ETC2 = 'texture-compression-etc2';
const ASTC_4X4 = 'texture-compression-astc';

const BLOCK_FORMATS: Readonly<Record<BlockTextureFormat, BlockFormatEntry>> = {
  'bc1-rgba-unorm': { three: RGBA_S3TC_DXT1_Format, feature: BC, glExtensions: S3TC },
  'bc1-rgba-unorm-srgb': { three: RGBA_S3TC_DXT1_Format, feature: BC, glExtensions: S3TC_SRGB },
  'bc3-rgba-unorm': { three: RGBA_S3TC_DXT5_Format, feature: BC, glExtensions: S3TC },
  'bc3-rgba-unorm-srgb': { three: RGBA_S3TC_DXT5_Format, feature: BC, glExtensions: S3TC_SRGB },
  'bc4-r-unorm': { three: RED_RGTC1_Format, feature: BC, glExtensions: RGTC },
  'bc4-r-snorm': { three: SIGNED_RED_RGTC1_Format, feature: BC, glExtensions: RGTC },
  'bc5-rg-unorm': { three: RED_GREEN_RGTC2_Format, feature: BC, glExtensions: RGTC },
  'bc5-rg-snorm': { three: SIGNED_RED_GREEN_RGTC2_Format, feature: BC, glExtensions: RGTC },
  'bc7-rgba-unorm': { three: RGBA_BPTC_Format, feature: BC, glExtensions: BPTC },
  'bc7-rgba-unorm-srgb': { three: RGBA_BPTC_Format, feature: BC, glExtensions: BPTC },
  'etc2-rgb8unorm': { three: RGB_ETC2_Format, feature: ETC2, glExtensions: ETC },
  'etc2-rgb8unorm-srgb': { three: RGB_ETC2_Format, feature: ETC2, glExtensions: ETC },
  'etc2-rgba8unorm': { three: RGBA_ETC2_EAC_Format, feature: ETC2, glExtensions: ETC },
  'etc2-rgba8unorm-srgb': { three: RGBA_ETC2_EAC_Format, feature: ETC2, glExtensions: ETC },
  'eac-r11unorm': { three: R11_EAC_Format, feature: ETC2, glExtensions: ETC },
  'eac-r11snorm': { three: SIGNED_R11_EAC_Format, feature: ETC2, glExtensions: ETC },
  'eac-rg11unorm': { three: RG11_EAC_Format, feature: ETC2, glExtensions: ETC },
  'eac-rg11snorm': { three: SIGNED_RG11_EAC_Format, feature: ETC2, glExtensions: ETC },
  'astc-4x4-unorm': { three: RGBA_ASTC_4x4_Format, feature: ASTC_4X4, glExtensions: ASTC },
  'astc-4x4-unorm-srgb': { three: RGBA_ASTC_4x4_Format, feature: ASTC_4X4, glExtensions: ASTC },
};

/** The table's entry for `format`, or undefined when it is not a block format (rgba8, unknown). */
export function blockFormatEntry(format: string): BlockFormatEntry | undefined {
  return Object.hasOwn(BLOCK_FORMATS, format) ? BLOCK_FORMATS[format as BlockTextureFormat] : undefined;
}

/** The three.js constant of a block format. @throws Error for a format that is not one (rgba8). */
export function threeBlockFormatOf(format: string): CompressedPixelFormat {
  const entry = blockFormatEntry(format);
  if (entry === undefined) throw new Error(`'${format}' is not a block format`);
  return entry.three;
}
