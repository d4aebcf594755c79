import { textureFormatInfo } from '../budget/texture-format';
import { TesseraConfigError } from '../errors';

/**
 * Texel formats a streamed texture can hold: 8-bit RGBA, and the 4x4 block formats a KTX2 file may
 * store as they are (BC1/3/4/5/7, ETC2/EAC, ASTC 4x4), linear or sRGB-encoded where the format has
 * both. Block formats need the device feature (`texture-compression-bc` / `-etc2` / `-astc`).
 */
export type StreamedTextureFormat =
  | 'rgba8unorm'
  | 'rgba8unorm-srgb'
  | 'bc1-rgba-unorm'
  | 'bc1-rgba-unorm-srgb'
  | 'bc3-rgba-unorm'
  | 'bc3-rgba-unorm-srgb'
  | 'bc4-r-unorm'
  | 'bc4-r-snorm'
  | 'bc5-rg-unorm'
  | 'bc5-rg-snorm'
  | 'bc7-rgba-unorm'
  | 'bc7-rgba-unorm-srgb'
  | 'etc2-rgb8unorm'
  | 'etc2-rgb8unorm-srgb'
  | 'etc2-rgba8unorm'
  | 'etc2-rgba8unorm-srgb'
  | 'eac-r11unorm'
  | 'eac-r11snorm'
  | 'eac-rg11unorm'
  | 'eac-rg11snorm'
  | 'astc-4x4-unorm'
  | 'astc-4x4-unorm-srgb';

/** True for the streamed formats whose texels are sRGB-encoded (decoded by the sampler). */
export function isSrgbFormat(format: StreamedTextureFormat): boolean {
  return format.endsWith('-srgb');
}

/**
 * Bytes of level `level` of a `width` x `height` pyramid in `format`: whole blocks, so a 2x2 level
 * of a 4x4 block format takes one full block (what the GPU stores and what a KTX2 level holds).
 */
export function levelByteLength(
  format: StreamedTextureFormat,
  width: number,
  height: number,
  level: number,
): number {
  const info = textureFormatInfo(format);
  const w = levelWidth(width, level);
  const h = levelWidth(height, level);
  return Math.ceil(w / info.blockWidth) * Math.ceil(h / info.blockHeight) * info.bytesPerBlock;
}

/** Largest edge of the coarsest level a source may have, in texels (the pinned level renders at once). */
export const MAX_COARSEST_EDGE = 64;

/**
 * A mip pyramid the streamer reads level by level. Level 0 is the finest; level `l` is
 * `max(1, width >> l) x max(1, height >> l)` texels, rows from v = 0 (three's DataTexture order),
 * stored in `format` ({@link levelByteLength} bytes: 4 per texel for rgba8, whole blocks otherwise).
 */
export interface MipPyramidSource {
  /** Width of level 0, in texels. */
  readonly width: number;
  /** Height of level 0, in texels. */
  readonly height: number;
  /** Levels available (0 .. n-1); the coarsest one is at most 64 texels on its longer edge. */
  readonly mipLevelCount: number;
  /** Texel format of every level. */
  readonly format: StreamedTextureFormat;
  /**
   * The texels of level `level`: exactly {@link levelByteLength} bytes. Rejects with an
   * abort error when `signal` aborts; any other rejection makes the texture keep its fallback.
   */
  loadLevel(level: number, signal: AbortSignal): Promise<Uint8Array>;
}

/** Basis Universal UASTC payloads: 16-byte 4x4 blocks a transcoder turns into a device format. */
export type UastcPyramidFormat = 'uastc-4x4' | 'uastc-4x4-srgb';

/**
 * A pyramid whose levels are either uploaded as they are ({@link MipPyramidSource}) or are UASTC
 * blocks (`format` {@link UastcPyramidFormat}: whole 4x4 blocks of 16 bytes, 2x2 and 1x1 levels one
 * block each), which a `TextureStreamingSystem` transcodes to the device's best block format.
 */
export interface EncodedPyramidSource extends Omit<MipPyramidSource, 'format'> {
  /** The levels' format: one uploaded as it is, or UASTC / ETC1S to transcode. */
  readonly format: StreamedTextureFormat | UastcPyramidFormat | Etc1sPyramidFormat;
  /** UASTC and ETC1S: whether the payload carries alpha (transcoded with alpha). Default true. */
  readonly hasAlpha?: boolean;
  /**
   * ETC1S only: the file's BasisLZ codebooks and each level's slices. An ETC1S level is the
   * level's stored bytes (its slices), which only these codebooks decode.
   */
  readonly basisLz?: BasisLzGlobalData;
}

/**
 * Basis Universal ETC1S payloads (BasisLZ supercompression): each level holds Huffman-coded
 * slices that index the file's shared endpoint and selector codebooks.
 */
export type Etc1sPyramidFormat = 'etc1s' | 'etc1s-srgb';

