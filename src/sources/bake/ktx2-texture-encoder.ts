/**
 * Encodes one RGBA8 image into a whole KTX2 file (Node, baker only) laid out for Tessera's HTTP
 * Range streaming: the full mip chain down to 1x1, the level index before the data, and the
 * levels stored coarsest first and next to each other (KTX2's order), so `Ktx2Source` reads its
 * metadata with one small request and any chain of levels from the coarsest with one more.
 *
 * UASTC: each level is made here (`buildRgba8MipChain`: sRGB colour averaged in linear light, as
 * Tessera's own image pyramids are; normal maps renormalised), encoded alone (UASTC blocks are
 * independent, so a level encoded in row bands equals one encoded whole, and bands keep each call
 * under the wasm encoder's 12-megatexel cap), and Zstandard-compressed (KTX2 scheme 2).
 * ETC1S: BasisLZ shares its codebooks across levels, so Basis makes the chain itself, also in
 * linear light for sRGB colour.
 */

import { createDefaultContainer, KHR_DF_PRIMARIES_BT709, write } from 'ktx-parse';
import { TesseraConfigError } from '../../core/errors';
import { buildRgba8MipChain, downsampleRgba8 } from '../mips/box-downsample';
import { type BasisModule, encodeUastcBlocks, loadBasis } from './uastc-encoder';
import { zstdCompress } from './zstd-compressor';

/** What the texels are: sRGB colour, linear data (ORM, occlusion, masks, ...) or a tangent-space normal map (xyz in rgb). */
export type TextureContent = 'color' | 'data' | 'normal';

/** How {@link encodeKtx2Texture} encodes one image. */
export interface Ktx2TextureEncodeOptions {
  /** What the texels are; only colour is sRGB (perceptual metrics, sRGB transfer in the DFD). */
  content: TextureContent;
  /** `uastc` (UASTC 4x4 + Zstandard) or `etc1s` (BasisLZ; several times smaller, lower quality). */
  codec: 'uastc' | 'etc1s';
  /** UASTC: Zstandard level 1..22. Default {@link DEFAULT_KTX2_ZSTD_LEVEL}. */
  zstdLevel?: number;
  /** UASTC: rate-distortion lambda 0..10 (0, the default, off); higher gives smaller Zstandard output and lower quality. */
  rdoLambda?: number;
  /** UASTC effort 0..4. Default 1 (about half the time of 2 at nearly its quality). */
  uastcEffort?: number;
  /** ETC1S quality 1..255 (codebook sizes). Default 128. */
  etc1sQuality?: number;
}

/** Zstandard level of UASTC levels unless told otherwise: near the best ratio at a few seconds per 2048² texture. */
export const DEFAULT_KTX2_ZSTD_LEVEL = 18;

/** Texels the wasm encoder takes in one call (Basis 2.5's cap is 12 Mi; a margin below it). */
const MAX_TEXELS_PER_CALL = 8 * 1024 * 1024;
/** ETC1S is encoded in one call (its codebooks span the image): the cap of Basis 2.5. */
const MAX_ETC1S_TEXELS = 12 * 1024 * 1024;

/** KTX2 colour model of UASTC blocks (KHR_DF_MODEL_UASTC) and its channel ids (KHR_DF_CHANNEL_UASTC_*). */
const DF_MODEL_UASTC = 166;
const DF_CHANNEL_UASTC_RGB = 0;
const DF_CHANNEL_UASTC_RGBA = 3;
const DF_TRANSFER_LINEAR = 1;
const DF_TRANSFER_SRGB = 2;
const SUPERCOMPRESSION_ZSTD = 2;
/** Basis's raw rgba8 slice source type. */
const SOURCE_RAW = 0;

/**
 * Encodes `rgba` (`width x height` rgba8 texels, rows top to bottom, as glTF images are stored)
 * into a KTX2 file with every level down to 1x1.
 * @throws TesseraConfigError('invalid-option') for options out of range, an ETC1S image over
 *   12 Mi texels, or an image the encoder refuses.
 */
