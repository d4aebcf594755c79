/**
 * An ETC2 RGBA8 (EAC alpha + ETC2 colour) block decoder written from the Khronos specification
 * (OpenGL ES 3.0, appendix C.1.3), with all five colour modes, and the best planar-mode fit of a
 * block: the test reference that tells what the ETC2 format can hold from what a transcoder wrote.
 */

import { EAC_MODIFIER_TABLES } from './two-channel-decoders';

/** The colour mode of an ETC2 RGB block. */
export type Etc2Mode = 'individual' | 'differential' | 't' | 'h' | 'planar';

const ETC1_MODIFIERS = [
  [2, 8],
  [5, 17],
  [9, 29],
  [13, 42],
  [18, 60],
  [24, 80],
  [33, 106],
  [47, 183],
];
const TH_DISTANCES = [3, 6, 11, 16, 23, 32, 41, 64];

const clamp255 = (v: number): number => Math.min(255, Math.max(0, v));
const extend4 = (v: number): number => v * 17;
const extend5 = (v: number): number => (v << 3) | (v >> 2);
const extend6 = (v: number): number => (v << 2) | (v >> 4);
const extend7 = (v: number): number => (v << 1) | (v >> 6);
const signed3 = (v: number): number => (v >= 4 ? v - 8 : v);

/** The 64 bits at `o` (big-endian, bit 63 first as the specification numbers them). */
function bitsAt(block: Uint8Array, o: number): bigint {
  let bits = 0n;
  for (let i = 0; i < 8; i++) bits = (bits << 8n) | BigInt(block[o + i]);
  return bits;
}

function field(bits: bigint, high: number, count: number): number {
  return Number((bits >> BigInt(high - count + 1)) & ((1n << BigInt(count)) - 1n));
}

/** The mode of the ETC2 RGB block at `o`. */
export function etc2ModeOf(block: Uint8Array, o: number): Etc2Mode {
  const bits = bitsAt(block, o);
  if (field(bits, 33, 1) === 0) return 'individual';
  const r = field(bits, 63, 5) + signed3(field(bits, 58, 3));
  const g = field(bits, 55, 5) + signed3(field(bits, 50, 3));
  const b = field(bits, 47, 5) + signed3(field(bits, 42, 3));
  if (r < 0 || r > 31) return 't';
  if (g < 0 || g > 31) return 'h';
  if (b < 0 || b > 31) return 'planar';
  return 'differential';
}

/**
 * Decodes the ETC2 RGB block at `o` into `out` (16 texels x 3 channels, row-major: texel
 * y * 4 + x), 0..255.
 */
