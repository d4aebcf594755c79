/** Sums a list of octaves of the world's noise fields at one point into accumulator channels. */

import { LATTICE, NOISE_PERIOD, PERMUTATION } from './value-noise';
import { CH_DETAIL, type OctaveTable } from './world-octaves';

// Local copies: imported bindings can compile to property reads in some loaders.
const DETAIL = CH_DETAIL;
const MASK = NOISE_PERIOD - 1;

/** Doubles per octave in a packed list made by {@link packOctaves}. */
export const PACKED_STRIDE = 8;

/**
 * Packs octaves `list[0..listLength)` with their weights into `out` (PACKED_STRIDE doubles each:
 * f·cos, f·sin, offsetX, offsetY, seed, amplitude·weight, channel, flags) so the per-texel loop
 * reads one sequential array. Returns the octave count.
 */
export function packOctaves(
  table: OctaveTable,
  list: Int32Array,
  weights: Float64Array,
  listLength: number,
  out: Float64Array,
): number {
  for (let k = 0; k < listLength; k++) packOctave(table, list[k], weights[k], out, k);
  return listLength;
}

/** Packs octave `index` of `table` with weight `weight` as entry `k` of `out` (see {@link packOctaves}). */
export function packOctave(
  table: OctaveTable,
  index: number,
  weight: number,
  out: Float64Array,
  k: number,
): void {
  const o = k * PACKED_STRIDE;
  out[o] = table.frequency[index] * table.cos[index];
  out[o + 1] = table.frequency[index] * table.sin[index];
  out[o + 2] = table.offsetX[index];
  out[o + 3] = table.offsetY[index];
  out[o + 4] = table.seed[index];
  out[o + 5] = table.amplitude[index] * weight;
  out[o + 6] = table.channel[index];
  out[o + 7] = table.hasGradient[index] + 2 * table.isDetail[index];
}

/**
 * Adds the packed octaves sampled at (`x`, `y`) mip-0 texels into `acc` (gradients per mip-0
 * texel), with value noise (see value-noise.ts) inlined: the hot
 * loop of tile generation. Results are bit-identical for the same point whichever tile asks.
 */
export function accumulatePacked(
  packed: Float64Array,
  count: number,
  x: number,
  y: number,
  acc: Float64Array,
): void {
  for (let k = 0; k < count; k++) {
    const o = k * PACKED_STRIDE;
    const fc = packed[o];
    const fs = packed[o + 1];
    const nx = fc * x - fs * y + packed[o + 2];
    const ny = fs * x + fc * y + packed[o + 3];
    const seed = packed[o + 4];
    const fx0 = Math.floor(nx);
    const fy0 = Math.floor(ny);
    const fx = nx - fx0;
    const fy = ny - fy0;
    const ix = fx0 | 0;
    const iy = fy0 | 0;
    const row0 = PERMUTATION[(ix + seed) & MASK];
    const row1 = PERMUTATION[(ix + seed + 1) & MASK];
    const a = LATTICE[(row0 + iy) & MASK];
    const b = LATTICE[(row1 + iy) & MASK];
    const c = LATTICE[(row0 + iy + 1) & MASK];
    const d = LATTICE[(row1 + iy + 1) & MASK];
    const u = fx * fx * fx * (fx * (fx * 6 - 15) + 10);
    const w = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
    const kk = a - b - c + d;
    const v = a + (b - a) * u + (c - a) * w + kk * u * w;
    const amp = packed[o + 5];
    const ch = packed[o + 6];
    const flags = packed[o + 7];
    acc[ch] += amp * v;
    if ((flags & 1) !== 0) {
      const du = 30 * fx * fx * (fx * (fx - 2) + 1);
      const dw = 30 * fy * fy * (fy * (fy - 2) + 1);
      const dx = du * (b - a + kk * w);
      const dy = dw * (c - a + kk * u);
      // d/dx of noise(fc·x - fs·y, fs·x + fc·y) = fc·dx + fs·dy; d/dy = fc·dy - fs·dx.
      acc[ch + 1] += amp * (fc * dx + fs * dy);
      acc[ch + 2] += amp * (fc * dy - fs * dx);
    }
    if ((flags & 2) !== 0) acc[DETAIL] += amp * v;
  }
}
