/**
 * Ordinary (non-virtual) prop textures, generated in code per region: leaves, bark, rock, wall and
 * roof. Tessera's TextureStreamingSystem streams them (tag `scene:<region>`) under the shared budget.
 */

import type { RegionDefinition } from '../regions';
import { seededRandom } from '../world/seeded-random';

/** The kinds of prop surface, one texture each per region. */
export type PropSurface = 'leaves' | 'bark' | 'rock' | 'wall' | 'roof';

/** All prop surfaces. */
export const PROP_SURFACES: readonly PropSurface[] = ['leaves', 'bark', 'rock', 'wall', 'roof'];

/** Side of every prop texture, texels. */
export const PROP_TEXTURE_SIZE = 512;

/** Bytes of one prop texture on the GPU when fully resident: rgba8 with a full mip chain (~4/3 of level 0). */
export const PROP_TEXTURE_BYTES = Math.floor((PROP_TEXTURE_SIZE * PROP_TEXTURE_SIZE * 4 * 4) / 3);

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
 * Generates the `surface` texels of `region`: level 0 ({@link PROP_TEXTURE_SIZE}² RGBA8, sRGB
 * values, rows from v = 0) and every coarser level down to 1x1 by 2x2 box filtering, finest first,
 * as a streamed texture's {@link LevelListSource} takes them.
 */
export function generatePropLevels(
  region: RegionDefinition,
  surface: PropSurface,
  seed: number,
): Uint8Array[] {
  const size = PROP_TEXTURE_SIZE;
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
  const levels: Uint8Array[] = [texels];
  for (let edge = size >> 1; edge >= 1; edge >>= 1) levels.push(halve(levels[levels.length - 1], edge * 2));
  return levels;
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
