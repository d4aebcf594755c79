import { encodeToKTX2 } from 'ktx2-encoder';

/** Options of {@link encodeEtc1sKtx2}. */
export interface Etc1sEncodeOptions {
  /** Colour data stored sRGB (perceptual encoding, sRGB transfer in the KTX2 file). */
  srgb: boolean;
  /** ETC1S quality 1..255 (codebook sizes). Default 64. */
  quality?: number;
  /** Generate the full mip chain (the encoder's box filter). Default true. */
  mipmaps?: boolean;
}

/**
 * Encodes an RGBA8 image (`width x height`, rows top to bottom) as a Basis Universal ETC1S KTX2
 * file (BasisLZ supercompression: global codebooks + per-level slices; alpha slices when any
 * texel's alpha is below 255) with the official encoder's wasm (npm `ktx2-encoder`), in Node and
 * in the browser.
 */
export function encodeEtc1sKtx2(
  rgba: Uint8Array,
  width: number,
  height: number,
  options: Etc1sEncodeOptions,
): Promise<Uint8Array> {
  const data = rgba.slice();
  return encodeToKTX2(new Uint8Array(1), {
    isUASTC: false,
    isKTX2File: true,
    generateMipmap: options.mipmaps ?? true,
    enableDebug: false,
    isPerceptual: options.srgb,
    isSetKTX2SRGBTransferFunc: options.srgb,
    qualityLevel: options.quality ?? 64,
    compressionLevel: 1,
    imageDecoder: async () => ({ width, height, data }),
  });
}
