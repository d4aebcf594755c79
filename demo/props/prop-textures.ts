/**
 * The texels of the ordinary (non-virtual) prop textures, per region: leaves, bark, rock, wall and
 * roof. Each texture is an atlas of one seamless motif repeated (walls and roofs 2048², the rest
 * 1024²), so that a region is tens of MiB on the GPU when fully resident yet small on disk (zstd
 * finds the repeats). `bake-prop-textures.ts` writes them as KTX2 files under assets/props/; the
 * demo streams those with Tessera's TextureStreamingSystem (tag `scene:<region>`).
 */

import type { RegionDefinition } from '../regions';
import { seededRandom } from '../world/seeded-random';

/** The kinds of prop surface, one texture each per region. */
export type PropSurface = 'leaves' | 'bark' | 'rock' | 'wall' | 'roof';

/** All prop surfaces. */
export const PROP_SURFACES: readonly PropSurface[] = ['leaves', 'bark', 'rock', 'wall', 'roof'];

/** Side of the seamless motif every prop texture repeats, texels. */
export const PROP_MOTIF_SIZE = 512;

/** Side of each surface's texture (a power of two, a whole number of motifs), texels. */
export const PROP_TEXTURE_SIZES: Readonly<Record<PropSurface, number>> = {
  leaves: 1024,
  bark: 1024,
  rock: 1024,
  wall: 2048,
  roof: 2048,
};

/** Motifs across each surface's texture (the geometry divides its uv repeat by this, so a motif keeps its size in metres). */
export function motifsAcross(surface: PropSurface): number {
  return PROP_TEXTURE_SIZES[surface] / PROP_MOTIF_SIZE;
}

/** Surfaces in a region's core set (loaded first by a transition: the ones most of the view shows). */
export const CORE_PROP_SURFACES: readonly PropSurface[] = ['leaves', 'bark', 'wall'];

/** Tileable value noise on a `cells`-wide lattice. */
function latticeNoise(random: () => number, cells: number): (u: number, v: number) => number {
  const lattice = new Float32Array(cells * cells);
  for (let i = 0; i < lattice.length; i++) lattice[i] = random();
  return (u, v) => {
    const x = u * cells;
    const y = v * cells;
    const xi = Math.floor(x);
    const yi = Math.floor(y);
    const fx = x - xi;
    const fy = y - yi;
    const sx = fx * fx * (3 - 2 * fx);
    const sy = fy * fy * (3 - 2 * fy);
    const at = (i: number, j: number) =>
      lattice[(((j % cells) + cells) % cells) * cells + (((i % cells) + cells) % cells)];
    const top = at(xi, yi) * (1 - sx) + at(xi + 1, yi) * sx;
    const bottom = at(xi, yi + 1) * (1 - sx) + at(xi + 1, yi + 1) * sx;
    return top * (1 - sy) + bottom * sy;
  };
}

/** Brightness pattern of a surface at (`u`, `v`) in [0, 1): 0.5..1.2 around the palette colour. */
function pattern(
  surface: PropSurface,
  u: number,
  v: number,
  fine: (u: number, v: number) => number,
  coarse: (u: number, v: number) => number,
): number {
  const n = 0.6 * fine(u, v) + 0.4 * coarse(u, v);
  switch (surface) {
    case 'leaves':
      return 0.55 + 0.7 * n * n;
    case 'bark':
      return 0.6 + 0.5 * fine(u * 0.25, v * 4) * (0.7 + 0.3 * Math.sin(u * 80));
    case 'rock':
      return 0.55 + 0.6 * n;
    case 'wall': {
      // Bricks 16 x 32 per texture, with mortar lines.
      const row = Math.floor(v * 32);
      const brickU = u * 16 + (row % 2) * 0.5;
      const mortar = v * 32 - row < 0.1 || brickU - Math.floor(brickU) < 0.05;
      return mortar ? 1.15 : 0.75 + 0.3 * n;
    }
    case 'roof': {
      const rowV = v * 24;
      return 0.6 + 0.5 * (rowV - Math.floor(rowV)) * (0.6 + 0.4 * n);
    }
  }
}

/**
 * Generates the `surface` texels of `region`: level 0 ({@link PROP_TEXTURE_SIZES}² RGBA8, sRGB
 * values, rows from v = 0, the motif repeated) and every coarser level down to 1x1 by 2x2 box
 * filtering, finest first (the order of a KTX2 file's levels by index).
 */
export function generatePropLevels(
  region: RegionDefinition,
  surface: PropSurface,
  seed: number,
): Uint8Array[] {
  const size = PROP_MOTIF_SIZE;
  const random = seededRandom(seed * 977 + region.name.length * 131 + PROP_SURFACES.indexOf(surface));
  const fine = latticeNoise(random, 64);
  const coarse = latticeNoise(random, 8);
  const colour = region.palette[surface];
  const texels = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const k = pattern(surface, x / size, y / size, fine, coarse);
      const i = (y * size + x) * 4;
      texels[i] = Math.min(255, colour[0] * k);
      texels[i + 1] = Math.min(255, colour[1] * k);
      texels[i + 2] = Math.min(255, colour[2] * k);
      texels[i + 3] = 255;
    }
  }
  const full = PROP_TEXTURE_SIZES[surface];
  const levels: Uint8Array[] = [repeatMotif(texels, size, full)];
  for (let edge = full >> 1; edge >= 1; edge >>= 1) levels.push(halve(levels[levels.length - 1], edge * 2));
  return levels;
}

/** A `full`-texel square RGBA8 level repeating the `edge`-texel square `motif`. */
function repeatMotif(motif: Uint8Array, edge: number, full: number): Uint8Array {
  if (full === edge) return motif;
  const out = new Uint8Array(full * full * 4);
  const rowBytes = edge * 4;
  for (let y = 0; y < full; y++) {
    const row = motif.subarray((y % edge) * rowBytes, ((y % edge) + 1) * rowBytes);
    for (let x = 0; x < full; x += edge) out.set(row, (y * full + x) * 4);
  }
  return out;
}

/** The next coarser level of a square RGBA8 level `edge` texels wide (2x2 box filter; tileable). */
function halve(level: Uint8Array, edge: number): Uint8Array {
  const half = edge >> 1;
  const out = new Uint8Array(half * half * 4);
  for (let y = 0; y < half; y++) {
    for (let x = 0; x < half; x++) {
      const a = (2 * y * edge + 2 * x) * 4;
      const b = a + edge * 4;
      const o = (y * half + x) * 4;
      for (let c = 0; c < 4; c++)
        out[o + c] = (level[a + c] + level[a + 4 + c] + level[b + c] + level[b + 4 + c] + 2) >> 2;
    }
  }
  return out;
}
