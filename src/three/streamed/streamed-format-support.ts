/**
 * Block formats of streamed textures on the device: which WebGPU feature or WebGL2 extension each
 * needs, whether this renderer has it, and the three.js constant that uploads it. Colour space
 * (sRGB or linear) is carried by `texture.colorSpace`, as three expects.
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
import { TesseraConfigError } from '../../core/errors';
import {
  levelWidth,
  type MipPyramidSource,
  type StreamedTextureFormat,
} from '../../core/streaming/mip-pyramid-source';
import { PINNED_MAX_EDGE } from '../../core/streaming/mip-streaming-planner';
import type { BackendBridge } from '../backend-bridge';

/** How one block format reaches the GPU. */
interface BlockFormatEntry {
  readonly three: CompressedPixelFormat;
  readonly feature: 'texture-compression-bc' | 'texture-compression-etc2' | 'texture-compression-astc';
  /** WebGL2 extensions of which one must exist (sRGB variants may need their own). */
  readonly glExtensions: readonly string[];
}

const S3TC = ['WEBGL_compressed_texture_s3tc'];
const S3TC_SRGB = ['WEBGL_compressed_texture_s3tc_srgb'];
const RGTC = ['EXT_texture_compression_rgtc'];
const BPTC = ['EXT_texture_compression_bptc'];
const ETC = ['WEBGL_compressed_texture_etc'];
const ASTC = ['WEBGL_compressed_texture_astc'];

const BLOCK_FORMATS: Partial<Record<StreamedTextureFormat, BlockFormatEntry>> = {
  'bc1-rgba-unorm': { three: RGBA_S3TC_DXT1_Format, feature: 'texture-compression-bc', glExtensions: S3TC },
  'bc1-rgba-unorm-srgb': {
    three: RGBA_S3TC_DXT1_Format,
    feature: 'texture-compression-bc',
    glExtensions: S3TC_SRGB,
  },
  'bc3-rgba-unorm': { three: RGBA_S3TC_DXT5_Format, feature: 'texture-compression-bc', glExtensions: S3TC },
  'bc3-rgba-unorm-srgb': {
    three: RGBA_S3TC_DXT5_Format,
    feature: 'texture-compression-bc',
    glExtensions: S3TC_SRGB,
  },
  'bc4-r-unorm': { three: RED_RGTC1_Format, feature: 'texture-compression-bc', glExtensions: RGTC },
  'bc4-r-snorm': { three: SIGNED_RED_RGTC1_Format, feature: 'texture-compression-bc', glExtensions: RGTC },
  'bc5-rg-unorm': { three: RED_GREEN_RGTC2_Format, feature: 'texture-compression-bc', glExtensions: RGTC },
  'bc5-rg-snorm': {
    three: SIGNED_RED_GREEN_RGTC2_Format,
    feature: 'texture-compression-bc',
    glExtensions: RGTC,
  },
  'bc7-rgba-unorm': { three: RGBA_BPTC_Format, feature: 'texture-compression-bc', glExtensions: BPTC },
  'bc7-rgba-unorm-srgb': { three: RGBA_BPTC_Format, feature: 'texture-compression-bc', glExtensions: BPTC },
  'etc2-rgb8unorm': { three: RGB_ETC2_Format, feature: 'texture-compression-etc2', glExtensions: ETC },
  'etc2-rgb8unorm-srgb': { three: RGB_ETC2_Format, feature: 'texture-compression-etc2', glExtensions: ETC },
  'etc2-rgba8unorm': { three: RGBA_ETC2_EAC_Format, feature: 'texture-compression-etc2', glExtensions: ETC },
  'etc2-rgba8unorm-srgb': {
    three: RGBA_ETC2_EAC_Format,
    feature: 'texture-compression-etc2',
    glExtensions: ETC,
  },
  'eac-r11unorm': { three: R11_EAC_Format, feature: 'texture-compression-etc2', glExtensions: ETC },
  'eac-r11snorm': { three: SIGNED_R11_EAC_Format, feature: 'texture-compression-etc2', glExtensions: ETC },
  'eac-rg11unorm': { three: RG11_EAC_Format, feature: 'texture-compression-etc2', glExtensions: ETC },
  'eac-rg11snorm': { three: SIGNED_RG11_EAC_Format, feature: 'texture-compression-etc2', glExtensions: ETC },
  'astc-4x4-unorm': { three: RGBA_ASTC_4x4_Format, feature: 'texture-compression-astc', glExtensions: ASTC },
  'astc-4x4-unorm-srgb': {
    three: RGBA_ASTC_4x4_Format,
    feature: 'texture-compression-astc',
    glExtensions: ASTC,
  },
};

