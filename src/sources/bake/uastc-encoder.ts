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
import { uastcTileBytes } from '../io/payload-encoding';

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
  const encoder = new basis.BasisEncoder();
  try {
    encoder.setDebug(false);
    encoder.setStatusOutput(false);
    encoder.setUASTC(true);
    encoder.setCreateKTX2File(true);
    encoder.setKTX2UASTCSupercompression(false);
    encoder.setMipGen(false);
    if (options.usage === 'normal') encoder.setNormalMapPreset?.();
    else {
      encoder.setPerceptual(options.colorSpace === 'srgb');
    }
    encoder.setKTX2AndBasisSRGBTransferFunc?.(options.colorSpace === 'srgb');
    encoder.setPackUASTCFlags(options.effort ?? 1);
    const lambda = options.rdoLambda ?? 0;
    if (lambda > 0) {
      encoder.setRDOUASTC(true);
      encoder.setRDOUASTCQualityScalar(lambda);
    }
    if (encoder.setSliceSourceImage(0, rgba, size, size, SOURCE_RAW) === false) {
      throw new TesseraConfigError('invalid-option', 'Basis encoder refused the tile');
    }
    const output = new Uint8Array(uastcTileBytes(size) + 4096);
    const length = encoder.encode(output);
    if (length <= 0) throw new TesseraConfigError('invalid-option', 'Basis encoder failed on a tile');
    const ktx2 = read(output.subarray(0, length));
    const blocks = ktx2.levels[0]?.levelData;
    if (
      ktx2.dataFormatDescriptor[0]?.colorModel !== DF_MODEL_UASTC ||
      ktx2.supercompressionScheme !== 0 ||
      blocks === undefined ||
      blocks.length !== uastcTileBytes(size)
    ) {
      throw new TesseraConfigError('invalid-option', 'Basis encoder did not return raw UASTC blocks');
    }
    return blocks.slice();
  } finally {
    encoder.delete();
  }
}