export function decodeEtc2Rgb(block: Uint8Array, o: number, out: Float64Array): Etc2Mode {
  const bits = bitsAt(block, o);
  const mode = etc2ModeOf(block, o);
  const index = (p: number): number => (field(bits, 16 + p, 1) << 1) | field(bits, p, 1);
  if (mode === 'planar') {
    const ro = extend6(field(bits, 62, 6));
    const go = extend7((field(bits, 56, 1) << 6) | field(bits, 54, 6));
    const bo = extend6((field(bits, 48, 1) << 5) | (field(bits, 44, 2) << 3) | field(bits, 41, 3));
    const rh = extend6((field(bits, 38, 5) << 1) | field(bits, 32, 1));
    const gh = extend7(field(bits, 31, 7));
    const bh = extend6(field(bits, 24, 6));
    const rv = extend6(field(bits, 18, 6));
    const gv = extend7(field(bits, 12, 7));
    const bv = extend6(field(bits, 5, 6));
    planarTexels([ro, go, bo], [rh, gh, bh], [rv, gv, bv], out);
    return mode;
  }
  if (mode === 't' || mode === 'h') {
    let c1: number[];
    let c2: number[];
    let d: number;
    let paints: number[][];
    if (mode === 't') {
      c1 = [(field(bits, 60, 2) << 2) | field(bits, 57, 2), field(bits, 55, 4), field(bits, 51, 4)];
      c2 = [field(bits, 47, 4), field(bits, 43, 4), field(bits, 39, 4)];
      d = TH_DISTANCES[(field(bits, 35, 2) << 1) | field(bits, 32, 1)];
      const a = c1.map(extend4);
      const b = c2.map(extend4);
      paints = [a, b.map((v) => clamp255(v + d)), b, b.map((v) => clamp255(v - d))];
    } else {
      c1 = [
        field(bits, 62, 4),
        (field(bits, 58, 3) << 1) | field(bits, 52, 1),
        (field(bits, 51, 1) << 3) | field(bits, 49, 3),
      ];
      c2 = [field(bits, 46, 4), field(bits, 42, 4), field(bits, 38, 4)];
      const v1 = (c1[0] << 8) | (c1[1] << 4) | c1[2];
      const v2 = (c2[0] << 8) | (c2[1] << 4) | c2[2];
      d = TH_DISTANCES[(field(bits, 34, 1) << 2) | (field(bits, 32, 1) << 1) | (v1 >= v2 ? 1 : 0)];
      const a = c1.map(extend4);
      const b = c2.map(extend4);
      paints = [
        a.map((v) => clamp255(v + d)),
        a.map((v) => clamp255(v - d)),
        b.map((v) => clamp255(v + d)),
        b.map((v) => clamp255(v - d)),
      ];
    }
    for (let p = 0; p < 16; p++) {
      const paint = paints[index(p)];
      const t = (p & 3) * 4 + (p >> 2);
      for (let c = 0; c < 3; c++) out[t * 3 + c] = paint[c];
    }
    return mode;
  }
  let base1: number[];
  let base2: number[];
  if (mode === 'individual') {
    base1 = [field(bits, 63, 4), field(bits, 55, 4), field(bits, 47, 4)].map(extend4);
    base2 = [field(bits, 59, 4), field(bits, 51, 4), field(bits, 43, 4)].map(extend4);
  } else {
    const r = field(bits, 63, 5);
    const g = field(bits, 55, 5);
    const b = field(bits, 47, 5);
    base1 = [r, g, b].map(extend5);
    base2 = [
      r + signed3(field(bits, 58, 3)),
      g + signed3(field(bits, 50, 3)),
      b + signed3(field(bits, 42, 3)),
    ].map(extend5);
  }
  const table1 = ETC1_MODIFIERS[field(bits, 39, 3)];
  const table2 = ETC1_MODIFIERS[field(bits, 36, 3)];
  const flip = field(bits, 32, 1) === 1;
  for (let p = 0; p < 16; p++) {
    const x = p >> 2;
    const y = p & 3;
    const second = flip ? y >= 2 : x >= 2;
    const table = second ? table2 : table1;
    const base = second ? base2 : base1;
    const i = index(p);
    const modifier = i === 0 ? table[0] : i === 1 ? table[1] : i === 2 ? -table[0] : -table[1];
    for (let c = 0; c < 3; c++) out[(y * 4 + x) * 3 + c] = clamp255(base[c] + modifier);
  }
  return mode;
}

/** Decodes the 8-bit EAC alpha block at `o` into `out` (16 texels, row-major), 0..255. */
export function decodeEacAlpha(block: Uint8Array, o: number, out: Float64Array): void {
  const bits = bitsAt(block, o);
  const base = field(bits, 63, 8);
  const multiplier = field(bits, 55, 4);
  const table = EAC_MODIFIER_TABLES[field(bits, 51, 4)];
  for (let p = 0; p < 16; p++) {
    const value = base + table[field(bits, 47 - 3 * p, 3)] * multiplier;
    out[(p & 3) * 4 + (p >> 2)] = clamp255(value);
  }
}

/** Planar texels from the decoded origin, horizontal and vertical colours (0..255 each). */
function planarTexels(o: number[], h: number[], v: number[], out: Float64Array): void {
  for (let y = 0; y < 4; y++)
    for (let x = 0; x < 4; x++)
      for (let c = 0; c < 3; c++)
        out[(y * 4 + x) * 3 + c] = clamp255((x * (h[c] - o[c]) + y * (v[c] - o[c]) + 4 * o[c] + 2) >> 2);
}

/**
 * The best ETC2 planar-mode block for `rgb` (16 texels x 3, row-major, 0..255), decoded into
 * `out`: per channel (the channels are independent in planar mode) the least-squares plane,
 * quantised to 6/7/6 bits, then the best of the neighbouring codes. Returns the squared error.
 */
