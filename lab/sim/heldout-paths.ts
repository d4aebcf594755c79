import { buildPathCases, type HeldOutCase, type HeldOutShape, type PathCaseSpec } from './path-cases';

/**
 * The held-out set: paths never used to tune a policy (other seeds, speeds, altitudes and shapes
 * than the three benchmark paths), each replayed at one pool fraction of its union.
 */
const HELD_OUT: readonly PathCaseSpec[] = [
  {
    key: 'lookaround',
    poolFraction: 1 / 2,
    shape: 'lookaround',
    seed: 101,
    frames: 960,
    altitude: 1,
    periodFrames: 240,
  },
  {
    key: 'figure8',
    poolFraction: 1 / 4,
    shape: 'figure8',
    seed: 102,
    frames: 1200,
    altitude: 1,
    periodFrames: 400,
    radius: 900,
  },
  { key: 'strafe', poolFraction: 1 / 2, shape: 'strafe', seed: 103, frames: 900, altitude: 0.6, speed: 4 },
  {
    key: 'randomwalk',
    poolFraction: 1 / 8,
    shape: 'randomwalk',
    seed: 104,
    frames: 1200,
    altitude: 1,
    speed: 5,
  },
  {
    key: 'teleports',
    poolFraction: 1 / 4,
    shape: 'teleports',
    seed: 105,
    frames: 1200,
    altitude: 1,
    holdFrames: 40,
  },
  {
    key: 'flyover_fast_high',
    poolFraction: 1 / 4,
    shape: 'flyover',
    seed: 106,
    frames: 900,
    altitude: 2,
    speed: 14,
  },
  {
    key: 'pingpong_short',
    poolFraction: 1 / 8,
    shape: 'pingpong',
    seed: 107,
    frames: 960,
    altitude: 1,
    legFrames: 60,
    length: 1200,
  },
  {
    key: 'orbit_low_fast',
    poolFraction: 1 / 4,
    shape: 'orbit',
    seed: 108,
    frames: 1200,
    altitude: 0.7,
    periodFrames: 200,
    radius: 400,
  },
  {
    key: 'orbit_wide',
    poolFraction: 1 / 2,
    shape: 'orbit',
    seed: 109,
    frames: 1500,
    altitude: 1.5,
    periodFrames: 500,
    radius: 1500,
  },
];

/** The held-out cases (see {@link HELD_OUT}) on `shape`'s terrain. */
export function heldOutCases(shape: HeldOutShape): HeldOutCase[] {
  return buildPathCases(shape, HELD_OUT);
}
