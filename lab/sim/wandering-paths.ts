import { TesseraConfigError } from '../../src/core/errors';
import type { CameraPath, CameraPathOptions } from '../../src/sim/camera-paths';
import type { CameraPose } from '../../src/sim/camera-pose';
import { SeededRandom } from '../../src/sim/seeded-random';

/*
 * Path shapes beyond camera-paths.ts, for the tuning and held-out sets (path-cases.ts): standing
 * and looking around, a figure eight, strafing, a random walk.
 */

function named(name: string, frames: number, pose: (frame: number, out: CameraPose) => void): CameraPath {
  return {
    name,
    frames,
    teleportFrames: [],
    poseAt(frame, out) {
      pose(frame, out);
      return out;
    },
  };
}

function place(out: CameraPose, x: number, y: number, z: number, yaw: number, pitch: number): void {
  out.x = x;
  out.y = y;
  out.z = z;
  out.yaw = yaw;
  out.pitch = pitch;
  out.fovY = Math.PI / 3;
  out.aspect = 16 / 9;
}

/** Options of the extra path shapes: as {@link CameraPathOptions}, all required but pitch. */
export interface ShapeOptions
  extends Required<Pick<CameraPathOptions, 'worldWidth' | 'seed' | 'frames' | 'altitude'>> {
  /** View elevation, in radians. Default -0.5. */
  pitch?: number;
}

function check(o: ShapeOptions): void {
  if (!(o.worldWidth > 0 && o.altitude > 0 && Number.isInteger(o.frames) && o.frames > 0)) {
    throw new TesseraConfigError('invalid-option', 'worldWidth, altitude and frames must be positive');
  }
}

/** Standing still at a seeded spot, turning the head: a full turn every `periodFrames` frames. */
export function lookAroundPath(o: ShapeOptions & { periodFrames: number }): CameraPath {
  check(o);
  const r = new SeededRandom(o.seed);
  const x = r.range(0.3, 0.7) * o.worldWidth;
  const z = r.range(0.3, 0.7) * o.worldWidth;
  const yaw0 = r.range(0, 2 * Math.PI);
  const pitch = o.pitch ?? -0.5;
  return named('lookaround', o.frames, (f, out) =>
    place(out, x, o.altitude, z, yaw0 + (2 * Math.PI * f) / o.periodFrames, pitch),
  );
}

/** A figure eight (lemniscate of Gerono) of half-width `radius`, heading along the curve. */
export function figureEightPath(o: ShapeOptions & { periodFrames: number; radius: number }): CameraPath {
  check(o);
  const r = new SeededRandom(o.seed);
  const cx = r.range(0.3, 0.7) * o.worldWidth;
  const cz = r.range(0.3, 0.7) * o.worldWidth;
  const pitch = o.pitch ?? -0.5;
  const w = (2 * Math.PI) / o.periodFrames;
  return named('figure8', o.frames, (f, out) => {
    const t = w * f;
    const dx = Math.cos(t);
    const dz = Math.cos(2 * t);
    place(
      out,
      cx + o.radius * Math.sin(t),
      o.altitude,
      cz + o.radius * Math.sin(t) * Math.cos(t),
      Math.atan2(dx, dz),
      pitch,
    );
  });
}

/** Flying sideways at `speed` world units per frame, looking at right angles to the motion. */
export function strafePath(o: ShapeOptions & { speed: number }): CameraPath {
  check(o);
  const r = new SeededRandom(o.seed);
  const heading = r.range(0, 2 * Math.PI);
  const x0 = 0.5 * o.worldWidth - 0.4 * o.worldWidth * Math.sin(heading);
  const z0 = 0.5 * o.worldWidth - 0.4 * o.worldWidth * Math.cos(heading);
  const pitch = o.pitch ?? -0.5;
  return named('strafe', o.frames, (f, out) =>
    place(
      out,
      x0 + o.speed * f * Math.sin(heading),
      o.altitude,
      z0 + o.speed * f * Math.cos(heading),
      heading + Math.PI / 2,
      pitch,
    ),
  );
}

/**
 * A seeded random walk: the heading drifts by a random turn each frame (the turn rate itself a
 * slow random walk), at `speed` world units per frame. Precomputed, so poses are a lookup.
 */
export function randomWalkPath(o: ShapeOptions & { speed: number }): CameraPath {
  check(o);
  const r = new SeededRandom(o.seed);
  const xs = new Float64Array(o.frames);
  const zs = new Float64Array(o.frames);
  const yaws = new Float64Array(o.frames);
  let x = 0.5 * o.worldWidth;
  let z = 0.5 * o.worldWidth;
  let yaw = r.range(0, 2 * Math.PI);
  let turn = 0;
  for (let f = 0; f < o.frames; f++) {
    turn = Math.max(-0.05, Math.min(0.05, turn + r.range(-0.01, 0.01)));
    yaw += turn;
    x = Math.max(0.1 * o.worldWidth, Math.min(0.9 * o.worldWidth, x + o.speed * Math.sin(yaw)));
    z = Math.max(0.1 * o.worldWidth, Math.min(0.9 * o.worldWidth, z + o.speed * Math.cos(yaw)));
    xs[f] = x;
    zs[f] = z;
    yaws[f] = yaw;
  }
  const pitch = o.pitch ?? -0.5;
  return named('randomwalk', o.frames, (f, out) => {
    const i = Math.min(Math.max(f, 0), o.frames - 1);
    place(out, xs[i], o.altitude, zs[i], yaws[i], pitch);
  });
}
