import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type BasisTranscoderModule, loadBasisTranscoder } from '../../src/three/transcode/uastc-transcode';

const require = createRequire(import.meta.url);

/** Path of a file of three's Basis transcoder (`basis_transcoder.js` / `.wasm`). */
export function basisTranscoderPath(file: 'basis_transcoder.js' | 'basis_transcoder.wasm'): string {
  return require.resolve(`three/examples/jsm/libs/basis/${file}`);
}

/**
 * three's Basis transcoder in Node, loaded exactly as the transcode worker loads it. The script's
 * Node branch wants `require` and `__dirname` even with the wasm given, so they are provided.
 */
export async function loadNodeBasisTranscoder(): Promise<BasisTranscoderModule> {
  const script = readFileSync(basisTranscoderPath('basis_transcoder.js'), 'utf8');
  const wasm = readFileSync(basisTranscoderPath('basis_transcoder.wasm'));
  const g = globalThis as Record<string, unknown>;
  g.require ??= require;
  g.__dirname ??= '/';
  return loadBasisTranscoder(script, wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
}