/** True for ETC1S pyramid formats. */
export function isEtc1sPyramidFormat(format: string): format is Etc1sPyramidFormat {
  return format === 'etc1s' || format === 'etc1s-srgb';
}

/**
 * The BasisLZ supercompression global data of an ETC1S file (KTX 2.0 section 3.12.1), checked:
 * the codebooks every level's slices need, and where each level's slices lie inside the level.
 */
export interface BasisLzGlobalData {
  /** Entries of the endpoint codebook. */
  readonly endpointCount: number;
  /** Entries of the selector codebook. */
  readonly selectorCount: number;
  /** The coded endpoint codebook (its own buffer, safe to copy to a worker). */
  readonly endpoints: Uint8Array;
  /** The coded selector codebook (its own buffer). */
  readonly selectors: Uint8Array;
  /** The Huffman tables (its own buffer). */
  readonly tables: Uint8Array;
  /** True when every level has an alpha slice (a DFD with an AAA sample). */
  readonly hasAlphaSlices: boolean;
  /**
   * Per level (0 finest), 4 entries: RGB slice byte offset and length, alpha slice byte offset
   * and length (0 and 0 without alpha), offsets from the start of the level, in bytes.
   */
  readonly slices: Uint32Array;
}

/** True for UASTC pyramid formats. */
export function isUastcPyramidFormat(format: string): format is UastcPyramidFormat {
  return format === 'uastc-4x4' || format === 'uastc-4x4-srgb';
}

/** Bytes of level `level` of a `width` x `height` UASTC pyramid: 16 per 4x4 block, whole blocks. */
export function uastcLevelByteLength(width: number, height: number, level: number): number {
  return Math.ceil(levelWidth(width, level) / 4) * Math.ceil(levelWidth(height, level) / 4) * 16;
}

/** Width of level `level` of a `width`-texel-wide level 0, in texels. */
export function levelWidth(width: number, level: number): number {
  return Math.max(1, width >>> level);
}

/**
 * Checks the shape of a pyramid: integer edges, 1..full levels, coarsest level <= 64 texels.
 * @throws TesseraConfigError('invalid-size' | 'invalid-option')
 */
export function checkPyramidShape(width: number, height: number, mipLevelCount: number): void {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new TesseraConfigError(
      'invalid-size',
      `Level 0 must be at least 1x1 texels, got ${width}x${height}.`,
    );
  }
  const full = 32 - Math.clz32(Math.max(width, height));
  if (!Number.isInteger(mipLevelCount) || mipLevelCount < 1 || mipLevelCount > full) {
    throw new TesseraConfigError('invalid-option', `mipLevelCount must be 1..${full}, got ${mipLevelCount}.`);
  }
  const last = mipLevelCount - 1;
  if (Math.max(levelWidth(width, last), levelWidth(height, last)) > MAX_COARSEST_EDGE) {
    throw new TesseraConfigError(
      'invalid-option',
      `The coarsest level (${last}) must be at most ${MAX_COARSEST_EDGE} texels on its longer edge, so the texture renders at once.`,
    );
  }
}

/** Formats whose texels may be read either as sRGB-encoded colour or as linear data (WebGPU has both views of them). */
const HAS_SRGB_TWIN: ReadonlySet<string> = new Set([
  'rgba8unorm',
  'bc1-rgba-unorm',
  'bc3-rgba-unorm',
  'bc7-rgba-unorm',
  'etc2-rgb8unorm',
  'etc2-rgba8unorm',
  'astc-4x4-unorm',
  'uastc-4x4',
  'etc1s',
]);

/**
 * `format` read as sRGB-encoded colour (`srgb` true) or as linear data: its twin where it has one
 * (`bc7-rgba-unorm` <-> `bc7-rgba-unorm-srgb`), else itself (one- and two-channel formats are data).
 */
export function withColorEncoding<F extends EncodedPyramidSource['format']>(format: F, srgb: boolean): F {
  const isSrgb = format.endsWith('-srgb');
  if (srgb === isSrgb) return format;
  if (!srgb) return format.slice(0, -'-srgb'.length) as F;
  return (HAS_SRGB_TWIN.has(format) ? `${format}-srgb` : format) as F;
}

/**
 * `source` with its texels read in the colour encoding of where they are bound: three's
 * `GLTFLoader` makes a base-colour map sRGB and a normal map linear whatever the file's own
 * transfer function says, and a streamed texture must decode the same bytes the same way. The
 * bytes are not touched; only the format the GPU views them as changes.
 */
export function withSourceColorEncoding(source: EncodedPyramidSource, srgb: boolean): EncodedPyramidSource {
  const format = withColorEncoding(source.format, srgb);
  if (format === source.format) return source;
  return {
    width: source.width,
    height: source.height,
    mipLevelCount: source.mipLevelCount,
    format,
    hasAlpha: source.hasAlpha,
    basisLz: source.basisLz,
    loadLevel: (level, signal) => source.loadLevel(level, signal),
  };
}
