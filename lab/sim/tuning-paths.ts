import { buildPathCases, type HeldOutCase, type HeldOutShape, type PathCaseSpec } from './path-cases';

/**
 * The tuning set: camera paths a policy's constants may be fitted to, disjoint from the held-out
 * set of `heldOutCases` (other seeds, speeds, periods, altitudes and pool fractions of the same
 * shapes), so held-out figures stay a fair report.
 */
const TUNING: readonly PathCaseSpec[] = [
  {
    key: 'lookaround_slow',
    poolFraction: 1 / 4,
    shape: 'lookaround',
    seed: 201,
    frames: 900,
    altitude: 1.3,
    periodFrames: 300,
  },
  {
    key: 'figure8_small',
    poolFraction: 1 / 2,
    shape: 'figure8',
    seed: 202,
    frames: 900,
    altitude: 0.8,
    periodFrames: 300,
    radius: 600,
  },
  {
    key: 'strafe_slow',
    poolFraction: 1 / 4,
    shape: 'strafe',
    seed: 203,
    frames: 900,
    altitude: 1,
    speed: 2.5,
  },
  {
    key: 'randomwalk_slow',
    poolFraction: 1 / 4,
    shape: 'randomwalk',
    seed: 204,
    frames: 1200,
    altitude: 1.2,
    speed: 3,
  },
  {
    key: 'teleports_long_hold',
    poolFraction: 1 / 2,
    shape: 'teleports',
    seed: 205,
    frames: 1200,
    altitude: 1,
    holdFrames: 75,
  },
  {
    key: 'flyover_low',
    poolFraction: 1 / 8,
    shape: 'flyover',
    seed: 206,
    frames: 900,
    altitude: 0.8,
    speed: 8,
  },
  {
    key: 'pingpong_long',
    poolFraction: 1 / 4,
    shape: 'pingpong',
    seed: 207,
    frames: 1080,
    altitude: 1,
    legFrames: 90,
    length: 1800,
  },
  {
    key: 'orbit_tight',
    poolFraction: 1 / 8,
    shape: 'orbit',
    seed: 208,
    frames: 1200,
    altitude: 1,
    periodFrames: 300,
    radius: 800,
  },
  {
    key: 'orbit_high',
    poolFraction: 1 / 2,
    shape: 'orbit',
    seed: 209,
    frames: 1250,
    altitude: 1.2,
    periodFrames: 250,
    radius: 500,
  },
];

/** The tuning cases (see {@link TUNING}) on `shape`'s terrain. */
export function tuningCases(shape: HeldOutShape): HeldOutCase[] {
  return buildPathCases(shape, TUNING);
}
