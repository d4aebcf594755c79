import { flyOverPath, orbitPath, pingPongPath, teleportPath } from './camera-paths';
import {
  figureEightPath,
  type HeldOutCase,
  type HeldOutShape,
  lookAroundPath,
  randomWalkPath,
  strafePath,
} from './heldout-paths';

/**
 * The tuning set: camera paths a policy's constants may be fitted to, disjoint from the held-out
 * set of {@link heldOutCases} (other seeds, speeds, periods, altitudes and pool fractions of the
 * same shapes), so held-out figures stay a fair report. Same shape of case as the held-out set.
 */
export function tuningCases(shape: HeldOutShape): HeldOutCase[] {
  const w = shape.world;
  const a = shape.altitude;
  const base = { worldWidth: w, worldDepth: w };
  return [
    {
      key: 'lookaround_slow',
      poolFraction: 1 / 4,
      path: lookAroundPath({ worldWidth: w, seed: 201, frames: 900, altitude: a * 1.3, periodFrames: 300 }),
    },
    {
      key: 'figure8_small',
      poolFraction: 1 / 2,
      path: figureEightPath({
        worldWidth: w,
        seed: 202,
        frames: 900,
        altitude: a * 0.8,
        periodFrames: 300,
        radius: 600,
      }),
    },
    {
      key: 'strafe_slow',
      poolFraction: 1 / 4,
      path: strafePath({ worldWidth: w, seed: 203, frames: 900, altitude: a, speed: 2.5 }),
    },
    {
      key: 'randomwalk_slow',
      poolFraction: 1 / 4,
      path: randomWalkPath({ worldWidth: w, seed: 204, frames: 1200, altitude: a * 1.2, speed: 3 }),
    },
    {
      key: 'teleports_long_hold',
      poolFraction: 1 / 2,
      path: teleportPath({ ...base, seed: 205, frames: 1200, holdFrames: 75, altitude: a }),
    },
    {
      key: 'flyover_low',
      poolFraction: 1 / 8,
      path: flyOverPath({ ...base, seed: 206, frames: 900, speed: 8, altitude: a * 0.8 }),
    },
    {
      key: 'pingpong_long',
      poolFraction: 1 / 4,
      path: pingPongPath({ ...base, seed: 207, frames: 1080, legFrames: 90, length: 1800, altitude: a }),
    },
    {
      key: 'orbit_tight',
      poolFraction: 1 / 8,
      path: orbitPath({ ...base, seed: 208, frames: 1200, periodFrames: 300, radius: 800, altitude: a }),
    },
    {
      key: 'orbit_high',
      poolFraction: 1 / 2,
      path: orbitPath({
        ...base,
        seed: 209,
        frames: 1250,
        periodFrames: 250,
        radius: 500,
        altitude: a * 1.2,
      }),
    },
  ];
}
