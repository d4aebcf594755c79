/**
 * KTX2 files written in tests with `ktx-parse`: solid-colour levels (one colour per level, so a
 * rendered pixel says which level was sampled) in rgba8 or BC7, raw or zstd / zlib supercompressed.
 * BC7 blocks are mode 6 with both endpoints the level's colour and all indices 0, a valid encoding
 * that every BC7 decoder turns back into exactly that colour (channels must share their lowest
 * bit: mode 6 stores 7 bits per channel plus one shared p-bit per endpoint).
 */

import { zlibSync } from 'fflate';
import {
  createDefaultContainer,
  KHR_DF_MODEL_RGBSDA,
  KHR_DF_TRANSFER_LINEAR,
  KHR_DF_TRANSFER_SRGB,
  VK_FORMAT_BC7_SRGB_BLOCK,
  VK_FORMAT_BC7_UNORM_BLOCK,
  VK_FORMAT_R8G8B8A8_SRGB,
  VK_FORMAT_R8G8B8A8_UNORM,
  write,
} from 'ktx-parse';
import { isUastcPyramidFormat, type MipPyramidSource } from '../../src/core/streaming/mip-pyramid-source';
import { zstdCompress } from '../../src/sources/bake/zstd-compressor';
import type { Ktx2Source } from '../../src/sources/mips/ktx2-source';

/** `KHR_DF_MODEL_BC7` (ktx-parse does not export the BC models). */
const KHR_DF_MODEL_BC7 = 134;

/** One level's colour, rgba 0..255 (odd or even in every channel together for BC7). */
export type Rgba = readonly [number, number, number, number];

/** What {@link writeKtx2Fixture} writes. */
export interface Ktx2FixtureOptions {
  width: number;
  height: number;
  /** Levels, finest first (default: the full chain). */
  levelCount?: number;
  payload: 'rgba8' | 'bc7';
  srgb?: boolean;
  supercompression?: 'none' | 'zstd' | 'zlib';
  /** Colour of level `l` (default: a distinct colour per level). */
  colourOf?: (level: number) => Rgba;
  /** rgba8 only: the texels of level `l` (4 bytes each), instead of a solid colour. */
  texelsOf?: (level: number) => Uint8Array;
}

/** A distinct odd-valued colour per level (valid for BC7 mode 6). */
export function levelColour(level: number): Rgba {
  const palette: Rgba[] = [
    [255, 1, 1, 255],
    [1, 255, 1, 255],
    [1, 1, 255, 255],
    [255, 255, 1, 255],
    [255, 1, 255, 255],
    [1, 255, 255, 255],
    [255, 255, 255, 255],
    [127, 127, 127, 255],
  ];
  return palette[level % palette.length];
}

/** One BC7 mode-6 block that decodes to `colour` in all 16 texels. */
export function solidBc7Block(colour: Rgba): Uint8Array {
  const p = colour[0] & 1;
  for (const c of colour)
    if ((c & 1) !== p) throw new Error(`BC7 mode 6 solid colour needs one lowest bit: ${colour}`);
  const block = new Uint8Array(16);
  let bit = 0;
  const put = (value: number, bits: number) => {
    for (let i = 0; i < bits; i++, bit++) if ((value >> i) & 1) block[bit >> 3] |= 1 << (bit & 7);
  };
  put(1 << 6, 7); // mode 6
  for (let channel = 0; channel < 4; channel++) {
    put(colour[channel] >> 1, 7); // endpoint 0
    put(colour[channel] >> 1, 7); // endpoint 1
  }
  put(p, 1);
  put(p, 1);
  // Indices stay 0: every texel is endpoint 0.
  return block;
}

/** Bytes of level `level` filled with its colour. */
function levelData(options: Ktx2FixtureOptions, level: number): Uint8Array {
  const w = Math.max(1, options.width >> level);
  const h = Math.max(1, options.height >> level);
  if (options.payload === 'rgba8' && options.texelsOf !== undefined) return options.texelsOf(level);
  const colour = (options.colourOf ?? levelColour)(level);
  if (options.payload === 'rgba8') {
    const data = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) data.set(colour, i * 4);
    return data;
  }
  const blocks = Math.ceil(w / 4) * Math.ceil(h / 4);
  const block = solidBc7Block(colour);
  const data = new Uint8Array(blocks * 16);
  for (let i = 0; i < blocks; i++) data.set(block, i * 16);
  return data;
}

/** A KTX2 file as {@link Ktx2FixtureOptions} describe. */
export async function writeKtx2Fixture(options: Ktx2FixtureOptions): Promise<Uint8Array> {
  const full = 32 - Math.clz32(Math.max(options.width, options.height));
  const count = options.levelCount ?? full;
  const srgb = options.srgb ?? true;
  const scheme = options.supercompression ?? 'none';
  const container = createDefaultContainer();
  container.pixelWidth = options.width;
  container.pixelHeight = options.height;
  container.levelCount = count;
  const dfd = container.dataFormatDescriptor[0];
  dfd.transferFunction = srgb ? KHR_DF_TRANSFER_SRGB : KHR_DF_TRANSFER_LINEAR;
  if (options.payload === 'rgba8') {
    container.vkFormat = srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM;
    container.typeSize = 1;
    dfd.colorModel = KHR_DF_MODEL_RGBSDA;
    dfd.texelBlockDimension = [0, 0, 0, 0];
    dfd.bytesPlane = [4, 0, 0, 0, 0, 0, 0, 0];
  } else {
    container.vkFormat = srgb ? VK_FORMAT_BC7_SRGB_BLOCK : VK_FORMAT_BC7_UNORM_BLOCK;
    container.typeSize = 1;
    dfd.colorModel = KHR_DF_MODEL_BC7;
    dfd.texelBlockDimension = [3, 3, 0, 0];
    dfd.bytesPlane = [16, 0, 0, 0, 0, 0, 0, 0];
  }
  if (scheme !== 'none') dfd.bytesPlane = [0, 0, 0, 0, 0, 0, 0, 0];
  container.supercompressionScheme = scheme === 'none' ? 0 : scheme === 'zstd' ? 2 : 3;
  container.levels = [];
  for (let level = 0; level < count; level++) {
    const raw = levelData(options, level);
    const stored = scheme === 'zstd' ? await zstdCompress(raw, 3) : scheme === 'zlib' ? zlibSync(raw) : raw;
    container.levels.push({
      levelData: stored as Uint8Array<ArrayBuffer>,
      uncompressedByteLength: raw.byteLength,
    });
  }
  return write(container);
}

/** The level bytes {@link writeKtx2Fixture} stores for `level`, before supercompression. */
export function expectedLevel(options: Ktx2FixtureOptions, level: number): Uint8Array {
  return levelData(options, level);
}

/** `source` as a pyramid uploaded as stored (throws for a UASTC file, which must be transcoded). */
export function asStored(source: Ktx2Source): MipPyramidSource {
  if (isUastcPyramidFormat(source.format)) throw new Error(`expected a stored format, got ${source.format}`);
  return source as MipPyramidSource;
}
