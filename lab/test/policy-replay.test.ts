import { describe, expect, it } from 'vitest';
import { REPLACEMENT_POLICIES } from '../../src/core/vt/residency/create-replacement-policy';
import { flyOverPath } from '../../src/sim/camera-paths';
import type { CameraPose } from '../../src/sim/camera-pose';
import { countOptimalLoads } from '../../src/sim/optimal-loads';
import { RequestTrace } from '../../src/sim/request-trace';
import { heldOutCases } from '../sim/heldout-paths';
import { replayLoads } from '../sim/policy-replay';
import { tuningCases } from '../sim/tuning-paths';

function loop(n: number, window: number, laps: number): number[][] {
  const frames: number[][] = [];
  for (let f = 0; f < n * laps; f++) {
    const req: number[] = [];
    for (let k = 0; k < window; k++) req.push((f + k) % n);
    frames.push(req);
  }
  return frames;
}

describe('replayLoads', () => {
  it('never beats Belady, and LRU reloads every page of a loop larger than the pool', () => {
    const trace = RequestTrace.fromFrames(loop(64, 4, 4));
    const opt = countOptimalLoads(trace, 32);
    expect(replayLoads(trace, 32, 'lru')).toBe(64 + 3 + 3 * 64);
    for (const policy of REPLACEMENT_POLICIES)
      expect(replayLoads(trace, 32, policy)).toBeGreaterThanOrEqual(opt);
  });

  it('loads each page once when the pool holds the union', () => {
    const trace = RequestTrace.fromFrames(loop(20, 3, 5));
    for (const policy of REPLACEMENT_POLICIES) expect(replayLoads(trace, 20, policy)).toBe(20);
  });

  it('throws pool-too-small when a frame does not fit', () => {
    expect(() => replayLoads(RequestTrace.fromFrames([[1, 2, 3]]), 2, 'lru')).toThrow(/more than 2/);
  });
});

describe('heldOutCases', () => {
  it('gives at least eight distinct, deterministic paths apart from the benchmark ones', () => {
    const cases = heldOutCases({ world: 1024 * 120, altitude: 150 });
    expect(cases.length).toBeGreaterThanOrEqual(8);
    expect(new Set(cases.map((c) => c.key)).size).toBe(cases.length);
    expect(new Set(cases.map((c) => c.poolFraction))).toEqual(new Set([1 / 2, 1 / 4, 1 / 8]));
    const pose = {} as CameraPose;
    const again = heldOutCases({ world: 1024 * 120, altitude: 150 });
    cases.forEach((c, i) => {
      for (const f of [0, 17, c.path.frames - 1]) {
        const a = { ...c.path.poseAt(f, pose) };
        expect(again[i].path.poseAt(f, pose)).toEqual(a);
        expect(Number.isFinite(a.x + a.y + a.z + a.yaw + a.pitch)).toBe(true);
      }
    });
    // Not the flyover of the benchmark set (seed 11).
    const bench = flyOverPath({
      worldWidth: 1024 * 120,
      worldDepth: 1024 * 120,
      seed: 11,
      frames: 900,
      speed: 6,
    });
    expect(cases.some((c) => c.path.poseAt(5, pose).x === bench.poseAt(5, {} as CameraPose).x)).toBe(false);
  });
});

describe('tuningCases', () => {
  it('gives at least eight paths of the held-out shapes, none of them a held-out path', () => {
    const shape = { world: 1024 * 120, altitude: 150 };
    const tuning = tuningCases(shape);
    const heldOut = heldOutCases(shape);
    expect(tuning.length).toBeGreaterThanOrEqual(8);
    expect(new Set(tuning.map((c) => c.key)).size).toBe(tuning.length);
    const shapes = (cases: typeof tuning) => new Set(cases.map((c) => c.path.name));
    expect(shapes(tuning)).toEqual(shapes(heldOut));
    const a = {} as CameraPose;
    const b = {} as CameraPose;
    for (const t of tuning) {
      for (const h of heldOut) {
        const same = [0, 5, 100].every((f) => {
          t.path.poseAt(f, a);
          h.path.poseAt(f, b);
          return a.x === b.x && a.y === b.y && a.z === b.z && a.yaw === b.yaw;
        });
        expect(same, `${t.key} repeats held-out ${h.key}`).toBe(false);
      }
    }
  });
});
