import type { UastcTarget } from '../../core/vt/residency/pool-format';
import { encodeBc5, encodeEacRg11 } from './two-channel-encoder';

/*
 * Worker-side transcoding of one tile with the Basis Universal transcoder three ships
 * (`three/examples/jsm/libs/basis/basis_transcoder.js` + `.wasm`). Pure over the loaded module, so
 * Node tests run it with the same wasm the browser workers use.
 */

/** The slice of the Basis transcoder module (Emscripten/embind) this file calls. */
export interface BasisTranscoderModule {
  initializeBasis(): void;
  transcoder_texture_format: Record<string, { value: number }>;
  /**
   * basis_wrappers.cpp `transcode_uastc_image`: (target, output, outputSizeInBlocksOrPixels,
   * input, blocksX, blocksY, width, height, level, sliceOffset, sliceLength, decodeFlags, hasAlpha,
   * isVideo, outputRowPitch, outputRowsInPixels, channel0, channel1) => ok.
   */
  transcodeUASTCImage(
    target: number,
    output: Uint8Array,
    outputSize: number,
    input: Uint8Array,
    blocksX: number,
    blocksY: number,
    width: number,
    height: number,
    level: number,
    sliceOffset: number,
    sliceLength: number,
    decodeFlags: number,
    hasAlpha: boolean,
    isVideo: boolean,
    outputRowPitch: number,
    outputRowsInPixels: number,
    channel0: number,
    channel1: number,
  ): boolean;
}

/** The transcoder's name of each target's format (`transcoder_texture_format` keys). */
const BASIS_FORMAT_NAMES: Record<UastcTarget, string> = {
  bc7: 'cTFBC7_RGBA',
  astc: 'cTFASTC_4x4_RGBA',
  etc2: 'cTFETC2_RGBA',
  bc5: 'cTFBC5_RG',
  'eac-rg11': 'cTFETC2_EAC_RG11',
  rgba8: 'cTFRGBA32',
};

/** Bytes `target` takes for a `tileSize²` tile: 16 per 4x4 block, or 4 per texel for rgba8. */
export function transcodedTileBytes(target: UastcTarget, tileSize: number): number {
  return transcodedImageBytes(target, tileSize, tileSize);
}

/**
 * Bytes `target` takes for a `width` x `height` image: 16 per 4x4 block in whole blocks (a 2x2 or
 * 1x1 level is one block), or 4 per texel for rgba8.
 */
export function transcodedImageBytes(target: UastcTarget, width: number, height: number): number {
  return target === 'rgba8' ? width * height * 4 : Math.ceil(width / 4) * Math.ceil(height / 4) * 16;
}

/** The transcoder's integer for `target` (looked up once per worker, not per tile). */
export function basisFormatOf(module: BasisTranscoderModule, target: UastcTarget): number {
  return module.transcoder_texture_format[BASIS_FORMAT_NAMES[target]].value;
}

/** Decoded texels of the tile being encoded to a two-channel format (reused per tile size). */
let decoded = new Uint8Array(0);

/**
 * Transcodes the UASTC blocks of one `tileSize²` tile (`input`, exactly `(tileSize / 4)²` blocks)
 * into `output` (exactly {@link transcodedTileBytes}), as three's KTX2Loader does for a whole level
 * (decode flags 0). Two-channel targets (BC5, EAC RG11) take what the transcoder fills them from,
 * red and alpha (whatever channels it is given), when `yInAlpha` (a normal map stored as Basis
 * lays them out, x in red, y in alpha); a normal map in red and green is decoded to RGBA8 instead
 * (`basisFormat` is then ignored) and encoded by `two-channel-encoder.ts`, about 2x (BC5) and 7-9x
 * (EAC) slower.
 * @returns false when the transcoder rejects the blocks (corrupt data).
 */
export function transcodeUastcTile(
  module: BasisTranscoderModule,
  basisFormat: number,
  target: UastcTarget,
  input: Uint8Array,
  output: Uint8Array,
  tileSize: number,
  hasAlpha: boolean,
  yInAlpha = false,
): boolean {
  if (yInAlpha && (target === 'bc5' || target === 'eac-rg11')) {
    return transcodeUastcImage(module, basisFormat, target, input, output, tileSize, tileSize, true, true);
  }
  if (target === 'bc5' || target === 'eac-rg11') {
    if (decoded.length !== tileSize * tileSize * 4) decoded = new Uint8Array(tileSize * tileSize * 4);
    const rgba = basisFormatOf(module, 'rgba8');
    if (!transcodeUastcTile(module, rgba, 'rgba8', input, decoded, tileSize, hasAlpha)) return false;
    if (target === 'bc5') encodeBc5(decoded, tileSize, output);
    else {
      encodeEacRg11(decoded, tileSize, output);
    }
    return true;
  }
  return transcodeUastcImage(module, basisFormat, target, input, output, tileSize, tileSize, hasAlpha);
}

/**
 * Transcodes a `width` x `height` image of UASTC blocks (`input`, whole 4x4 blocks: a 2x2 or 1x1
 * mip level is one block) into `output` (exactly {@link transcodedImageBytes}), as three's
 * KTX2Loader does for one level: the transcoder crops rgba8 output to the image and writes whole
 * blocks otherwise. Four-channel targets, and two-channel ones filled from red and alpha when
 * `yInAlpha` (see {@link transcodeUastcTile}).
 * @returns false when the transcoder rejects the blocks, or the target is two-channel and
 *   `yInAlpha` false.
 */
export function transcodeUastcImage(
  module: BasisTranscoderModule,
  basisFormat: number,
  target: UastcTarget,
  input: Uint8Array,
  output: Uint8Array,
  width: number,
  height: number,
  hasAlpha: boolean,
  yInAlpha = false,
): boolean {
  if (!yInAlpha && (target === 'bc5' || target === 'eac-rg11')) return false;
  const blocksX = Math.ceil(width / 4);
  const blocksY = Math.ceil(height / 4);
  const outputSize = target === 'rgba8' ? width * height : blocksX * blocksY;
  return module.transcodeUASTCImage(
    basisFormat,
    output,
    outputSize,
    input,
    blocksX,
    blocksY,
    width,
    height,
    0,
    0,
    input.byteLength,
    0,
    hasAlpha,
    false,
    0,
    0,
    -1,
    -1,
  );
}

/**
 * Instantiates the transcoder from its script text and wasm bytes (the script defines a global
 * `BASIS` factory; evaluated as a function body so it works in module workers, which have no
 * `importScripts`).
 */
export async function loadBasisTranscoder(
  scriptText: string,
  wasmBinary: ArrayBuffer,
): Promise<BasisTranscoderModule> {
  const factory = new Function(`${scriptText}\nreturn BASIS;`)() as (options: {
    wasmBinary: ArrayBuffer;
  }) => Promise<BasisTranscoderModule>;
  const module = await factory({ wasmBinary });
  module.initializeBasis();
  return module;
}
