import { read } from 'ktx-parse';
import { encodeToKTX2 } from 'ktx2-encoder';

/** Options of {@link encodeUastcKtx2}. */
export interface UastcEncodeOptions {
  /** Colour data stored sRGB (perceptual encoding, sRGB transfer in the KTX2 file). */
  srgb: boolean;
  /** Normal-map tuning (linear, no perceptual weighting). Default false. */
  normal?: boolean;
  /** UASTC effort 0..4 (higher = better and slower). Default 1. */
  quality?: number;
  /** Generate the full mip chain (the encoder's box filter). Default false. */
  mipmaps?: boolean;
  /** zstd supercompression (KTX2 scheme 2). Default false. */
  zstd?: boolean;
}

/**
 * Encodes an RGBA8 image (`width x height`, rows top to bottom) as a UASTC KTX2 file (one level
 * unless `mipmaps`, raw unless `zstd`)
 * with Basis Universal's encoder (npm `ktx2-encoder`, its `basis_encoder.wasm`): the test input
 * of the compressed pool, in Node (unit tests) and in the browser (test pages).
 */
export function encodeUastcKtx2(
  rgba: Uint8Array,
  width: number,
  height: number,
  options: UastcEncodeOptions,
): Promise<Uint8Array> {
  const data = rgba.slice();
  return encodeToKTX2(new Uint8Array(1), {
    isUASTC: true,
    isKTX2File: true,
    generateMipmap: options.mipmaps ?? false,
    needSupercompression: options.zstd ?? false,
    enableDebug: false,
    isPerceptual: options.srgb && !options.normal,
    isSetKTX2SRGBTransferFunc: options.srgb && !options.normal,
    isNormalMap: options.normal ?? false,
    uastcLDRQualityLevel: options.quality ?? 1,
    imageDecoder: async () => ({ width, height, data }),
  });
}

/** The raw UASTC blocks (16 bytes each, block rows top to bottom) of level 0 of a KTX2 file. */
export function uastcBlocksOf(ktx2: Uint8Array): Uint8Array {
  const container = read(ktx2);
  if (container.supercompressionScheme !== 0)
    throw new Error('expected a KTX2 file without supercompression');
  return container.levels[0].levelData.slice();
}

/** {@link encodeUastcKtx2} then {@link uastcBlocksOf}: one tile's UASTC blocks. */
export async function encodeUastcBlocks(
  rgba: Uint8Array,
  width: number,
  height: number,
  options: UastcEncodeOptions,
): Promise<Uint8Array> {
  return uastcBlocksOf(await encodeUastcKtx2(rgba, width, height, options));
}
