import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { type CameraPath, orbitPath, teleportPath } from '../../../src/sim/camera-paths';
import { FrameSimulator, type FrameSimulatorOptions } from '../../../src/sim/frame-simulator';
import { countOptimalLoads } from '../../../src/sim/optimal-loads';
import { planPoolBySimulation, planPoolFromTrace } from '../../../src/sim/pool-planner';

// 64 x 64 pages (5461 pages over all mips), one world unit per texel, a 320 x 180 screen with a
// 40 x 23 feedback buffer: small enough to run hundreds of frames in a test.
const terrain = { widthPages: 64, heightPages: 64 };
const world = { worldWidth: 64 * 120, worldDepth: 64 * 120, altitude: 60 };
const screen = { screenWidth: 320, screenHeight: 184, feedbackScale: 8 };

function simulate(path: CameraPath, extra: Partial<FrameSimulatorOptions> = {}): FrameSimulator {
  return new FrameSimulator({ terrain, path, poolSlots: 6000, ...screen, ...extra });
}

describe('FrameSimulator', () => {
  it('settles to 100% sharp after every teleport when the pool holds everything', async () => {
    const path = teleportPath({ ...world, seed: 5, frames: 150, holdFrames: 50 });
    const sim = simulate(path, { feedbackLatencyFrames: 2, sourceLatencyFrames: 3, uploadsPerFrame: 8 });
    const report = await sim.run();
    sim.dispose();
    expect(report.frames).toBe(150);
    expect(report.teleports.map((t) => t.frame)).toEqual([0, 50, 100]);
    for (const t of report.teleports) {
      expect(t.pagesNeeded).toBeGreaterThan(0);
      // The latency floor: feedback and source latency pass before any missing page can arrive.
      expect(t.timeToSharpFrames).toBeGreaterThanOrEqual(2 + 3);
      expect(t.limitFrames).toBe(2 + 3 + Math.ceil(t.pagesNeeded / 8));
      expect(t.timeToSharpFrames).toBeLessThan(50);
      // Before the floor nothing new can be sharp.
      expect(report.sharpFraction[t.frame + 4]).toBeLessThan(0.99);
    }
    expect(report.sharpFraction[49]).toBe(1);
    expect(report.sharpFraction[149]).toBe(1);
    // Nothing evicted: each distinct page loaded once, which is also optimal.
    expect(report.evictions).toBe(0);
    expect(report.loads).toBe(report.workingSetUnion);
    expect(report.optLoads).toBe(report.loads);
  });

  it('needs more frames with a smaller upload budget, and never beats the latency floor', async () => {
    const times = [];
    for (const uploadsPerFrame of [64, 4]) {
      const path = teleportPath({ ...world, seed: 6, frames: 120, holdFrames: 60 });
      const sim = simulate(path, { feedbackLatencyFrames: 1, sourceLatencyFrames: 1, uploadsPerFrame });
      const report = await sim.run();
      sim.dispose();
      const jump = report.teleports[1];
      expect(jump.timeToSharpFrames).toBeGreaterThanOrEqual(2);
      times.push(jump.timeToSharpFrames);
    }
    expect(times[1]).toBeGreaterThan(times[0]);
  });

  it('never loads fewer pages than Belady on the trace it recorded, with a tight pool', async () => {
    const path = orbitPath({ ...world, seed: 2, frames: 240, periodFrames: 80, radius: 200 });
    const probe = simulate(path, { sourceLatencyFrames: 0, uploadsPerFrame: 1 << 16 });
    const full = await probe.run();
    probe.dispose();
    const pinned = probe.pageTable.layout.pinnedPages;
    const capacity = Math.max(full.maxFrameWorkingSet + 4, Math.floor(full.workingSetUnion * 0.6));
    const sim = simulate(path, {
      sourceLatencyFrames: 0,
      uploadsPerFrame: 1 << 16,
      poolSlots: pinned + capacity,
    });
    const report = await sim.run();
    sim.dispose();
    expect(report.capacity).toBe(capacity);
    expect(report.evictions).toBeGreaterThan(0);
    expect(report.optLoads).toBe(countOptimalLoads(report.trace!, capacity));
    expect(report.optLoads).toBeGreaterThanOrEqual(report.workingSetUnion);
    expect(report.loads).toBeGreaterThanOrEqual(report.optLoads);
  });

  it('is deterministic, failures included', async () => {
    const run = async () => {
      const path = teleportPath({ ...world, seed: 8, frames: 90, holdFrames: 30 });
      const sim = simulate(path, { failureProbability: 0.2, seed: 3, poolSlots: 400 });
      const report = await sim.run();
      sim.dispose();
      return report;
    };
    const a = await run();
    const b = await run();
    expect(a.loadErrors).toBeGreaterThan(0);
    expect(Array.from(a.sharpFraction)).toEqual(Array.from(b.sharpFraction));
    expect([a.loads, a.evictions, a.loadErrors]).toEqual([b.loads, b.evictions, b.loadErrors]);
  });

  it('rejects bad options at construction', () => {
    const path = teleportPath({ ...world, frames: 10 });
    expect(() => simulate(path, { feedbackScale: 0 })).toThrow(TesseraConfigError);
    expect(() => simulate(path, { feedbackLatencyFrames: -1 })).toThrow(TesseraConfigError);
    expect(() => simulate(path, { poolSlots: 5 })).toThrow(TesseraConfigError); // below the pinned pages
  });
});

describe('pool planning', () => {
  it('finds the smallest pool within the reload tolerance', async () => {
    const path = orbitPath({ ...world, seed: 4, frames: 160, periodFrames: 80, radius: 200 });
    const options = { terrain, path, ...screen, sourceLatencyFrames: 0, uploadsPerFrame: 1 << 16 };
    const sim = new FrameSimulator({ ...options, poolSlots: 6000 });
    const report = await sim.run();
    sim.dispose();
    const plan = planPoolFromTrace(report.trace!, 0.15);
    expect(plan.workingSetUnion).toBe(report.workingSetUnion);
    expect(plan.loads).toBeLessThanOrEqual(1.15 * plan.workingSetUnion);
    expect(countOptimalLoads(report.trace!, plan.capacity - 1)).toBeGreaterThan(1.15 * plan.workingSetUnion);
    const byCore = await planPoolBySimulation(options, 0.15);
    expect(byCore.loads).toBeLessThanOrEqual(1.15 * byCore.workingSetUnion);
    // No policy needs less than the optimum.
    expect(byCore.capacity).toBeGreaterThanOrEqual(plan.capacity - 2);
  });
});