export async function encodeKtx2Texture(
  rgba: Uint8Array,
  width: number,
  height: number,
  options: Ktx2TextureEncodeOptions,
): Promise<Uint8Array> {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new TesseraConfigError('invalid-option', `image size ${width}x${height}`);
  }
  if (rgba.length !== width * height * 4) {
    throw new TesseraConfigError(
      'invalid-option',
      `${rgba.length} bytes for ${width}x${height} rgba8 texels`,
    );
  }
  const basis = await loadBasis();
  return options.codec === 'etc1s'
    ? encodeEtc1s(basis, rgba, width, height, options)
    : encodeUastc(basis, rgba, width, height, options);
}

async function encodeUastc(
  basis: BasisModule,
  rgba: Uint8Array,
  width: number,
  height: number,
  options: Ktx2TextureEncodeOptions,
): Promise<Uint8Array> {
  const zstdLevel = options.zstdLevel ?? DEFAULT_KTX2_ZSTD_LEVEL;
  const effort = options.uastcEffort ?? 1;
  const lambda = options.rdoLambda ?? 0;
  if (!Number.isInteger(effort) || effort < 0 || effort > 4) {
    throw new TesseraConfigError('invalid-option', `UASTC effort ${effort} outside 0..4`);
  }
  if (!Number.isFinite(lambda) || lambda < 0 || lambda > 10) {
    throw new TesseraConfigError('invalid-option', `RDO lambda ${lambda} outside 0..10`);
  }
  const srgb = options.content === 'color';
  const levels =
    options.content === 'normal'
      ? normalMipChain(rgba, width, height)
      : buildRgba8MipChain(rgba, width, height, srgb);
  const hasAlpha = anyAlphaBelowOpaque(rgba);
  const container = createDefaultContainer();
  container.vkFormat = 0;
  container.typeSize = 1;
  container.pixelWidth = width;
  container.pixelHeight = height;
  container.pixelDepth = 0;
  container.layerCount = 0;
  container.faceCount = 1;
  container.levelCount = levels.length;
  container.supercompressionScheme = SUPERCOMPRESSION_ZSTD;
  const dfd = container.dataFormatDescriptor[0];
  dfd.colorModel = DF_MODEL_UASTC;
  dfd.colorPrimaries = KHR_DF_PRIMARIES_BT709;
  dfd.transferFunction = srgb ? DF_TRANSFER_SRGB : DF_TRANSFER_LINEAR;
  dfd.flags = 0;
  dfd.texelBlockDimension = [3, 3, 0, 0];
  dfd.bytesPlane = [16, 0, 0, 0, 0, 0, 0, 0];
  dfd.samples = [
    {
      bitOffset: 0,
      bitLength: 127,
      channelType: hasAlpha ? DF_CHANNEL_UASTC_RGBA : DF_CHANNEL_UASTC_RGB,
      samplePosition: [0, 0, 0, 0],
      sampleLower: 0,
      sampleUpper: 0xffffffff,
    },
  ];
  container.keyValue = { KTXwriter: 'tessera gltf (Basis Universal UASTC)' };
  let w = width;
  let h = height;
  for (const level of levels) {
    const blocks = await encodeUastcLevel(basis, level, w, h, { srgb, options, effort, lambda, hasAlpha });
    // zstdCompress returns a copy (`.slice()`), so its buffer is a plain ArrayBuffer.
    const levelData = (await zstdCompress(blocks, zstdLevel)) as Uint8Array<ArrayBuffer>;
    container.levels.push({ levelData, uncompressedByteLength: blocks.length });
    w = Math.max(1, w >> 1);
    h = Math.max(1, h >> 1);
  }
  return write(container, { keepWriter: true });
}

interface UastcLevelSettings {
  srgb: boolean;
  options: Ktx2TextureEncodeOptions;
  effort: number;
  lambda: number;
  hasAlpha: boolean;
}

