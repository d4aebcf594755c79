import type { Etc1sTarget } from '../../core/streaming/planning/etc1s-target';
import type { BasisTranscoderModule } from './uastc-transcode';

/*
 * Worker-side transcoding of one ETC1S level with the low-level API of the Basis transcoder three
 * ships (`LowLevelETC1SImageTranscoder`, basis_wrappers.cpp): the codebooks are decoded once per
 * file, then each level's slices transcode alone, so a level fetched by Range needs nothing else
 * of the file. three's KTX2Loader decodes the same data through `KTX2File` on the whole file.
 */

/** The codebooks a worker needs to transcode levels of one ETC1S file (copied to the worker). */
export interface Etc1sCodebooks {
  endpointCount: number;
  selectorCount: number;
  endpoints: Uint8Array;
  selectors: Uint8Array;
  tables: Uint8Array;
}

/** Where one level's slices lie inside the level's bytes, and whether the file has alpha slices. */
export interface Etc1sSlices {
  rgbOffset: number;
  rgbLength: number;
  alphaOffset: number;
  alphaLength: number;
  hasAlphaSlices: boolean;
}

/** basis_wrappers.cpp `lowlevel_etc1s_image_transcoder` as embind exposes it. */
export interface Etc1sImageTranscoder {
  decodePalettes(
    endpointCount: number,
    endpoints: Uint8Array,
    selectorCount: number,
    selectors: Uint8Array,
  ): boolean;
  decodeTables(tables: Uint8Array): boolean;
  /**
   * (target, output, outputSizeInBlocksOrPixels, input, blocksX, blocksY, width, height, level,
   * rgbOffset, rgbLength, alphaOffset, alphaLength, decodeFlags, hasAlphaSlices, isVideo,
   * outputRowPitch, outputRowsInPixels) => ok.
   */
  transcodeImage(
    target: number,
    output: Uint8Array,
    outputSize: number,
    input: Uint8Array,
    blocksX: number,
    blocksY: number,
    width: number,
    height: number,
    level: number,
    rgbOffset: number,
    rgbLength: number,
    alphaOffset: number,
    alphaLength: number,
    decodeFlags: number,
    hasAlphaSlices: boolean,
    isVideo: boolean,
    outputRowPitch: number,
    outputRowsInPixels: number,
  ): boolean;
  /** Frees the embind object's wasm memory. */
  delete(): void;
}

/** The transcoder module with its ETC1S class. */
export interface BasisEtc1sModule extends BasisTranscoderModule {
  LowLevelETC1SImageTranscoder: new () => Etc1sImageTranscoder;
}

/** The transcoder's name of each ETC1S target (`transcoder_texture_format` keys). */
const ETC1S_FORMAT_NAMES: Record<Etc1sTarget, string> = {
  'etc2-rgb': 'cTFETC1_RGB',
  etc2: 'cTFETC2_RGBA',
  bc7: 'cTFBC7_RGBA',
  bc1: 'cTFBC1_RGB',
  rgba8: 'cTFRGBA32',
};

/** The transcoder's integer for an ETC1S `target`. */
export function etc1sBasisFormatOf(module: BasisTranscoderModule, target: Etc1sTarget): number {
  return module.transcoder_texture_format[ETC1S_FORMAT_NAMES[target]].value;
}

/**
 * A transcoder holding one file's decoded codebooks, or null when the transcoder rejects them
 * (corrupt global data). The caller owns it ({@link Etc1sImageTranscoder.delete}).
 */
export function createEtc1sTranscoder(
  module: BasisTranscoderModule,
  codebooks: Etc1sCodebooks,
): Etc1sImageTranscoder | null {
  const transcoder = new (module as BasisEtc1sModule).LowLevelETC1SImageTranscoder();
  const ok =
    transcoder.decodePalettes(
      codebooks.endpointCount,
      codebooks.endpoints,
      codebooks.selectorCount,
      codebooks.selectors,
    ) && transcoder.decodeTables(codebooks.tables);
  if (ok) return transcoder;
  transcoder.delete();
  return null;
}

/**
 * Transcodes the slices of one `width` x `height` ETC1S level (`input`: the level's stored bytes)
 * into `output` (exactly `etc1sTargetBytes(target, width, height)` bytes), with decode flags 0 as
 * three's KTX2Loader: whole blocks for block targets, rgba8 cropped to the level.
 * @returns false when the transcoder rejects the slices.
 */
export function transcodeEtc1sLevel(
  transcoder: Etc1sImageTranscoder,
  basisFormat: number,
  target: Etc1sTarget,
  input: Uint8Array,
  slices: Etc1sSlices,
  level: number,
  width: number,
  height: number,
  output: Uint8Array,
): boolean {
  const blocksX = Math.ceil(width / 4);
  const blocksY = Math.ceil(height / 4);
  return transcoder.transcodeImage(
    basisFormat,
    output,
    target === 'rgba8' ? width * height : blocksX * blocksY,
    input,
    blocksX,
    blocksY,
    width,
    height,
    level,
    slices.rgbOffset,
    slices.rgbLength,
    slices.alphaOffset,
    slices.alphaLength,
    0,
    slices.hasAlphaSlices,
    false,
    0,
    0,
  );
}
