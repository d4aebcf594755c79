/**
 * Adds one noise octave to a row of sample points: the hot loop of tile generation. Working one
 * octave over a whole row (instead of every octave at one point) keeps the octave's constants in
 * registers and the channel indices loop-invariant. The arithmetic is that of
 * {@link accumulatePacked} term for term, so a point's value does not depend on which tile or
 * which row layout asks for it (seams stay bit-exact).
 */

import { PACKED_STRIDE } from './octave-accumulator';
import { LATTICE, NOISE_PERIOD, PERMUTATION } from './value-noise';
import { CH_DETAIL } from './world-octaves';

const MASK = NOISE_PERIOD - 1;
const DETAIL = CH_DETAIL;

/**
 * Adds packed octave `k` (see {@link packOctaves}) sampled at (`xs[from..to)`, `ys[row]`) (mip-0
 * texels) into `buf`: channel `c` of point `i` lives at `buf[at + c * channelStride + i]`. The row
 * comes as an index: a double argument would be boxed (allocated) on every call.
 */
export function addOctaveRow(
  packed: Float64Array,
  k: number,
  xs: Float64Array,
  from: number,
  to: number,
  ys: Float64Array,
  row: number,
  buf: Float64Array,
  at: number,
  channelStride: number,
): void {
  const o = k * PACKED_STRIDE;
  const y = ys[row];
  const flags = packed[o + 7] | 0;
  const valueAt = at + (packed[o + 6] | 0) * channelStride;
  if ((flags & 1) === 0) addValueRow(packed, o, xs, from, to, y, buf, valueAt);
  else if ((flags & 2) === 0) addGradientRow(packed, o, xs, from, to, y, buf, valueAt, channelStride, -1);
  else {
    addGradientRow(packed, o, xs, from, to, y, buf, valueAt, channelStride, at + DETAIL * channelStride);
  }
}

/**
 * One octave without gradient over the row: its value into `buf[valueAt + i]`. The lattice lookup
 * is repeated in {@link addGradientRow} on purpose: one loop with a per-sample "gradient too?" test
 * was measurably slower in this, the generator's innermost loop.
 */
function addValueRow(
  packed: Float64Array,
  o: number,
  xs: Float64Array,
  from: number,
  to: number,
  y: number,
  buf: Float64Array,
  valueAt: number,
): void {
  const fc = packed[o];
  const fs = packed[o + 1];
  const ox = packed[o + 2];
  const oy = packed[o + 3];
  // Only the seed's low bits reach the mask; pre-masking keeps the sums small integers.
  const seed = (packed[o + 4] | 0) & MASK;
  const amp = packed[o + 5];
  const fsy = fs * y;
  const fcy = fc * y;
  for (let i = from; i < to; i++) {
    const x = xs[i];
    const nx = fc * x - fsy + ox;
    const ny = fs * x + fcy + oy;
    const fx0 = Math.floor(nx);
    const fy0 = Math.floor(ny);
    const fx = nx - fx0;
    const fy = ny - fy0;
    const ix = (fx0 | 0) + seed;
    const iy = fy0 | 0;
    const row0 = PERMUTATION[ix & MASK] + iy;
    const row1 = PERMUTATION[(ix + 1) & MASK] + iy;
    const a = LATTICE[row0 & MASK];
    const b = LATTICE[row1 & MASK];
    const c = LATTICE[(row0 + 1) & MASK];
    const d = LATTICE[(row1 + 1) & MASK];
    const u = fx * fx * fx * (fx * (fx * 6 - 15) + 10);
    const w = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
    const kk = a - b - c + d;
    buf[valueAt + i] += amp * (a + (b - a) * u + (c - a) * w + kk * u * w);
  }
}

/**
 * One octave with gradient over the row: the value into `buf[valueAt + i]`, its gradient into the
 * next two channels, and the value again into `detailAt + i` when `detailAt >= 0` (a loop-invariant
 * test the branch predictor always gets right).
 */
function addGradientRow(
  packed: Float64Array,
  o: number,
  xs: Float64Array,
  from: number,
  to: number,
  y: number,
  buf: Float64Array,
  valueAt: number,
  channelStride: number,
  detailAt: number,
): void {
  const fc = packed[o];
  const fs = packed[o + 1];
  const ox = packed[o + 2];
  const oy = packed[o + 3];
  const seed = (packed[o + 4] | 0) & MASK;
  const amp = packed[o + 5];
  const fsy = fs * y;
  const fcy = fc * y;
  const dxAt = valueAt + channelStride;
  const dyAt = dxAt + channelStride;
  const withDetail = detailAt >= 0;
  for (let i = from; i < to; i++) {
    const x = xs[i];
    const nx = fc * x - fsy + ox;
    const ny = fs * x + fcy + oy;
    const fx0 = Math.floor(nx);
    const fy0 = Math.floor(ny);
    const fx = nx - fx0;
    const fy = ny - fy0;
    const ix = (fx0 | 0) + seed;
    const iy = fy0 | 0;
    const row0 = PERMUTATION[ix & MASK] + iy;
    const row1 = PERMUTATION[(ix + 1) & MASK] + iy;
    const a = LATTICE[row0 & MASK];
    const b = LATTICE[row1 & MASK];
    const c = LATTICE[(row0 + 1) & MASK];
    const d = LATTICE[(row1 + 1) & MASK];
    const u = fx * fx * fx * (fx * (fx * 6 - 15) + 10);
    const w = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
    const kk = a - b - c + d;
    const v = amp * (a + (b - a) * u + (c - a) * w + kk * u * w);
    buf[valueAt + i] += v;
    const du = 30 * fx * fx * (fx * (fx - 2) + 1);
    const dw = 30 * fy * fy * (fy * (fy - 2) + 1);
    const dx = du * (b - a + kk * w);
    const dy = dw * (c - a + kk * u);
    // d/dx of noise(fc·x - fs·y, fs·x + fc·y) = fc·dx + fs·dy; d/dy = fc·dy - fs·dx.
    buf[dxAt + i] += amp * (fc * dx + fs * dy);
    buf[dyAt + i] += amp * (fc * dy - fs * dx);
    if (withDetail) buf[detailAt + i] += v;
  }
}
