import { TesseraConfigError } from '../core/errors';
import type { CameraPose } from './camera-pose';
import { SeededRandom } from './seeded-random';

/**
 * A deterministic camera path: a pure function of the frame number. Every path is built from a
 * seed, so a run is reproducible, and {@link CameraPath.poseAt} allocates nothing.
 */
export interface CameraPath {
  /** Short name used in reports (`flyover`, `pingpong`, `orbit`, `teleports`). */
  readonly name: string;
  /** Frames the path is meant to run for; poses past the end hold or repeat as each path says. */
  readonly frames: number;
  /** Frames at which the camera jumps to a new place (empty for continuous paths), ascending. */
  readonly teleportFrames: readonly number[];
  /** Writes the pose of frame `frame` into `out` and returns `out`. */
  poseAt(frame: number, out: CameraPose): CameraPose;
}

/** Options shared by every path. */
export interface CameraPathOptions {
  /** Terrain extent along x, in world units. */
  worldWidth: number;
  /** Terrain extent along z, in world units. */
  worldDepth: number;
  /** Seed of the path's random choices (start points, headings, teleport spots). */
  seed?: number;
  /** Length of the path, in frames. Default 600. */
  frames?: number;
  /** Camera height above the terrain, in world units. Default 1% of worldWidth. */
  altitude?: number;
  /** View elevation, in radians. Default -0.5 (looking ahead and down). */
  pitch?: number;
  /** Vertical field of view, in radians. Default π/3. */
  fovY?: number;
  /** Screen width / height. Default 16/9. */
  aspect?: number;
}

interface ResolvedOptions {
  worldWidth: number;
  worldDepth: number;
  frames: number;
  altitude: number;
  pitch: number;
  fovY: number;
  aspect: number;
  random: SeededRandom;
}

function resolve(options: CameraPathOptions): ResolvedOptions {
  const { worldWidth, worldDepth } = options;
  if (!(worldWidth > 0 && worldDepth > 0 && Number.isFinite(worldWidth) && Number.isFinite(worldDepth))) {
    throw new TesseraConfigError('invalid-size', `terrain ${worldWidth} x ${worldDepth} must be positive`);
  }
  const frames = options.frames ?? 600;
  if (!Number.isInteger(frames) || frames < 1) {
    throw new TesseraConfigError('invalid-option', `frames must be a positive integer, got ${frames}`);
  }
  const altitude = options.altitude ?? worldWidth * 0.01;
  if (!(altitude > 0)) {
    throw new TesseraConfigError('invalid-option', `altitude must be > 0, got ${altitude}`);
  }
  return {
    worldWidth,
    worldDepth,
    frames,
    altitude,
    pitch: options.pitch ?? -0.5,
    fovY: options.fovY ?? Math.PI / 3,
    aspect: options.aspect ?? 16 / 9,
    random: new SeededRandom(options.seed ?? 1),
  };
}

function setPose(
  out: CameraPose,
  o: ResolvedOptions,
  x: number,
  z: number,
  yaw: number,
  pitch: number,
): CameraPose {
  out.x = x;
  out.y = o.altitude;
  out.z = z;
  out.yaw = yaw;
  out.pitch = pitch;
  out.fovY = o.fovY;
  out.aspect = o.aspect;
  return out;
}

/** Options of {@link flyOverPath}. */
export interface FlyOverOptions extends CameraPathOptions {
  /**
   * Ground speed, in world units per frame. Default: cross 80% of the terrain in `frames`. The
   * flight is shortened (the camera holds at the end) if it would leave the middle 80%.
   */
  speed?: number;
}

/**
 * Straight flight at constant altitude and speed from a seeded start near one edge towards the
 * opposite side, heading along the flight. Holds the last pose after `frames`.
 */
export function flyOverPath(options: FlyOverOptions): CameraPath {
  const o = resolve(options);
  const r = o.random;
  // Cross along x or z, in either direction, at a seeded offset, with a small seeded drift.
  const alongX = r.next() < 0.5;
  const forward = r.next() < 0.5 ? 1 : -1;
  const across = r.range(0.2, 0.8);
  const drift = r.range(-0.1, 0.1);
  const a0 = forward > 0 ? 0.1 : 0.9;
  const a1 = forward > 0 ? 0.9 : 0.1;
  const x0 = alongX ? a0 * o.worldWidth : across * o.worldWidth;
  const z0 = alongX ? across * o.worldDepth : a0 * o.worldDepth;
  const xEnd = alongX ? a1 * o.worldWidth : (across + drift) * o.worldWidth;
  const zEnd = alongX ? (across + drift) * o.worldDepth : a1 * o.worldDepth;
  const fullLength = Math.hypot(xEnd - x0, zEnd - z0);
  const last = Math.max(1, o.frames - 1);
  const speed = options.speed ?? fullLength / last;
  if (!(speed >= 0) || !Number.isFinite(speed)) {
    throw new TesseraConfigError('invalid-option', `speed must be a finite number >= 0, got ${speed}`);
  }
  const length = Math.min(fullLength, speed * last);
  const dirX = (xEnd - x0) / fullLength;
  const dirZ = (zEnd - z0) / fullLength;
  const yaw = Math.atan2(dirX, dirZ);
  return {
    name: 'flyover',
    frames: o.frames,
    teleportFrames: [],
    poseAt(frame, out) {
      const d = Math.min(Math.max(frame * speed, 0), length);
      return setPose(out, o, x0 + dirX * d, z0 + dirZ * d, yaw, o.pitch);
    },
  };
}

