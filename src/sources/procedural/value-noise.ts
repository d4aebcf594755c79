/**
 * 2D value noise with analytic derivatives: cheap (four hashes per sample), deterministic across
 * platforms (integer hashing with `Math.imul`), and smooth enough (quintic fade, C2) that its
 * gradient gives continuous normals.
 */

/** Result of one noise sample; reused by callers so sampling allocates nothing. */
export interface NoiseSample {
  /** Noise value in [-1, 1]. */
  value: number;
  /** d(value)/dx, per unit of the noise's input coordinate. */
  dx: number;
  /** d(value)/dy, per unit of the noise's input coordinate. */
  dy: number;
}

/** Hash of an integer lattice point and a seed to a float in [-1, 1]. */
export function latticeValue(ix: number, iy: number, seed: number): number {
  let h = Math.imul(ix, 0x27d4eb2d) ^ Math.imul(iy ^ 0x5bd1e995, 0x165667b1) ^ seed;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h & 0xffffff) * (2 / 0xffffff) - 1;
}

/** Lattice period of {@link valueNoise} on each axis, in lattice cells (power of two). */
export const NOISE_PERIOD = 4096;
const MASK = NOISE_PERIOD - 1;
/** Random lattice values in [-1, 1] (table reads replace hash evaluations). */
export const LATTICE = new Float64Array(NOISE_PERIOD);
/** Random row offsets into {@link LATTICE}, one per lattice column. */
export const PERMUTATION = new Int32Array(NOISE_PERIOD);
for (let i = 0; i < NOISE_PERIOD; i++) {
  LATTICE[i] = latticeValue(i, 0, 0x1b873593);
  PERMUTATION[i] = ((latticeValue(i, 1, 0x2c1b3c6d) + 1) * 0.5 * MASK) | 0;
}

/**
 * Samples value noise at (`x`, `y`) (lattice spacing 1) into `out`; returns `out.value`. The
 * lattice repeats every {@link NOISE_PERIOD} cells; callers give each octave its own rotation and
 * offset (and `seed` shifts the lattice), so the repetition never lines up between octaves.
 */
export function valueNoise(x: number, y: number, seed: number, out: NoiseSample): number {
  const fx0 = Math.floor(x);
  const fy0 = Math.floor(y);
  const ix = fx0 | 0;
  const iy = fy0 | 0;
  const fx = x - fx0;
  const fy = y - fy0;
  const u = fx * fx * fx * (fx * (fx * 6 - 15) + 10);
  const w = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
  const du = 30 * fx * fx * (fx * (fx - 2) + 1);
  const dw = 30 * fy * fy * (fy * (fy - 2) + 1);
  const row0 = PERMUTATION[(ix + seed) & MASK];
  const row1 = PERMUTATION[(ix + seed + 1) & MASK];
  const a = LATTICE[(row0 + iy) & MASK];
  const b = LATTICE[(row1 + iy) & MASK];
  const c = LATTICE[(row0 + iy + 1) & MASK];
  const d = LATTICE[(row1 + iy + 1) & MASK];
  const k = a - b - c + d;
  out.value = a + (b - a) * u + (c - a) * w + k * u * w;
  out.dx = du * (b - a + k * w);
  out.dy = dw * (c - a + k * u);
  return out.value;
}
