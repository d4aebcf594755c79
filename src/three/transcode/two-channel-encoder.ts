/*
 * Two-channel block encoders for normal maps: BC5 (two BC4 blocks) and EAC RG11 (two EAC R11
 * blocks), from decoded RGBA8 texels, keeping red and green (a normal's x and y). Basis's UASTC
 * transcoder writes red and ALPHA into these formats whatever channels are asked for (measured on
 * three's build), so for a normal map stored in red and green (`normalChannels` 'red-green', what
 * bakes before usage 2 wrote) the worker decodes UASTC to RGBA8 and encodes red and green itself;
 * one stored with y in alpha (what the baker writes now) goes straight through the transcoder.
 */

/** EAC modifier tables (the ETC2 specification's alpha/R11 table), 8 entries each. */
const EAC_TABLES = new Int8Array([
  -3, -6, -9, -15, 2, 5, 8, 14, -3, -7, -10, -13, 2, 6, 9, 12, -2, -5, -8, -13, 1, 4, 7, 12, -2, -4, -6, -13,
  1, 3, 5, 12, -3, -6, -8, -12, 2, 5, 7, 11, -3, -7, -9, -11, 2, 6, 8, 10, -4, -7, -8, -11, 3, 6, 7, 10, -3,
  -5, -8, -11, 2, 4, 7, 10, -2, -6, -8, -10, 1, 5, 7, 9, -2, -5, -8, -10, 1, 4, 7, 9, -2, -4, -8, -10, 1, 3,
  7, 9, -2, -5, -7, -10, 1, 4, 6, 9, -3, -4, -7, -10, 2, 3, 6, 9, -1, -2, -3, -10, 0, 1, 2, 9, -4, -6, -8, -9,
  3, 5, 7, 8, -3, -5, -7, -9, 2, 4, 6, 8,
]);

/** One channel of a 4x4 block, row-major (scratch, reused). */
const texels = new Float64Array(16);

function gather(rgba: Uint8Array, tileSize: number, bx: number, by: number, channel: number): void {
  for (let y = 0; y < 4; y++) {
    const row = ((by * 4 + y) * tileSize + bx * 4) * 4 + channel;
    for (let x = 0; x < 4; x++) texels[y * 4 + x] = rgba[row + x * 4];
  }
}

/** Writes one BC4 block (8 bytes at `o`) of {@link texels}: min/max endpoints, 8-level palette. */
function encodeBc4(out: Uint8Array, o: number): void {
  let lo = 255;
  let hi = 0;
  for (let i = 0; i < 16; i++) {
    if (texels[i] < lo) lo = texels[i];
    if (texels[i] > hi) hi = texels[i];
  }
  out[o] = hi;
  out[o + 1] = lo;
  // 48 bits of 3-bit indices, texel 0 in the lowest bits; two 24-bit halves avoid 32-bit overflow.
  let bits0 = 0;
  let bits1 = 0;
  const span = hi - lo;
  for (let i = 0; i < 16; i++) {
    let index = 0;
    if (span > 0) {
      // Position along hi -> lo in sevenths: 0 = hi (index 0), 7 = lo (index 1), k = index k + 1.
      const k = Math.round(((hi - texels[i]) * 7) / span);
      index = k === 0 ? 0 : k === 7 ? 1 : k + 1;
    }
    if (i < 8) bits0 |= index << (3 * i);
    else {
      bits1 |= index << (3 * (i - 8));
    }
  }
  out[o + 2] = bits0 & 255;
  out[o + 3] = (bits0 >> 8) & 255;
  out[o + 4] = (bits0 >> 16) & 255;
  out[o + 5] = bits1 & 255;
  out[o + 6] = (bits1 >> 8) & 255;
  out[o + 7] = (bits1 >> 16) & 255;
}

/** Encodes the red and green of a decoded `tileSize²` RGBA8 tile as BC5 blocks (16 bytes each). */
export function encodeBc5(rgba: Uint8Array, tileSize: number, out: Uint8Array): void {
  const blocks = tileSize >> 2;
  for (let by = 0; by < blocks; by++) {
    for (let bx = 0; bx < blocks; bx++) {
      const o = (by * blocks + bx) * 16;
      gather(rgba, tileSize, bx, by, 0);
      encodeBc4(out, o);
      gather(rgba, tileSize, bx, by, 1);
      encodeBc4(out, o + 8);
    }
  }
}

/** The 8 decoded levels of the EAC block being tried (scratch, reused). */
const levels = new Float64Array(8);
/** Modifier indices in ascending order of their value (every EAC table is ordered this way). */
const ASCENDING = [3, 2, 1, 0, 4, 5, 6, 7];
/** {@link levels} in ascending order, and the block's texels sorted (scratch, reused). */
const ascending = new Float64Array(8);
const sorted = new Float64Array(16);

