/**
 * Encodes rgba8 tiles to Basis Universal UASTC 4x4 blocks (Node, baker only), with the official
 * Basis encoder compiled to WebAssembly as the `ktx2-encoder` package ships it (MIT wrapper,
 * Apache-2.0 Basis; nothing downloaded or compiled at install or run time). The encoder writes a
 * KTX2 file without supercompression; its only level is exactly the tile's raw UASTC blocks, which
 * `ktx-parse` lifts out. The wasm is single-threaded, so equal input and options give equal bytes.
 */

import { read } from 'ktx-parse';
import type { IBasisEncoder } from 'ktx2-encoder';
import { TesseraConfigError } from '../../core/errors';

/** How to encode one layer's tiles. */
export interface UastcEncodeOptions {
  /** Colour layers in sRGB are compared perceptually; linear data plainly. */
  colorSpace: 'srgb' | 'linear';
  /** 'normal' uses Basis's normal-map preset (plain per-channel error, no perceptual weights). */
  usage: 'color' | 'normal';
  /**
   * Rate-distortion optimisation lambda (Basis `-uastc_rdo_l`): 0 (default) off; 0.25..10, higher
   * trades quality for smaller Zstandard output (about 0.5..2 is a sensible range).
   */
  rdoLambda?: number;
  /** Basis UASTC effort 0..4 (`-uastc_level`); default 1 (near 2's quality, several times faster). */
  effort?: number;
}

/** The wasm module, as the package's Node entry initialises it (setters its types omit added). */
export interface BasisModule {
  BasisEncoder: new () => IBasisEncoder & {
    setStatusOutput(on: boolean): void;
    setForceAlpha(on: boolean): void;
    setMipSRGB(on: boolean): void;
    setETC1SCompressionLevel(level: number): void;
  };
}
/** The package's Node entry (TypeScript here resolves its browser types, which lack it). */
interface NodeEntry {
  NodeBasisEncoder: new () => { init(): Promise<BasisModule> };
}

let modulePromise: Promise<BasisModule> | undefined;

/** The Basis encoder's wasm module, loaded once per process. */
export function loadBasis(): Promise<BasisModule> {
  // The package's `exports` hide the wasm module; its public Node encoder class exposes it.
  modulePromise ??= import('ktx2-encoder').then((entry) =>
    new (entry as unknown as NodeEntry).NodeBasisEncoder().init(),
  );
  return modulePromise;
}

/** The raw source type of `setSliceSourceImage` (`basisu::image` from rgba8). */
const SOURCE_RAW = 0;
/** KTX2 colour model of UASTC blocks (Khronos Data Format, KHR_DF_MODEL_UASTC). */
const DF_MODEL_UASTC = 166;

/** Checks the options a UASTC bake gets; throws `invalid-option` / `invalid-tile` otherwise. */
export function checkUastcOptions(
  tileSize: number,
  border: number,
  options: Partial<UastcEncodeOptions>,
): void {
  if (tileSize % 4 !== 0 || border % 4 !== 0) {
    throw new TesseraConfigError(
      'invalid-tile',
      `UASTC tiles are 4x4 blocks: tile size and border must be multiples of 4 (got ${tileSize}, ${border})`,
    );
  }
  const lambda = options.rdoLambda ?? 0;
  if (!Number.isFinite(lambda) || lambda < 0 || lambda > 10) {
    throw new TesseraConfigError('invalid-option', `RDO lambda ${lambda} outside 0..10`);
  }
  const effort = options.effort ?? 1;
  if (!Number.isInteger(effort) || effort < 0 || effort > 4) {
    throw new TesseraConfigError('invalid-option', `UASTC effort ${effort} outside 0..4`);
  }
}

/** Encodes a `size x size` rgba8 tile (size a multiple of 4) to its `(size / 4)² x 16` UASTC bytes. */
export async function encodeUastcTile(
  rgba: Uint8Array,
  size: number,
  options: UastcEncodeOptions,
): Promise<Uint8Array> {
  if (size % 4 !== 0) {
    throw new TesseraConfigError('invalid-tile', `UASTC tile size ${size} is not a multiple of 4`);
  }
  const basis = await loadBasis();
  return encodeUastcBlocks(basis, rgba, size, size, {
    normal: options.usage === 'normal',
    srgb: options.colorSpace === 'srgb',
    effort: options.effort ?? 1,
    lambda: options.rdoLambda ?? 0,
  });
}

/** How {@link encodeUastcBlocks} encodes. */
export interface UastcBlockSettings {
  /** A normal map (Basis's normal-map preset), else colour or data. */
  normal: boolean;
  /** sRGB content (perceptual error metric, sRGB transfer function). */
  srgb: boolean;
  /** Basis UASTC pack level, 0..4. */
  effort: number;
  /** RDO quality scalar; 0 disables RDO. */
  lambda: number;
  /** Keep an alpha channel even when every texel is opaque. */
  forceAlpha?: boolean;
}

/**
 * The raw UASTC blocks (one level, no supercompression) of `width x height` rgba8 texels, encoded
 * by Basis: `ceil(width / 4) x ceil(height / 4) x 16` bytes.
 * @throws TesseraConfigError('invalid-option') when the encoder refuses or fails.
 */
export function encodeUastcBlocks(
  basis: BasisModule,
  rgba: Uint8Array,
  width: number,
  height: number,
  settings: UastcBlockSettings,
): Uint8Array {
  const encoder = new basis.BasisEncoder();
  try {
    encoder.setDebug(false);
    encoder.setStatusOutput(false);
    encoder.setUASTC(true);
    encoder.setCreateKTX2File(true);
    encoder.setKTX2UASTCSupercompression(false);
    encoder.setMipGen(false);
    if (settings.normal) encoder.setNormalMapPreset?.();
    else encoder.setPerceptual(settings.srgb);
    encoder.setKTX2AndBasisSRGBTransferFunc?.(settings.srgb);
    if (settings.forceAlpha !== undefined) encoder.setForceAlpha(settings.forceAlpha);
    encoder.setPackUASTCFlags(settings.effort);
    if (settings.lambda > 0) {
      encoder.setRDOUASTC(true);
      encoder.setRDOUASTCQualityScalar(settings.lambda);
    }
    if (encoder.setSliceSourceImage(0, rgba, width, height, SOURCE_RAW) === false) {
      throw new TesseraConfigError('invalid-option', `Basis encoder refused a ${width}x${height} image`);
    }
    const blockBytes = Math.ceil(width / 4) * Math.ceil(height / 4) * 16;
    const output = new Uint8Array(blockBytes + 64 * 1024);
    const length = encoder.encode(output);
    if (length <= 0) {
      throw new TesseraConfigError('invalid-option', `Basis encoder failed on a ${width}x${height} image`);
    }
    const ktx2 = read(output.subarray(0, length));
    const blocks = ktx2.levels[0]?.levelData;
    if (
      ktx2.dataFormatDescriptor[0]?.colorModel !== DF_MODEL_UASTC ||
      ktx2.supercompressionScheme !== 0 ||
      blocks === undefined ||
      blocks.length !== blockBytes
    ) {
      throw new TesseraConfigError('invalid-option', 'Basis encoder did not return raw UASTC blocks');
    }
    return blocks.slice();
  } finally {
    encoder.delete();
  }
}
