/**
 * Zstandard compression for the baker (Node 20 has no zstd in `zlib`): the reference libzstd
 * compiled to WebAssembly (`@bokuweb/zstd-wasm`, MIT; no native binary). Its one-shot compressor
 * writes a single frame with the content size, which the reader requires. Deterministic for a
 * given level (single-threaded).
 */

import { TesseraConfigError } from '../../core/errors';

type ZstdWasm = typeof import('@bokuweb/zstd-wasm');

let zstdPromise: Promise<ZstdWasm> | undefined;

function loadZstd(): Promise<ZstdWasm> {
  zstdPromise ??= import('@bokuweb/zstd-wasm').then(async (zstd) => {
    await zstd.init();
    return zstd;
  });
  return zstdPromise;
}

/** Checks a compression level: 1..22 (libzstd's range; 19+ are slow and gain little on UASTC). */
export function checkZstdLevel(level: number): void {
  if (!Number.isInteger(level) || level < 1 || level > 22) {
    throw new TesseraConfigError('invalid-option', `zstd level ${level} outside 1..22`);
  }
}

/** Compresses `bytes` into one Zstandard frame at `level`. */
export async function zstdCompress(bytes: Uint8Array, level: number): Promise<Uint8Array> {
  checkZstdLevel(level);
  const zstd = await loadZstd();
  return zstd.compress(bytes, level).slice();
}
