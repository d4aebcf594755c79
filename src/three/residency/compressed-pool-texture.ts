import {
  ClampToEdgeWrapping,
  CompressedArrayTexture,
  CompressedTexture,
  LinearFilter,
  NoColorSpace,
  SRGBColorSpace,
  UnsignedByteType,
} from 'three';
import type { PoolTexelFormat } from '../../core/vt/residency/pool-format';
import { threeBlockFormatOf } from './block-formats';

/** Block-compressed pool formats (every {@link PoolTexelFormat} but rgba8). */
export type PoolBlockFormat = Exclude<PoolTexelFormat, 'rgba8unorm' | 'rgba8unorm-srgb'>;

/**
 * WebGL2 internal format enum of each block format (from the extensions' specs), for
 * `compressedTexSubImage2D/3D`, which must name the texture's own format.
 */
export function glBlockFormatOf(format: PoolBlockFormat): number {
  switch (format) {
    case 'bc7-rgba-unorm':
      return 0x8e8c; // COMPRESSED_RGBA_BPTC_UNORM_EXT
    case 'bc7-rgba-unorm-srgb':
      return 0x8e8d; // COMPRESSED_SRGB_ALPHA_BPTC_UNORM_EXT
    case 'astc-4x4-unorm':
      return 0x93b0; // COMPRESSED_RGBA_ASTC_4x4_KHR
    case 'astc-4x4-unorm-srgb':
      return 0x93d0; // COMPRESSED_SRGB8_ALPHA8_ASTC_4x4_KHR
    case 'etc2-rgba8unorm':
      return 0x9278; // COMPRESSED_RGBA8_ETC2_EAC
    case 'etc2-rgba8unorm-srgb':
      return 0x9279; // COMPRESSED_SRGB8_ALPHA8_ETC2_EAC
    case 'bc5-rg-unorm':
      return 0x8dbd; // COMPRESSED_RED_GREEN_RGTC2_EXT
    default:
      return 0x9272; // COMPRESSED_RG11_EAC
  }
}

/**
 * A block-compressed pool texture (2D, or a 2D array of `arrayLayers`) that three allocates with
 * one level and never fills: no mipmaps are given and `source.dataReady = false`, so three creates
 * the storage (`device.createTexture` / `texStorage2D|3D`) and skips its upload; every block is
 * written through sub-rectangle uploads. Call `renderer.initTexture(texture)` to allocate it.
 */
export function createCompressedPoolTexture(
  name: string,
  width: number,
  height: number,
  arrayLayers: number,
  format: PoolBlockFormat,
): CompressedTexture | CompressedArrayTexture {
  const threeFormat = threeBlockFormatOf(format);
  const texture =
    arrayLayers > 1
      ? new CompressedArrayTexture([], width, height, arrayLayers, threeFormat, UnsignedByteType)
      : new CompressedTexture([], width, height, threeFormat, UnsignedByteType);
  texture.name = name;
  texture.colorSpace = format.endsWith('-srgb') ? SRGBColorSpace : NoColorSpace;
  texture.magFilter = LinearFilter;
  texture.minFilter = LinearFilter;
  texture.wrapS = ClampToEdgeWrapping;
  texture.wrapT = ClampToEdgeWrapping;
  texture.flipY = false;
  texture.generateMipmaps = false;
  texture.source.dataReady = false;
  texture.needsUpdate = true;
  return texture;
}
