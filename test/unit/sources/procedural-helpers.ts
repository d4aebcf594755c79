import { SRGB_BYTE_TO_LINEAR } from '../../../src/sources/color/srgb';
import type { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';

/** Mip-consistency errors between one tile of mip `mip` and the 2x2 box average of mip `mip - 1`. */
export interface MipConsistency {
  /** Mean |difference| of albedo, in sRGB byte units, comparing averages taken in linear light. */
  albedoMeanError: number;
  /** 99th percentile of the albedo difference, sRGB byte units. */
  albedoP99Error: number;
  /** Mean angle between the normal and the normalised average of the finer normals, degrees. */
  normalMeanErrorDeg: number;
}

/** Measures {@link MipConsistency} for payload texels of page (`x`, `y`) at `mip` (>= 1). */
export function measureMipConsistency(
  world: ProceduralWorld,
  mip: number,
  x: number,
  y: number,
): MipConsistency {
  const { tileSize: T, border: B } = world.info;
  const P = T - 2 * B;
  const bytes = T * T * 4;
  const coarseA = new Uint8Array(bytes);
  const coarseN = new Uint8Array(bytes);
  world.generateTile(mip, x, y, coarseA, coarseN);
  const fineA: Uint8Array[] = [];
  const fineN: Uint8Array[] = [];
  for (let q = 0; q < 4; q++) {
    const a = new Uint8Array(bytes);
    const n = new Uint8Array(bytes);
    world.generateTile(mip - 1, 2 * x + (q & 1), 2 * y + (q >> 1), a, n);
    fineA.push(a);
    fineN.push(n);
  }
  const fineTexel = (layer: Uint8Array[], fx: number, fy: number, c: number) => {
    const q = (fx >= P ? 1 : 0) + (fy >= P ? 2 : 0);
    const lx = (fx % P) + B;
    const ly = (fy % P) + B;
    return layer[q][(ly * T + lx) * 4 + c];
  };
  const errors: number[] = [];
  let angleSum = 0;
  for (let j = 0; j < P; j++) {
    for (let i = 0; i < P; i++) {
      const o = ((j + B) * T + i + B) * 4;
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let q = 0; q < 4; q++)
          sum += SRGB_BYTE_TO_LINEAR[fineTexel(fineA, 2 * i + (q & 1), 2 * j + (q >> 1), c)];
        const avg = sum / 4;
        const target = SRGB_BYTE_TO_LINEAR[coarseA[o + c]];
        // Compare in encoded units so the tolerance reads in bytes.
        errors.push(Math.abs(linearToEncoded(avg) - linearToEncoded(target)) * 255);
      }
      const v = [0, 0, 0];
      for (let q = 0; q < 4; q++) {
        for (let c = 0; c < 3; c++)
          v[c] += fineTexel(fineN, 2 * i + (q & 1), 2 * j + (q >> 1), c) / 127.5 - 1;
      }
      const len = Math.hypot(v[0], v[1], v[2]);
      const n = [0, 1, 2].map((c) => coarseN[o + c] / 127.5 - 1);
      const nl = Math.hypot(n[0], n[1], n[2]);
      const cos = (v[0] * n[0] + v[1] * n[1] + v[2] * n[2]) / (len * nl);
      angleSum += (Math.acos(Math.min(1, cos)) * 180) / Math.PI;
    }
  }
  errors.sort((a, b) => a - b);
  return {
    albedoMeanError: errors.reduce((s, e) => s + e, 0) / errors.length,
    albedoP99Error: errors[Math.floor(errors.length * 0.99)],
    normalMeanErrorDeg: angleSum / (P * P),
  };
}

function linearToEncoded(l: number): number {
  return l <= 0.0031308 ? l * 12.92 : 1.055 * l ** (1 / 2.4) - 0.055;
}
