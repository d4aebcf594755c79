import type { CameraPath } from '../../src/sim/camera-paths';
import { flyOverPath, orbitPath, pingPongPath, teleportPath } from '../../src/sim/camera-paths';
import { figureEightPath, lookAroundPath, randomWalkPath, strafePath } from './wandering-paths';

/** Shape of the terrain and default camera of the tuning and held-out paths, in world units. */
export interface HeldOutShape {
  /** Terrain extent along x and z, in world units. */
  world: number;
  /** Default camera height, in world units. */
  altitude: number;
}

/** One camera path of a set and the pool fraction of its working-set union to replay it with. */
export interface HeldOutCase {
  /** Key used in reports (`lookaround`, `figure8`, ...). */
  readonly key: string;
  /** The path. */
  readonly path: CameraPath;
  /** Pool capacity as a fraction of the path's working-set union (1/2, 1/4, 1/8). */
  readonly poolFraction: number;
}

/**
 * One case of a path set, as data: its report key, pool fraction, path shape and that shape's
 * parameters (world units and frames; `altitude` in multiples of the shape's default altitude).
 */
export type PathCaseSpec = {
  readonly key: string;
  readonly poolFraction: number;
  readonly seed: number;
  readonly frames: number;
  readonly altitude: number;
} & (
  | { readonly shape: 'lookaround'; readonly periodFrames: number }
  | { readonly shape: 'figure8'; readonly periodFrames: number; readonly radius: number }
  | { readonly shape: 'strafe' | 'randomwalk' | 'flyover'; readonly speed: number }
  | { readonly shape: 'teleports'; readonly holdFrames: number }
  | { readonly shape: 'pingpong'; readonly legFrames: number; readonly length: number }
  | { readonly shape: 'orbit'; readonly periodFrames: number; readonly radius: number }
);

/** The path of one case on `shape`'s terrain. */
function pathOf(shape: HeldOutShape, spec: PathCaseSpec): CameraPath {
  const worldWidth = shape.world;
  const base = { worldWidth, worldDepth: worldWidth };
  const { seed, frames } = spec;
  const altitude = shape.altitude * spec.altitude;
  switch (spec.shape) {
    case 'lookaround':
      return lookAroundPath({ worldWidth, seed, frames, altitude, periodFrames: spec.periodFrames });
    case 'figure8':
      return figureEightPath({
        worldWidth,
        seed,
        frames,
        altitude,
        periodFrames: spec.periodFrames,
        radius: spec.radius,
      });
    case 'strafe':
      return strafePath({ worldWidth, seed, frames, altitude, speed: spec.speed });
    case 'randomwalk':
      return randomWalkPath({ worldWidth, seed, frames, altitude, speed: spec.speed });
    case 'teleports':
      return teleportPath({ ...base, seed, frames, holdFrames: spec.holdFrames, altitude });
    case 'flyover':
      return flyOverPath({ ...base, seed, frames, speed: spec.speed, altitude });
    case 'pingpong':
      return pingPongPath({
        ...base,
        seed,
        frames,
        legFrames: spec.legFrames,
        length: spec.length,
        altitude,
      });
    case 'orbit':
      return orbitPath({
        ...base,
        seed,
        frames,
        periodFrames: spec.periodFrames,
        radius: spec.radius,
        altitude,
      });
  }
}

/** The cases of a path set on `shape`'s terrain, in the specs' order. */
export function buildPathCases(shape: HeldOutShape, specs: readonly PathCaseSpec[]): HeldOutCase[] {
  return specs.map((spec) => ({ key: spec.key, poolFraction: spec.poolFraction, path: pathOf(shape, spec) }));
}
