import {
  ClampToEdgeWrapping,
  DataTexture,
  type MagnificationTextureFilter,
  type MinificationTextureFilter,
  NoColorSpace,
  type PixelFormat,
  SRGBColorSpace,
  type TextureDataType,
} from 'three';

/** What {@link createAllocatedTexture} needs to describe one GPU texture. */
export interface AllocatedTextureOptions {
  /** GPU label (three copies `texture.name`); always starts with `tessera:`. */
  name: string;
  /** Width of level 0, in texels. */
  width: number;
  /** Height of level 0, in texels. */
  height: number;
  /** Number of mip levels to allocate (1 = no mips). */
  mipLevels: number;
  format: PixelFormat;
  type: TextureDataType;
  /** True for colour data stored sRGB-encoded (decoded by the sampler). */
  srgb: boolean;
  magFilter: MagnificationTextureFilter;
  minFilter: MinificationTextureFilter;
}

/**
 * Creates a three `DataTexture` whose GPU storage three allocates (with the right size, format and
 * mip count) but never fills: `source.dataReady = false` makes three skip its whole-texture upload,
 * so no CPU copy of the texture exists and every texel is written through sub-rectangle uploads.
 * Call `renderer.initTexture(texture)` to allocate it.
 */
export function createAllocatedTexture(options: AllocatedTextureOptions): DataTexture {
  const texture = new DataTexture(null, options.width, options.height, options.format, options.type);
  texture.name = options.name;
  texture.colorSpace = options.srgb ? SRGBColorSpace : NoColorSpace;
  texture.magFilter = options.magFilter;
  texture.minFilter = options.minFilter;
  texture.wrapS = ClampToEdgeWrapping;
  texture.wrapT = ClampToEdgeWrapping;
  texture.flipY = false;
  texture.generateMipmaps = false;
  texture.unpackAlignment = 4;
  if (options.mipLevels > 1) {
    // three derives the level count from `mipmaps.length`; the entries carry no data.
    const levels = [];
    for (let level = 0; level < options.mipLevels; level++) {
      levels.push({
        data: null,
        width: Math.max(1, options.width >> level),
        height: Math.max(1, options.height >> level),
      });
    }
    texture.mipmaps = levels as unknown as DataTexture['mipmaps'];
  }
  texture.source.dataReady = false;
  texture.needsUpdate = true;
  return texture;
}

/** Bytes of a texture of 4-byte texels with `mipLevels` levels (what the GPU allocates). */
export function textureBytes(width: number, height: number, mipLevels: number, bytesPerTexel = 4): number {
  let total = 0;
  for (let level = 0; level < mipLevels; level++) {
    total += Math.max(1, width >> level) * Math.max(1, height >> level) * bytesPerTexel;
  }
  return total;
}