/** The UASTC blocks of one level (block rows top to bottom), encoded in bands of whole block rows. */
async function encodeUastcLevel(
  basis: BasisModule,
  rgba: Uint8Array,
  width: number,
  height: number,
  settings: UastcLevelSettings,
): Promise<Uint8Array> {
  const blocksX = Math.ceil(width / 4);
  const blocksY = Math.ceil(height / 4);
  const out = new Uint8Array(blocksX * blocksY * 16);
  const bandRows = Math.max(4, Math.floor(MAX_TEXELS_PER_CALL / width / 4) * 4);
  for (let y0 = 0; y0 < height; y0 += bandRows) {
    const rows = Math.min(bandRows, height - y0);
    const band = rgba.subarray(y0 * width * 4, (y0 + rows) * width * 4);
    const blocks = encodeUastcBand(basis, band, width, rows, settings);
    out.set(blocks, (y0 / 4) * blocksX * 16);
  }
  return out;
}

function encodeUastcBand(
  basis: BasisModule,
  rgba: Uint8Array,
  width: number,
  height: number,
  { srgb, options, effort, lambda, hasAlpha }: UastcLevelSettings,
): Uint8Array {
  // Raw blocks: the file's supercompression is applied to the whole level by the caller.
  return encodeUastcBlocks(basis, rgba.slice(), width, height, {
    normal: options.content === 'normal',
    srgb,
    effort,
    lambda,
    forceAlpha: hasAlpha,
  });
}

function encodeEtc1s(
  basis: BasisModule,
  rgba: Uint8Array,
  width: number,
  height: number,
  options: Ktx2TextureEncodeOptions,
): Uint8Array {
  const quality = options.etc1sQuality ?? 128;
  if (!Number.isInteger(quality) || quality < 1 || quality > 255) {
    throw new TesseraConfigError('invalid-option', `ETC1S quality ${quality} outside 1..255`);
  }
  if (width * height > MAX_ETC1S_TEXELS) {
    throw new TesseraConfigError(
      'invalid-option',
      `ETC1S takes at most ${MAX_ETC1S_TEXELS} texels (the Basis encoder's cap); ${width}x${height} is larger: use UASTC`,
    );
  }
  const srgb = options.content === 'color';
  const encoder = new basis.BasisEncoder();
  try {
    encoder.setDebug(false);
    encoder.setStatusOutput(false);
    encoder.setUASTC(false);
    encoder.setCreateKTX2File(true);
    encoder.setMipGen(true);
    // Basis filters sRGB mips in linear light when told the source is sRGB.
    encoder.setMipSRGB(srgb);
    encoder.setPerceptual(srgb);
    encoder.setKTX2AndBasisSRGBTransferFunc?.(srgb);
    encoder.setQualityLevel(quality);
    encoder.setETC1SCompressionLevel(2);
    if (encoder.setSliceSourceImage(0, rgba.slice(), width, height, SOURCE_RAW) === false) {
      throw new TesseraConfigError('invalid-option', `Basis encoder refused a ${width}x${height} image`);
    }
    const output = new Uint8Array(Math.ceil(width * height * 4 * (4 / 3)) + 256 * 1024);
    const length = encoder.encode(output);
    if (length <= 0)
      throw new TesseraConfigError('invalid-option', `Basis encoder failed on a ${width}x${height} image`);
    return output.slice(0, length);
  } finally {
    encoder.delete();
  }
}

function anyAlphaBelowOpaque(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return true;
  return false;
}

/**
 * The mip chain of a tangent-space normal map (xyz in rgb, 0..255 for -1..1): each level the box
 * average of the one above, renormalised, so coarse levels keep unit normals (a plain average
 * shortens them and darkens the lighting); alpha averaged as stored.
 */
function normalMipChain(level0: Uint8Array, width: number, height: number): Uint8Array[] {
  const levels = [level0];
  let w = width;
  let h = height;
  while (w > 1 || h > 1) {
    const next = downsampleRgba8(levels[levels.length - 1], w, h, false);
    for (let i = 0; i < next.length; i += 4) {
      const x = next[i] / 127.5 - 1;
      const y = next[i + 1] / 127.5 - 1;
      const z = next[i + 2] / 127.5 - 1;
      const length = Math.hypot(x, y, z);
      if (length < 1e-6) continue;
      next[i] = Math.round((x / length + 1) * 127.5);
      next[i + 1] = Math.round((y / length + 1) * 127.5);
      next[i + 2] = Math.round((z / length + 1) * 127.5);
    }
    levels.push(next);
    w = Math.max(1, w >> 1);
    h = Math.max(1, h >> 1);
  }
  return levels;
}