export function bestPlanarFit(rgb: Float64Array, out: Float64Array): number {
  let total = 0;
  const channel = new Float64Array(16);
  for (let c = 0; c < 3; c++) {
    // Least squares of a + b x + d y over x, y in 0..3 (mean 1.5, sum of squares about it 5 per row).
    let mean = 0;
    let sx = 0;
    let sy = 0;
    for (let t = 0; t < 16; t++) mean += rgb[t * 3 + c] / 16;
    for (let t = 0; t < 16; t++) {
      sx += ((t & 3) - 1.5) * rgb[t * 3 + c];
      sy += ((t >> 2) - 1.5) * rgb[t * 3 + c];
    }
    const b = sx / 20;
    const d = sy / 20;
    const a = mean - 1.5 * b - 1.5 * d;
    const bitsOf = c === 1 ? 7 : 6;
    const max = (1 << bitsOf) - 1;
    const extend = c === 1 ? extend7 : extend6;
    const quantise = (value: number): number => Math.min(max, Math.max(0, Math.round((value * max) / 255)));
    const q = [quantise(a), quantise(a + 4 * b), quantise(a + 4 * d)];
    let best = Number.POSITIVE_INFINITY;
    let bestValues: Float64Array | null = null;
    for (let i = -1; i <= 1; i++)
      for (let j = -1; j <= 1; j++)
        for (let k = -1; k <= 1; k++) {
          const codes = [q[0] + i, q[1] + j, q[2] + k];
          if (codes.some((code) => code < 0 || code > max)) continue;
          const [o, h, v] = codes.map(extend);
          let error = 0;
          for (let t = 0; t < 16; t++) {
            const x = t & 3;
            const y = t >> 2;
            channel[t] = clamp255((x * (h - o) + y * (v - o) + 4 * o + 2) >> 2);
            error += (channel[t] - rgb[t * 3 + c]) ** 2;
          }
          if (error < best) {
            best = error;
            bestValues = channel.slice();
          }
        }
    total += best;
    for (let t = 0; t < 16; t++) out[t * 3 + c] = (bestValues as Float64Array)[t];
  }
  return total;
}

/** Squared error of the best ETC1 half-block (8 texels of `rgb` listed in `texels`) for 5-bit bases. */
function etc1HalfError(rgb: Float64Array, texels: readonly number[]): number {
  let best = Number.POSITIVE_INFINITY;
  const modifierOf = new Float64Array(8);
  for (const [small, large] of ETC1_MODIFIERS) {
    const modifiers = [small, large, -small, -large];
    // Alternate: base = mean of (texel - modifier) per channel, modifiers = nearest per texel.
    const base = [0, 0, 0];
    for (let c = 0; c < 3; c++) for (const t of texels) base[c] += rgb[t * 3 + c] / 8;
    for (let round = 0; round < 4; round++) {
      const q = base.map((v) => extend5(Math.min(31, Math.max(0, Math.round((v * 31) / 255)))));
      texels.forEach((t, k) => {
        let bestModifier = 0;
        let bestError = Number.POSITIVE_INFINITY;
        for (const m of modifiers) {
          let e = 0;
          for (let c = 0; c < 3; c++) e += (clamp255(q[c] + m) - rgb[t * 3 + c]) ** 2;
          if (e < bestError) {
            bestError = e;
            bestModifier = m;
          }
        }
        modifierOf[k] = bestModifier;
      });
      for (let c = 0; c < 3; c++) {
        base[c] = 0;
        texels.forEach((t, k) => {
          base[c] += (rgb[t * 3 + c] - modifierOf[k]) / 8;
        });
      }
    }
    // Refine: every 5-bit base within one step of the last estimate, each texel its best modifier.
    const centre = base.map((v) => Math.min(31, Math.max(0, Math.round((v * 31) / 255))));
    for (let dr = -1; dr <= 1; dr++)
      for (let dg = -1; dg <= 1; dg++)
        for (let db = -1; db <= 1; db++) {
          const codes = [centre[0] + dr, centre[1] + dg, centre[2] + db];
          if (codes.some((code) => code < 0 || code > 31)) continue;
          const q = codes.map(extend5);
          let error = 0;
          for (const t of texels) {
            let texelBest = Number.POSITIVE_INFINITY;
            for (const m of modifiers) {
              let e = 0;
              for (let c = 0; c < 3; c++) e += (clamp255(q[c] + m) - rgb[t * 3 + c]) ** 2;
              if (e < texelBest) texelBest = e;
            }
            error += texelBest;
          }
          if (error < best) best = error;
        }
  }
  return best;
}

const LEFT = [0, 1, 4, 5, 8, 9, 12, 13];
const RIGHT = [2, 3, 6, 7, 10, 11, 14, 15];
const TOP = [0, 1, 2, 3, 4, 5, 6, 7];
const BOTTOM = [8, 9, 10, 11, 12, 13, 14, 15];

/**
 * A lower bound on the squared error any ETC1-style block (individual or differential mode, what
 * ETC2 adds nothing to but T, H and planar) can reach on `rgb` (16 texels x 3, row-major), by
 * search: both flips, every modifier table, 5-bit bases for both halves with no limit on their
 * difference (so it is at least as good as any real differential or individual block, up to the
 * search finding each half's optimum).
 */
export function etc1ErrorBound(rgb: Float64Array): number {
  const vertical = etc1HalfError(rgb, LEFT) + etc1HalfError(rgb, RIGHT);
  const horizontal = etc1HalfError(rgb, TOP) + etc1HalfError(rgb, BOTTOM);
  return Math.min(vertical, horizontal);
}