/** Options of {@link pingPongPath}. */
export interface PingPongOptions extends CameraPathOptions {
  /** Frames for one leg (A to B); a full cycle is twice that. Default 120. */
  legFrames?: number;
  /** Segment length, in world units. Default 5% of worldWidth. */
  length?: number;
}

/**
 * Back and forth over a seeded segment at constant altitude, always facing the same way (as a
 * strafing camera), so the same pages come back every cycle: a cache-reuse test.
 */
export function pingPongPath(options: PingPongOptions): CameraPath {
  const o = resolve(options);
  const r = o.random;
  const legFrames = options.legFrames ?? 120;
  if (!Number.isInteger(legFrames) || legFrames < 1) {
    throw new TesseraConfigError('invalid-option', `legFrames must be a positive integer, got ${legFrames}`);
  }
  const length = options.length ?? o.worldWidth * 0.05;
  const heading = r.range(0, 2 * Math.PI);
  const cx = r.range(0.3, 0.7) * o.worldWidth;
  const cz = r.range(0.3, 0.7) * o.worldDepth;
  const dirX = Math.sin(heading + Math.PI / 2);
  const dirZ = Math.cos(heading + Math.PI / 2);
  const x0 = cx - (dirX * length) / 2;
  const z0 = cz - (dirZ * length) / 2;
  return {
    name: 'pingpong',
    frames: o.frames,
    teleportFrames: [],
    poseAt(frame, out) {
      const phase = (((frame % (2 * legFrames)) + 2 * legFrames) % (2 * legFrames)) / legFrames;
      const s = phase <= 1 ? phase : 2 - phase;
      return setPose(out, o, x0 + dirX * length * s, z0 + dirZ * length * s, heading, o.pitch);
    },
  };
}

/** Options of {@link orbitPath}. */
export interface OrbitOptions extends CameraPathOptions {
  /** Frames per revolution. Default 360. */
  periodFrames?: number;
  /** Orbit radius, in world units. Default 3 x altitude. */
  radius?: number;
}

/**
 * Circle around a seeded point at constant altitude, always looking at that point (pitch follows
 * from altitude and radius; `pitch` is ignored).
 */
export function orbitPath(options: OrbitOptions): CameraPath {
  const o = resolve(options);
  const r = o.random;
  const periodFrames = options.periodFrames ?? 360;
  if (!(periodFrames > 0)) {
    throw new TesseraConfigError('invalid-option', `periodFrames must be > 0, got ${periodFrames}`);
  }
  const radius = options.radius ?? o.altitude * 3;
  if (!(radius > 0)) throw new TesseraConfigError('invalid-option', `radius must be > 0, got ${radius}`);
  const cx = r.range(0.3, 0.7) * o.worldWidth;
  const cz = r.range(0.3, 0.7) * o.worldDepth;
  const phase0 = r.range(0, 2 * Math.PI);
  const pitch = -Math.atan2(o.altitude, radius);
  return {
    name: 'orbit',
    frames: o.frames,
    teleportFrames: [],
    poseAt(frame, out) {
      const angle = phase0 + (2 * Math.PI * frame) / periodFrames;
      const x = cx + radius * Math.sin(angle);
      const z = cz + radius * Math.cos(angle);
      return setPose(out, o, x, z, Math.atan2(cx - x, cz - z), pitch);
    },
  };
}

/** Options of {@link teleportPath}. */
export interface TeleportOptions extends CameraPathOptions {
  /** Frames the camera holds still at each place. Default 60. */
  holdFrames?: number;
}

/**
 * Jumps between seeded far-apart places (uniform over the middle 80% of the terrain, random
 * heading), holding still `holdFrames` frames at each. `teleportFrames` lists every jump,
 * including frame 0; `frames / holdFrames` places are visited (the last pose holds afterwards).
 */
export function teleportPath(options: TeleportOptions): CameraPath {
  const o = resolve(options);
  const r = o.random;
  const holdFrames = options.holdFrames ?? 60;
  if (!Number.isInteger(holdFrames) || holdFrames < 1) {
    throw new TesseraConfigError(
      'invalid-option',
      `holdFrames must be a positive integer, got ${holdFrames}`,
    );
  }
  const count = Math.max(1, Math.ceil(o.frames / holdFrames));
  const xs = new Float64Array(count);
  const zs = new Float64Array(count);
  const yaws = new Float64Array(count);
  const teleportFrames: number[] = [];
  for (let i = 0; i < count; i++) {
    xs[i] = r.range(0.1, 0.9) * o.worldWidth;
    zs[i] = r.range(0.1, 0.9) * o.worldDepth;
    yaws[i] = r.range(0, 2 * Math.PI);
    teleportFrames.push(i * holdFrames);
  }
  return {
    name: 'teleports',
    frames: o.frames,
    teleportFrames,
    poseAt(frame, out) {
      const i = Math.min(Math.max(Math.floor(frame / holdFrames), 0), count - 1);
      return setPose(out, o, xs[i], zs[i], yaws[i], o.pitch);
    },
  };
}
