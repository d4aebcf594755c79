/**
 * three's Basis Universal transcoder (`three/examples/jsm/libs/basis/basis_transcoder.js` +
 * `.wasm`, the one `KTX2Loader` uses) loaded in Node, to decode raw UASTC 4x4 blocks to rgba8 in
 * tests and benchmarks: the quality a UASTC archive delivers is what this decoder shows.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface TranscoderModule {
  initializeBasis(): void;
  transcoder_texture_format: Record<string, { value: number }>;
  transcodeUASTCImage(...args: unknown[]): boolean;
}

let modulePromise: Promise<TranscoderModule> | undefined;

function loadTranscoder(): Promise<TranscoderModule> {
  modulePromise ??= (async () => {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve('three/examples/jsm/libs/basis/basis_transcoder.js'));
    // A classic script defining `BASIS` (what KTX2Loader hands its workers), not a module.
    const source = readFileSync(join(dir, 'basis_transcoder.js'), 'utf8');
    const factory = new Function('require', '__dirname', `${source}\nreturn BASIS;`)(require, dir) as (
      options: object,
    ) => Promise<TranscoderModule>;
    const module = await factory({ wasmBinary: readFileSync(join(dir, 'basis_transcoder.wasm')) });
    module.initializeBasis();
    return module;
  })();
  return modulePromise;
}

/** Decodes `size x size` texels of raw UASTC 4x4 blocks (block rows top to bottom) to rgba8. */
export async function decodeUastcToRgba(blocks: Uint8Array, size: number): Promise<Uint8Array> {
  const basis = await loadTranscoder();
  const out = new Uint8Array(size * size * 4);
  const blocksWide = size / 4;
  const ok = basis.transcodeUASTCImage(
    basis.transcoder_texture_format.cTFRGBA32.value,
    out,
    size * size,
    blocks,
    blocksWide,
    blocksWide,
    size,
    size,
    0, // level index
    0, // slice offset
    blocks.length,
    0, // decode flags
    true, // has alpha: decode the alpha the blocks carry
    false, // is video
    0, // output row pitch (0: the width)
    0, // output rows (0: the height)
    -1, // channel 0 (-1: default)
    -1, // channel 1
  );
  if (!ok) throw new Error('UASTC transcode to RGBA32 failed');
  return out;
}

/** PSNR (dB) over the RGB channels of two rgba8 images; Infinity when they are equal. */
export function rgbPsnr(a: Uint8Array, b: Uint8Array): number {
  let squared = 0;
  for (let i = 0; i < a.length; i++) {
    if ((i & 3) === 3) continue;
    const d = a[i] - b[i];
    squared += d * d;
  }
  const mse = squared / ((a.length / 4) * 3);
  return mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse);
}

/**
 * Mean and largest angle (degrees) between the normals two rgba8 normal maps encode (xyz in rgb).
 * `fromXy`: z is rebuilt from x and y in both, as a two-channel (BC5, EAC RG11) reader does.
 */
export function normalAngleError(
  a: Uint8Array,
  b: Uint8Array,
  fromXy = false,
): { mean: number; max: number } {
  let sum = 0;
  let max = 0;
  const n = a.length / 4;
  const z = (x: number, y: number, stored: number) =>
    fromXy ? Math.sqrt(Math.max(0, 1 - x * x - y * y)) : stored / 127.5 - 1;
  for (let i = 0; i < a.length; i += 4) {
    const ax = a[i] / 127.5 - 1;
    const ay = a[i + 1] / 127.5 - 1;
    const az = z(ax, ay, a[i + 2]);
    const bx = b[i] / 127.5 - 1;
    const by = b[i + 1] / 127.5 - 1;
    const bz = z(bx, by, b[i + 2]);
    const cos =
      (ax * bx + ay * by + az * bz) /
      Math.sqrt((ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz));
    const angle = (Math.acos(Math.min(1, Math.max(-1, cos))) * 180) / Math.PI;
    sum += angle;
    if (angle > max) max = angle;
  }
  return { mean: sum / n, max };
}