/** Fills {@link levels} for table `t`, multiplier `m`, base `b` (11-bit values, clamped). */
function eacLevels(t: number, m: number, b: number): void {
  const centre = b * 8 + 4;
  const scale = m === 0 ? 1 : m * 8;
  for (let k = 0; k < 8; k++) {
    const v = centre + EAC_TABLES[t * 8 + k] * scale;
    levels[k] = Math.max(0, Math.min(2047, v));
  }
}

/**
 * Squared error of table `t`, multiplier `m`, base `b` on the block's {@link sorted} texels (11-bit
 * values): one merge walk of the sorted texels against the ascending levels (each texel takes its
 * nearest level); stops early once it reaches `limit` (the best so far).
 */
function eacError(t: number, m: number, b: number, limit: number): number {
  eacLevels(t, m, b);
  for (let j = 0; j < 8; j++) ascending[j] = levels[ASCENDING[j]];
  let error = 0;
  let k = 0;
  for (let i = 0; i < 16 && error < limit; i++) {
    const value = sorted[i];
    while (k < 7 && Math.abs(ascending[k + 1] - value) <= Math.abs(ascending[k] - value)) k++;
    const d = ascending[k] - value;
    error += d * d;
  }
  return error;
}

/** Base codeword centring table `t` at multiplier `m` on the block's value range. */
function eacBase(t: number, m: number, lo: number, hi: number): number {
  const mid = (EAC_TABLES[t * 8 + 3] + EAC_TABLES[t * 8 + 7]) / 2;
  return Math.min(255, Math.max(0, Math.round(((hi + lo) / 2 - 4 - mid * m * 8) / 8)));
}

/** Writes one EAC R11 block (8 bytes at `o`, big-endian) of {@link texels} (11-bit values). */
function encodeEacR11(out: Uint8Array, o: number): void {
  // Insertion sort of 16 values (allocation-free): the error walk needs them in order.
  for (let i = 0; i < 16; i++) {
    const value = texels[i];
    let j = i - 1;
    while (j >= 0 && sorted[j] > value) {
      sorted[j + 1] = sorted[j];
      j--;
    }
    sorted[j + 1] = value;
  }
  const lo = sorted[0];
  const hi = sorted[15];
  // Every table at the multiplier fitting its span to the range, then the best refined by +-1.
  let bestT = 0;
  let bestM = 1;
  let bestB = 0;
  let bestError = Number.POSITIVE_INFINITY;
  for (let t = 0; t < 16; t++) {
    const spread = (EAC_TABLES[t * 8 + 7] - EAC_TABLES[t * 8 + 3]) * 8;
    const m = Math.min(15, Math.max(1, Math.round((hi - lo) / spread)));
    const b = eacBase(t, m, lo, hi);
    const e = eacError(t, m, b, bestError);
    if (e < bestError) {
      bestError = e;
      bestT = t;
      bestM = m;
      bestB = b;
    }
  }
  const t = bestT;
  const fitted = bestM;
  for (let m = Math.max(1, fitted - 1); m <= Math.min(15, fitted + 1); m++) {
    const centred = eacBase(t, m, lo, hi);
    for (let b = Math.max(0, centred - 1); b <= Math.min(255, centred + 1); b++) {
      if (m === fitted && b === centred) continue;
      const e = eacError(t, m, b, bestError);
      if (e < bestError) {
        bestError = e;
        bestM = m;
        bestB = b;
      }
    }
  }
  out[o] = bestB;
  out[o + 1] = (bestM << 4) | t;
  // 16 indices of 3 bits, pixel (x, y) in column-major order (x * 4 + y), first in the top bits.
  let high = 0; // bits 47..24: pixels 0..7
  let low = 0; // bits 23..0: pixels 8..15
  eacLevels(t, bestM, bestB);
  for (let p = 0; p < 16; p++) {
    const value = texels[(p & 3) * 4 + (p >> 2)];
    let index = 0;
    let best = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 8; k++) {
      const d = Math.abs(levels[k] - value);
      if (d < best) {
        best = d;
        index = k;
      }
    }
    if (p < 8) high |= index << (21 - 3 * p);
    else {
      low |= index << (21 - 3 * (p - 8));
    }
  }
  out[o + 2] = (high >> 16) & 255;
  out[o + 3] = (high >> 8) & 255;
  out[o + 4] = high & 255;
  out[o + 5] = (low >> 16) & 255;
  out[o + 6] = (low >> 8) & 255;
  out[o + 7] = low & 255;
}

/** Encodes the red and green of a decoded `tileSize²` RGBA8 tile as EAC RG11 blocks (16 bytes each). */
export function encodeEacRg11(rgba: Uint8Array, tileSize: number, out: Uint8Array): void {
  const blocks = tileSize >> 2;
  for (let by = 0; by < blocks; by++) {
    for (let bx = 0; bx < blocks; bx++) {
      const o = (by * blocks + bx) * 16;
      for (let channel = 0; channel < 2; channel++) {
        gather(rgba, tileSize, bx, by, channel);
        // 8-bit to 11-bit (255 -> 2047).
        for (let i = 0; i < 16; i++) texels[i] = (texels[i] * 2047) / 255;
        encodeEacR11(out, o + channel * 8);
      }
    }
  }
}
