/**
 * Surveys the demo's world for region centres, with the world's own code (deterministic): for
 * snow, then sand, then grass, the candidates of a 50 m grid (prop areas on the terrain) on dry
 * land whose procedural albedo is at least half that biome within 250 m, best first, at least
 * 1,100 m from the centres already chosen; prints them and the chosen centres, which
 * `demo/regions.ts` holds.
 *
 *   npx tsx demo/world/survey-region-centres.ts [seed]     # about 1.5 minutes (64 tiles at mip 7)
 */

import { PROCEDURAL_SEA_LEVEL, ProceduralWorld } from '@tessera-vt/tessera/sources';
import { REGIONS_SEED } from '../regions';
import { TERRAIN_SIZE_METERS } from './height-field';

const seed = Number(process.argv[2] ?? REGIONS_SEED);
const world = new ProceduralWorld({ seed });
const { tileSize, border, widthPages } = world.info;
/** Mip 7: 8 x 8 pages of 120 texels, 4.3 m a texel. */
const MIP = 7;
const pages = widthPages >> MIP;
const payload = tileSize - 2 * border;
const side = pages * payload;
const half = TERRAIN_SIZE_METERS / 2;

/** The albedo's classes, by its palette (world-shading.ts): the nearest within 45 of a byte each. */
const CLASSES = ['water', 'sand', 'snow', 'rock', 'grass'] as const;
const PALETTE: [number, number, number][] = [
  [34, 70, 96],
  [208, 178, 122],
  [236, 240, 246],
  [118, 108, 100],
];
const classOf = new Uint8Array(side * side);
const albedo = new Uint8Array(tileSize * tileSize * 4);
const normal = new Uint8Array(tileSize * tileSize * 4);
for (let py = 0; py < pages; py++) {
  for (let px = 0; px < pages; px++) {
    world.generateTile(MIP, px, py, albedo, normal);
    for (let j = 0; j < payload; j++) {
      for (let i = 0; i < payload; i++) {
        const o = ((j + border) * tileSize + i + border) * 4;
        let best = CLASSES.length - 1;
        let bestDistance = 45;
        PALETTE.forEach(([r, g, b], k) => {
          const d = Math.hypot(albedo[o] - r, albedo[o + 1] - g, albedo[o + 2] - b);
          if (d < bestDistance) {
            bestDistance = d;
            best = k;
          }
        });
        classOf[(py * payload + j) * side + px * payload + i] = best;
      }
    }
  }
}

/** Fraction of each class within `radius` metres of (`cx`, `cz`). */
function fractions(cx: number, cz: number, radius: number): number[] {
  const counts = CLASSES.map(() => 0);
  let total = 0;
  const texel = (metres: number) => ((metres + half) / TERRAIN_SIZE_METERS) * side;
  const i0 = Math.max(0, Math.floor(texel(cx - radius)));
  const i1 = Math.min(side, Math.ceil(texel(cx + radius)));
  const j0 = Math.max(0, Math.floor(texel(cz - radius)));
  const j1 = Math.min(side, Math.ceil(texel(cz + radius)));
  for (let j = j0; j < j1; j++) {
    for (let i = i0; i < i1; i++) {
      const x = ((i + 0.5) / side) * TERRAIN_SIZE_METERS - half;
      const z = ((j + 0.5) / side) * TERRAIN_SIZE_METERS - half;
      if (Math.hypot(x - cx, z - cz) > radius) continue;
      counts[classOf[j * side + i]]++;
      total++;
    }
  }
  return counts.map((c) => c / total);
}

/** True when no point of a 25 m grid within `radius` is under the sea (the rendered terrain's water). */
function dry(cx: number, cz: number, radius: number): boolean {
  for (let z = cz - radius; z <= cz + radius; z += 25) {
    for (let x = cx - radius; x <= cx + radius; x += 25) {
      if (Math.hypot(x - cx, z - cz) > radius) continue;
      const h = world.heightAt(x / TERRAIN_SIZE_METERS + 0.5, z / TERRAIN_SIZE_METERS + 0.5, 4);
      if (h < PROCEDURAL_SEA_LEVEL) return false;
    }
  }
  return true;
}

/** Farthest a centre may lie from the origin on each axis, metres: its 700 m prop area stays (within 2 m) on the terrain. */
const REACH = 1350;
/** Least distance between two centres: a region's sand or snow blend fades out 1.35 x 700 m away. */
const SEPARATION = 1100;

const chosen: { region: string; x: number; z: number; share: number }[] = [];
// The rarest biomes choose first: snow, then sand, then grass, each the best candidate far enough
// from those chosen before it.
for (const [region, biome] of [
  ['snowfield', 'snow'],
  ['desert', 'sand'],
  ['valley', 'grass'],
] as const) {
  const k = CLASSES.indexOf(biome);
  const found: { share: number; x: number; z: number }[] = [];
  for (let z = -REACH; z <= REACH; z += 50) {
    for (let x = -REACH; x <= REACH; x += 50) {
      const share = fractions(x, z, 250)[k];
      if (share >= 0.5 && dry(x, z, 250)) found.push({ share: Math.round(share * 100) / 100, x, z });
    }
  }
  found.sort((a, b) => b.share - a.share || a.x - b.x || a.z - b.z);
  const apart = found.filter((c) => chosen.every((o) => Math.hypot(c.x - o.x, c.z - o.z) >= SEPARATION));
  console.log(
    `${biome} (seed ${seed}): ${found.length} dry candidates, ${apart.length} far enough from the others; best:`,
  );
  console.log(
    apart
      .slice(0, 8)
      .map((c) => `  (${c.x}, ${c.z}) ${biome} ${c.share}`)
      .join('\n'),
  );
  if (apart.length > 0) chosen.push({ region, ...apart[0] });
}
console.log('centres:', JSON.stringify(chosen));
