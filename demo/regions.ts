/**
 * The three regions of the world. Each is a "scene" in the budget's sense: its props and their
 * textures are loaded while it is active and released when the player leaves, through
 * `transition()`.
 */

/** Names of the regions, the scene ids of the automation API. */
export type RegionName = 'valley' | 'desert' | 'snowfield';

/** Prop texture palette (linear-ish sRGB bytes) that gives a region its look. */
export interface RegionPalette {
  leaves: [number, number, number];
  bark: [number, number, number];
  rock: [number, number, number];
  wall: [number, number, number];
  roof: [number, number, number];
}

/** Where a region is and what it looks like. */
export interface RegionDefinition {
  name: RegionName;
  /** Centre of the region's prop area, world metres. */
  centre: { x: number; z: number };
  /** Radius of the prop area, metres. */
  radius: number;
  /** Prop counts (instances). */
  trees: number;
  rocks: number;
  buildings: number;
  /** Tree shape: broadleaf cones, thin cacti or snowy pines. */
  treeShape: 'broadleaf' | 'cactus' | 'pine';
  palette: RegionPalette;
  /** Sky and fog colour (sRGB hex). */
  sky: number;
}

/**
 * The regions in the order of `demo.scenes`. The centres sit on land of each region's biome in the
 * demo's world (seed 7, the default and the archives' seed), found with the procedural world's own
 * code by `demo/world/survey-region-centres.ts`: dry ground (no sea on a 25 m grid within 250 m, so the rendered
 * terrain's splat map is not water there), the procedural albedo's grass, sand or snow over most of
 * the 250 m around, roads between the centres on land, and the centres over 1,100 m apart so each
 * region's sand or snow blend (which fades out 1.35 radii from its centre) stays its own.
 */
export const REGIONS: readonly RegionDefinition[] = [
  {
    name: 'valley',
    centre: { x: -1350, z: 50 },
    radius: 700,
    trees: 700,
    rocks: 160,
    buildings: 36,
    treeShape: 'broadleaf',
    palette: {
      leaves: [60, 120, 45],
      bark: [95, 70, 45],
      rock: [120, 118, 110],
      wall: [215, 205, 185],
      roof: [150, 55, 40],
    },
    sky: 0x9cc7e8,
  },
  {
    name: 'desert',
    centre: { x: 750, z: -350 },
    radius: 700,
    trees: 260,
    rocks: 320,
    buildings: 28,
    treeShape: 'cactus',
    palette: {
      leaves: [70, 130, 70],
      bark: [150, 120, 80],
      rock: [190, 130, 80],
      wall: [210, 170, 120],
      roof: [180, 140, 95],
    },
    sky: 0xe8d2a6,
  },
  {
    name: 'snowfield',
    centre: { x: -650, z: -800 },
    radius: 700,
    trees: 600,
    rocks: 200,
    buildings: 20,
    treeShape: 'pine',
    palette: {
      leaves: [40, 75, 55],
      bark: [70, 50, 40],
      rock: [90, 95, 105],
      wall: [120, 85, 60],
      roof: [235, 240, 250],
    },
    sky: 0xc8d6e6,
  },
];

/** The world seed the regions were placed on (`?seed=` default; the committed archives' seed). */
export const REGIONS_SEED = 7;

/** Where the demo starts, world metres: beside the valley's village, which lies ahead. */
export const START_POINT = { x: REGIONS[0].centre.x - 150, z: REGIONS[0].centre.z + 300 };

/** A pose `dx`, `dz` metres from `region`'s centre (heights above ground, angles in radians). */
export function poseNear(
  region: RegionName,
  dx: number,
  dz: number,
  height: number,
  yaw: number,
  pitch: number,
): { x: number; z: number; height: number; yaw: number; pitch: number } {
  const centre = findRegion(region)!.centre;
  return { x: centre.x + dx, z: centre.z + dz, height, yaw, pitch };
}

/** Region names, the `demo.scenes` list. */
export const REGION_NAMES: readonly RegionName[] = REGIONS.map((r) => r.name);

/** The definition of `name`, or undefined when it is not a region. */
export function findRegion(name: string): RegionDefinition | undefined {
  return REGIONS.find((r) => r.name === name);
}

/** The region whose centre is nearest to world (`x`, `z`). */
export function nearestRegion(x: number, z: number): RegionDefinition {
  let best = REGIONS[0];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const region of REGIONS) {
    const d = Math.hypot(x - region.centre.x, z - region.centre.z);
    if (d < bestDistance) {
      bestDistance = d;
      best = region;
    }
  }
  return best;
}

/** Lifetime tag of `region`'s textures in the budget. */
export function regionTag(region: string): string {
  return `scene:${region}`;
}
