/**
 * A deterministic web map from zoom 0 to {@link GLOBE_MAX_ZOOM} for the globe's tests and
 * benchmark: tile z/x/y is drawn from its coordinates alone, so any view at any zoom can be checked
 * against a reference assembled from the same tiles. Each texel is
 *
 * - a smooth colour field over the whole world (the same at every zoom, so each zoom is close to
 *   the average of the next: a pyramid, not unrelated images);
 * - seeded noise keyed by zoom and texel (a blurry fallback or the wrong zoom differs from it);
 * - a dark line along the tile's top and left edges (tile grid lines: a misplaced tile or a
 *   texel shift shows as a moved line);
 * - a label: a block of 4 x 4-texel cells near the tile's top-left corner spelling the bits of z,
 *   x and y (a tile drawn at the wrong place or zoom reads differently).
 *
 * Pure arithmetic, used in Node (the test server's middleware, the benchmark's server) and in the
 * browser (references drawn on the CPU).
 */

/** Side of a tile, texels. */
export const GLOBE_TILE_SIZE = 256;
/** Finest zoom served. */
export const GLOBE_MAX_ZOOM = 18;

/** Peak amplitude of the noise, 8-bit levels. */
const NOISE_AMPLITUDE = 14;
/** Label cells: side in texels, cells per row, rows (z: 5 bits, x and y: up to 18 bits each). */
const CELL = 4;
const LABEL_COLUMNS = 18;
const LABEL_ROWS = 3;
const LABEL_LEFT = 12;
const LABEL_TOP = 12;

/** 32-bit integer hash (lowbias32): the noise's seed mixing. */
function hash(n: number): number {
  let h = n >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The label's bit at cell (`column`, `row`): z in row 0, x in row 1, y in row 2, most significant first. */
function labelBit(z: number, x: number, y: number, column: number, row: number): number {
  const value = row === 0 ? z : row === 1 ? x : y;
  const bits = row === 0 ? 5 : LABEL_COLUMNS;
  if (column >= bits) return -1;
  return (value >>> (bits - 1 - column)) & 1;
}

/**
 * The rgba8 texels of tile (`x`, `y`) of zoom `z`, rows top down ({@link GLOBE_TILE_SIZE} square,
 * opaque), written into `out` when given.
 */
export function globeTile(z: number, x: number, y: number, out?: Uint8Array): Uint8Array {
  const size = GLOBE_TILE_SIZE;
  const data = out ?? new Uint8Array(size * size * 4);
  const world = size * 2 ** z;
  const seed = hash(z * 0x9e3779b1);
  for (let j = 0; j < size; j++) {
    const gy = y * size + j;
    const v = (gy + 0.5) / world;
    for (let i = 0; i < size; i++) {
      const gx = x * size + i;
      const u = (gx + 0.5) / world;
      // Smooth field: a few low-frequency waves over the world (identical at every zoom).
      let r = 120 + 70 * Math.sin(2 * Math.PI * (3 * u + 0.25 * Math.sin(2 * Math.PI * v)));
      let g = 120 + 70 * Math.sin(2 * Math.PI * (2 * v + 0.5 * u));
      let b = 120 + 60 * Math.cos(2 * Math.PI * (5 * u - 3 * v));
      // Noise per texel of this zoom (world texel coordinates: no seam between tiles).
      const n = hash(seed ^ hash(gx * 0x27d4eb2d + hash(gy)));
      const noise = ((n & 0xff) / 255 - 0.5) * 2 * NOISE_AMPLITUDE;
      r += noise;
      g += (((n >>> 8) & 0xff) / 255) * 2 * NOISE_AMPLITUDE - NOISE_AMPLITUDE;
      b += (((n >>> 16) & 0xff) / 255) * 2 * NOISE_AMPLITUDE - NOISE_AMPLITUDE;
      if (i === 0 || j === 0) {
        r *= 0.3;
        g *= 0.3;
        b *= 0.3;
      } else {
        const column = Math.floor((i - LABEL_LEFT) / CELL);
        const row = Math.floor((j - LABEL_TOP) / CELL);
        if (i >= LABEL_LEFT && j >= LABEL_TOP && column < LABEL_COLUMNS && row < LABEL_ROWS) {
          const bit = labelBit(z, x, y, column, row);
          if (bit === 1) r = g = b = 240;
          else if (bit === 0) r = g = b = 20;
        }
      }
      const o = (j * size + i) * 4;
      data[o] = clampByte(r);
      data[o + 1] = clampByte(g);
      data[o + 2] = clampByte(b);
      data[o + 3] = 255;
    }
  }
  return data;
}

function clampByte(v: number): number {
  return Math.max(0, Math.min(255, Math.round(v)));
}

/** Path of a tile under a server's prefix: `{z}/{x}/{y}.png`, parsed; null for anything else. */
export function parseGlobeTilePath(path: string): { z: number; x: number; y: number } | null {
  const match = /^(\d+)\/(\d+)\/(\d+)\.png$/.exec(path);
  if (match === null) return null;
  const [z, x, y] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const n = 2 ** z;
  if (z > GLOBE_MAX_ZOOM || x >= n || y >= n) return null;
  return { z, x, y };
}
