import type { CompressionSupport } from '../../vt/residency/pool-format';
import type { StreamedTextureFormat } from '../mip-pyramid-source';

/**
 * What an ETC1S level is transcoded to: `etc2-rgb` (ETC1 blocks, which ETC2 RGB8 samplers read:
 * ETC1S is a subset of ETC1, so this is lossless and 8 bytes a block), `etc2` (ETC2 RGBA8, for
 * alpha), `bc7`, `bc1` (opaque only) or `rgba8` (decoded texels, the last resort).
 */
export type Etc1sTarget = 'etc2-rgb' | 'etc2' | 'bc7' | 'bc1' | 'rgba8';

/** The target of one ETC1S texture and the streamed format its levels then have. */
export interface Etc1sTargetChoice {
  readonly target: Etc1sTarget;
  readonly format: StreamedTextureFormat;
  /** True when the device samples none of the block targets (levels decode to rgba8). */
  readonly fellBack: boolean;
}

/**
 * The device's target for an ETC1S texture, in three's KTX2Loader order for ETC1S: ETC2 (ETC1
 * blocks for opaque textures, ETC2 RGBA8 with alpha) > BC7 > BC1 (opaque only) > rgba8, sRGB
 * formats when the file's transfer function is sRGB. BC1 needs the same WebGPU feature as BC7
 * (`texture-compression-bc`), so it is chosen only when BC7 was kept off with a forced target list.
 */
export function chooseEtc1sTarget(
  support: CompressionSupport,
  hasAlpha: boolean,
  srgb: boolean,
): Etc1sTargetChoice {
  const s = srgb ? '-srgb' : '';
  if (support.has('etc2')) {
    return hasAlpha
      ? { target: 'etc2', format: `etc2-rgba8unorm${s}`, fellBack: false }
      : { target: 'etc2-rgb', format: `etc2-rgb8unorm${s}`, fellBack: false };
  }
  if (support.has('bc7')) return { target: 'bc7', format: `bc7-rgba-unorm${s}`, fellBack: false };
  if (!hasAlpha && support.has('bc5')) {
    return { target: 'bc1', format: `bc1-rgba-unorm${s}`, fellBack: false };
  }
  return { target: 'rgba8', format: `rgba8unorm${s}`, fellBack: true };
}

/**
 * Bytes of a `width` x `height` image in `target`: whole 4x4 blocks (8 bytes for ETC1 / BC1, 16
 * for ETC2 RGBA8 / BC7; a 2x2 or 1x1 level is one block), or 4 per texel for rgba8.
 */
export function etc1sTargetBytes(target: Etc1sTarget, width: number, height: number): number {
  if (target === 'rgba8') return width * height * 4;
  const blocks = Math.ceil(width / 4) * Math.ceil(height / 4);
  return blocks * (target === 'etc2-rgb' || target === 'bc1' ? 8 : 16);
}
