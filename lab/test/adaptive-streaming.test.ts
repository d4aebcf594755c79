import { describe, expect, it } from 'vitest';
import { type CameraPath, orbitPath } from '../../src/sim/camera-paths';
import { FrameSimulator, type FrameSimulatorOptions } from '../../src/sim/frame-simulator';
import { type AdaptivePolicy, adaptivePolicy } from '../policies/adaptive-policy';
import { recordCoverageTrace } from '../sim/coverage-trace';

// As in the product's frame simulator test: 64 x 64 pages, a 320 x 184 screen, 40 x 23 feedback.
const terrain = { widthPages: 64, heightPages: 64 };
const world = { worldWidth: 64 * 120, worldDepth: 64 * 120, altitude: 60 };
const screen = { screenWidth: 320, screenHeight: 184, feedbackScale: 8 };

function simulate(path: CameraPath, extra: Partial<FrameSimulatorOptions> = {}): FrameSimulator {
  return new FrameSimulator({ terrain, path, poolSlots: 6000, ...screen, ...extra });
}

describe('lab policies in the frame simulator', () => {
  it("streams with the adaptive policy (LRU partner): its shadows count the streamer's loads, and it keeps lhd on a loop", async () => {
    const path = orbitPath({ ...world, seed: 3, frames: 480, periodFrames: 160, radius: 2000 });
    const probe = simulate(path, { sourceLatencyFrames: 0, uploadsPerFrame: 1 << 16 });
    const full = await probe.run();
    probe.dispose();
    const pinned = probe.pageTable.layout.pinnedPages;
    const poolSlots = pinned + Math.max(full.maxFrameWorkingSet + 4, Math.floor(full.workingSetUnion / 2));
    const run = async (replacementPolicy: 'adaptive' | 'lru') => {
      const sim = simulate(path, {
        feedbackLatencyFrames: 1,
        uploadsPerFrame: 32,
        poolSlots,
        replacementPolicy: replacementPolicy === 'adaptive' ? adaptivePolicy({ partner: 'lru' }) : 'lru',
      });
      const report = await sim.run();
      sim.dispose();
      return { report, policy: sim.streamer.pool.policy };
    };
    const adaptive = await run('adaptive');
    const lru = await run('lru');
    const policy = adaptive.policy as AdaptivePolicy;
    expect(policy.name).toBe('adaptive');
    expect(adaptive.report.evictions).toBeGreaterThan(0);
    // The shadows saw the same stream: each needed at least the pages ever requested.
    expect(policy.partnerShadow.loads).toBeGreaterThanOrEqual(full.workingSetUnion);
    expect(policy.lhdShadow.loads).toBeLessThan(policy.partnerShadow.loads);
    expect(policy.following).toBe('lhd');
    expect(adaptive.report.loads).toBeLessThan(lru.report.loads);
  });

  it("records each request's coverage beside the simulator's trace", async () => {
    const path = orbitPath({ ...world, seed: 3, frames: 60, periodFrames: 60, radius: 2000 });
    const { trace, coverage } = await recordCoverageTrace({
      terrain,
      path,
      ...screen,
      sourceLatencyFrames: 0,
    });
    const plain = simulate(path, { sourceLatencyFrames: 0 });
    const report = await plain.run();
    plain.dispose();
    expect(trace.length).toBe(report.trace?.length);
    expect(coverage.length).toBe(trace.length);
    let pixels = 0;
    for (let i = 0; i < coverage.length; i++) pixels += coverage[i];
    expect(pixels).toBeGreaterThan(0);
  });
});
