/**
 * Decodes level 0 of a KTX2 file to rgba8 in Node, for `tessera gltf --recompress-ktx2`: rgba8 as
 * stored, Basis Universal (UASTC or ETC1S, any supercompression) with the Basis transcoder three ships
 * (`three/examples/jsm/libs/basis/`), the one three's `KTX2Loader` and Tessera's workers run, so
 * what is re-encoded is what the old file showed. `three` is the baker's optional peer
 * dependency; without it, decoding a Basis file fails with a message naming `npm install three`.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  KHR_DF_MODEL_ETC1S,
  KHR_DF_MODEL_UASTC,
  type KTX2Container,
  read,
  VK_FORMAT_R8G8B8A8_SRGB,
  VK_FORMAT_R8G8B8A8_UNORM,
} from 'ktx-parse';
import { TesseraConfigError } from '../../core/errors';
import type { Ktx2Supercompression } from '../mips/ktx2-layout';
import { inflateKtx2Level } from '../mips/ktx2-level-inflater';

/** KTX2 supercompression schemes an rgba8 level may carry here (0 none, 2 zstd, 3 zlib). */
const SUPERCOMPRESSION: Record<number, Ktx2Supercompression | undefined> = {
  0: 'none',
  2: 'zstd',
  3: 'zlib',
};

/**
 * The slice of the Basis transcoder's `KTX2File` (basis_wrappers.cpp) that Tessera calls: here,
 * and in the tests, which read files through it as three's KTX2Loader does (the one declaration).
 */
export interface Ktx2File {
  isValid(): boolean;
  isUASTC(): boolean;
  isETC1S(): boolean;
  getHasAlpha(): boolean;
  getWidth(): number;
  getHeight(): number;
  startTranscoding(): boolean;
  getImageTranscodedSizeInBytes(level: number, layer: number, face: number, format: number): number;
  transcodeImage(
    dst: Uint8Array,
    level: number,
    layer: number,
    face: number,
    format: number,
    flags: number,
    channel0: number,
    channel1: number,
  ): number;
  close(): void;
  delete(): void;
}

interface TranscoderModule {
  initializeBasis(): void;
  transcoder_texture_format: Record<string, { value: number }>;
  KTX2File: new (data: Uint8Array) => Ktx2File;
}

let transcoderPromise: Promise<TranscoderModule> | undefined;

function loadTranscoder(): Promise<TranscoderModule> {
  transcoderPromise ??= (async () => {
    const require = createRequire(import.meta.url);
    let scriptPath: string;
    try {
      scriptPath = require.resolve('three/examples/jsm/libs/basis/basis_transcoder.js');
    } catch (error) {
      throw new TesseraConfigError(
        'missing-dependency',
        're-encoding KTX2 textures needs three (its Basis transcoder): npm install three',
        { cause: error },
      );
    }
    const script = readFileSync(scriptPath, 'utf8');
    const wasm = readFileSync(scriptPath.replace(/\.js$/, '.wasm'));
    // The Emscripten script's Node branch reads `require` and `__dirname` even with the wasm given;
    // they are globals only while it starts, or the Basis encoder's own Emscripten glue, started
    // later, would take its Node branch too (deprecated `Buffer()` calls, a warning on stderr).
    const global = globalThis as Record<string, unknown>;
    const provided = [global.require === undefined, global.__dirname === undefined];
    if (provided[0]) global.require = require;
    if (provided[1]) global.__dirname = '/';
    try {
      const factory = new Function(`${script}\nreturn BASIS;`)() as (options: {
        wasmBinary: ArrayBuffer;
      }) => Promise<TranscoderModule>;
      const module = await factory({
        wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer,
      });
      module.initializeBasis();
      return module;
    } finally {
      if (provided[0]) delete global.require;
      if (provided[1]) delete global.__dirname;
    }
  })();
  return transcoderPromise;
}

/**
 * Level 0 of the KTX2 file `bytes` as rgba8 texels (rows top to bottom), with its size: rgba8
 * levels as stored (inflated), Basis Universal UASTC and ETC1S through three's transcoder.
 * @throws TesseraConfigError('missing-dependency') for a Basis file without `three` installed;
 *   ('invalid-option') for a file that is not KTX2, another payload (BC, ETC2, ASTC) or a file the
 *   transcoder refuses; TileSourceError as `inflateKtx2Level` for a corrupt rgba8 level.
 */
export async function decodeKtx2Texture(
  bytes: Uint8Array,
): Promise<{ rgba: Uint8Array; width: number; height: number }> {
  // ktx-parse, not Tessera's reader: a file Tessera refuses to stream (one level, say) is exactly
  // what wants re-encoding.
  let container: KTX2Container;
  try {
    container = read(bytes);
  } catch (error) {
    throw new TesseraConfigError('invalid-option', `not a KTX2 file (${(error as Error).message})`, {
      cause: error,
    });
  }
  const { pixelWidth: width, pixelHeight: height, vkFormat, supercompressionScheme } = container;
  const model = container.dataFormatDescriptor[0]?.colorModel;
  if (model !== KHR_DF_MODEL_UASTC && model !== KHR_DF_MODEL_ETC1S) {
    const scheme = SUPERCOMPRESSION[supercompressionScheme];
    const level = container.levels[0]?.levelData;
    if (
      (vkFormat !== VK_FORMAT_R8G8B8A8_UNORM && vkFormat !== VK_FORMAT_R8G8B8A8_SRGB) ||
      !scheme ||
      !level
    ) {
      throw new TesseraConfigError(
        'invalid-option',
        `a KTX2 of vkFormat ${vkFormat} (supercompression ${supercompressionScheme}) cannot be re-encoded (rgba8, UASTC and ETC1S can)`,
      );
    }
    return { rgba: await inflateKtx2Level(scheme, level, width * height * 4), width, height };
  }
  const basis = await loadTranscoder();
  // embind copies the bytes through `new data.constructor(...)`: a Node Buffer there would call the
  // deprecated `Buffer()` (a warning on stderr), so the transcoder gets a plain Uint8Array.
  const data = bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes);
  const file = new basis.KTX2File(data);
  try {
    if (!file.isValid() || !file.startTranscoding()) {
      throw new TesseraConfigError('invalid-option', 'the Basis transcoder refuses the file');
    }
    const rgba32 = basis.transcoder_texture_format.cTFRGBA32.value;
    const rgba = new Uint8Array(file.getImageTranscodedSizeInBytes(0, 0, 0, rgba32));
    if (!file.transcodeImage(rgba, 0, 0, 0, rgba32, 0, -1, -1)) {
      throw new TesseraConfigError('invalid-option', 'the Basis transcoder failed on level 0');
    }
    return { rgba, width: file.getWidth(), height: file.getHeight() };
  } finally {
    file.close();
    file.delete();
  }
}
