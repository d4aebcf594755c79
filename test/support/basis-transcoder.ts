/**
 * Decoding raw UASTC 4x4 blocks to rgba8 in Node with three's Basis transcoder (the one
 * `KTX2Loader` uses), loaded and called as the transcode worker does: the quality a UASTC archive
 * delivers is what this decoder shows. Plus the quality measures the UASTC tests report.
 */

import { basisFormatOf, transcodeUastcTile } from '../../src/three/transcode/uastc-transcode';
import { loadNodeBasisTranscoder } from './node-basis-transcoder';

let modulePromise: ReturnType<typeof loadNodeBasisTranscoder> | undefined;

/** Decodes `size x size` texels of raw UASTC 4x4 blocks (block rows top to bottom) to rgba8. */
export async function decodeUastcToRgba(blocks: Uint8Array, size: number): Promise<Uint8Array> {
  modulePromise ??= loadNodeBasisTranscoder();
  const basis = await modulePromise;
  const out = new Uint8Array(size * size * 4);
  // Has alpha: decode the alpha the blocks carry.
  if (!transcodeUastcTile(basis, basisFormatOf(basis, 'rgba8'), 'rgba8', blocks, out, size, true))
    throw new Error('UASTC transcode to RGBA32 failed');
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