/** Every format a streamed texture accepts (rgba8 and the block formats above). */
export function isStreamedFormat(format: string): format is StreamedTextureFormat {
  return format === 'rgba8unorm' || format === 'rgba8unorm-srgb' || Object.hasOwn(BLOCK_FORMATS, format);
}

/** True for block-compressed streamed formats (uploaded whole as a three `CompressedTexture`). */
export function isBlockFormat(format: StreamedTextureFormat): boolean {
  return BLOCK_FORMATS[format] !== undefined;
}

/** The three.js constant of a block format. @throws Error for rgba8 (not a block format). */
export function threeBlockFormatOf(format: StreamedTextureFormat): CompressedPixelFormat {
  const entry = BLOCK_FORMATS[format];
  if (entry === undefined) throw new Error(`'${format}' is not a block format`);
  return entry.three;
}

/**
 * The device feature (WebGPU) or extension (WebGL2) `format` needs when this renderer lacks it,
 * else null (rgba8 needs nothing).
 */
export function missingFormatSupport(bridge: BackendBridge, format: StreamedTextureFormat): string | null {
  const entry = BLOCK_FORMATS[format];
  if (entry === undefined) return null;
  if (bridge.device !== null) return bridge.device.features.has(entry.feature) ? null : entry.feature;
  const gl = bridge.gl;
  // getExtension also enables the extension, which compressedTexImage2D needs.
  if (gl !== null && entry.glExtensions.some((name) => gl.getExtension(name) !== null)) return null;
  return entry.glExtensions.join(' or ');
}

/**
 * Checks that `source` can stream on this renderer: a known format, the device feature of a block
 * format, and (block formats) every level a chain may start at a whole number of 4x4 blocks, as
 * WebGPU requires of a compressed texture's level 0.
 * @throws TesseraConfigError('invalid-option') for an unknown or unsupported format,
 *   ('invalid-size') for a block-format level that is not block-aligned.
 */
export function checkStreamableSource(bridge: BackendBridge, source: MipPyramidSource): void {
  const format = source.format as string;
  if (!isStreamedFormat(format))
    throw new TesseraConfigError('invalid-option', `Unsupported streamed format '${format}'.`);
  const missing = missingFormatSupport(bridge, format);
  if (missing !== null) {
    throw new TesseraConfigError(
      'invalid-option',
      `Streamed format '${format}' needs ${missing}, which this ${bridge.device !== null ? 'WebGPU device' : 'WebGL2 context'} lacks.`,
    );
  }
  if (!isBlockFormat(format)) return;
  for (let level = 0; level < source.mipLevelCount; level++) {
    const w = levelWidth(source.width, level);
    const h = levelWidth(source.height, level);
    if (w % 4 !== 0 || h % 4 !== 0) {
      throw new TesseraConfigError(
        'invalid-size',
        `Level ${level} of a '${format}' texture is ${w}x${h} texels, not whole 4x4 blocks, and a chain may start there.`,
      );
    }
    // Chains start at the pinned level (edge <= PINNED_MAX_EDGE) at the coarsest.
    if (Math.max(w, h) <= PINNED_MAX_EDGE) break;
  }
}
