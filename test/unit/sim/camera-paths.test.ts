import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import {
  type CameraPath,
  flyOverPath,
  orbitPath,
  pingPongPath,
  teleportPath,
} from '../../../src/sim/camera-paths';
import { type CameraPose, copyCameraPose, createCameraPose } from '../../../src/sim/camera-pose';

const terrain = { worldWidth: 30720, worldDepth: 30720 };

function poses(path: CameraPath, frames: number): CameraPose[] {
  const out = createCameraPose();
  const list: CameraPose[] = [];
  for (let f = 0; f < frames; f++) list.push(copyCameraPose(path.poseAt(f, out), createCameraPose()));
  return list;
}

const factories = [
  (seed: number) => flyOverPath({ ...terrain, seed, frames: 300 }),
  (seed: number) => pingPongPath({ ...terrain, seed, frames: 300 }),
  (seed: number) => orbitPath({ ...terrain, seed, frames: 300 }),
  (seed: number) => teleportPath({ ...terrain, seed, frames: 300, holdFrames: 50 }),
];

describe('camera paths', () => {
  it('are deterministic for a seed and differ between seeds', () => {
    for (const make of factories) {
      expect(poses(make(7), 300)).toEqual(poses(make(7), 300));
      expect(poses(make(7), 300)).not.toEqual(poses(make(8), 300));
    }
  });

  it('write into the given pose and stay over the terrain at constant altitude', () => {
    for (const make of factories) {
      const path = make(3);
      const out = createCameraPose();
      for (let f = 0; f < path.frames; f += 7) {
        expect(path.poseAt(f, out)).toBe(out);
        expect(out.x).toBeGreaterThanOrEqual(0);
        expect(out.x).toBeLessThanOrEqual(terrain.worldWidth);
        expect(out.z).toBeGreaterThanOrEqual(0);
        expect(out.z).toBeLessThanOrEqual(terrain.worldDepth);
        expect(out.y).toBeCloseTo(terrain.worldWidth * 0.01, 9);
      }
    }
  });

  it('fly-over moves in a straight line at constant speed', () => {
    const p = poses(flyOverPath({ ...terrain, seed: 5, frames: 101 }), 101);
    const step = Math.hypot(p[1].x - p[0].x, p[1].z - p[0].z);
    expect(step).toBeGreaterThan(0);
    for (let f = 1; f < 101; f++) {
      expect(Math.hypot(p[f].x - p[f - 1].x, p[f].z - p[f - 1].z)).toBeCloseTo(step, 6);
      expect(p[f].yaw).toBe(p[0].yaw);
    }
    // Heading follows the motion.
    expect(Math.atan2(p[100].x - p[0].x, p[100].z - p[0].z)).toBeCloseTo(p[0].yaw, 9);
  });

  it('ping-pong returns to the same pose every cycle and turns at the ends', () => {
    const path = pingPongPath({ ...terrain, seed: 2, legFrames: 30 });
    const p = poses(path, 130);
    expect(p[60]).toEqual(p[0]);
    expect(p[90]).toEqual(p[30]);
    expect(p[45].x).toBeCloseTo(p[15].x, 6);
    expect(p[0]).not.toEqual(p[30]);
  });

  it('orbit keeps looking at one point', () => {
    const path = orbitPath({ ...terrain, seed: 9, periodFrames: 100 });
    const p = poses(path, 100);
    const target = (q: CameraPose) => {
      const t = q.y / Math.tan(-q.pitch); // horizontal distance to where the view axis meets y = 0
      return [q.x + t * Math.sin(q.yaw), q.z + t * Math.cos(q.yaw)];
    };
    const [cx, cz] = target(p[0]);
    for (const q of p) {
      const [x, z] = target(q);
      expect(x).toBeCloseTo(cx, 6);
      expect(z).toBeCloseTo(cz, 6);
    }
    expect(p[25].x).not.toBeCloseTo(p[0].x, 0);
  });

  it('teleports hold still between jumps and report the jump frames', () => {
    const path = teleportPath({ ...terrain, seed: 4, frames: 200, holdFrames: 50 });
    expect(path.teleportFrames).toEqual([0, 50, 100, 150]);
    const p = poses(path, 200);
    for (let f = 1; f < 200; f++) {
      if (f % 50 === 0) expect(p[f]).not.toEqual(p[f - 1]);
      else expect(p[f]).toEqual(p[f - 1]);
    }
  });

  it('reject bad options', () => {
    expect(() => flyOverPath({ worldWidth: 0, worldDepth: 1 })).toThrow(TesseraConfigError);
    expect(() => teleportPath({ ...terrain, holdFrames: 0 })).toThrow(TesseraConfigError);
    expect(() => pingPongPath({ ...terrain, legFrames: 1.5 })).toThrow(TesseraConfigError);
    expect(() => orbitPath({ ...terrain, altitude: -1 })).toThrow(TesseraConfigError);
  });
});
