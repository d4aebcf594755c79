/**
 * The full budget suite on the demo (both backends), opt-in: `TESSERA_FULL_BUDGET=1 playwright test
 * test/browser/demo` (`npm run test:budget`). For budgets of 32, 64 and 128 MiB: a fly-over, five
 * teleports (each settled, time-to-sharp recorded), three region transitions (peak within
 * max(A, B) + 10% of the budget) and a budget cut, with the independent tracker read after EVERY
 * frame. Writes test-results/demo-full/<backend>-<budget>MiB.json (per checkpoint: frame, tracker
 * bytes, stats, time-to-sharp) and a PNG per checkpoint; fails on a blank or uniform screenshot.
 */

import type { CameraPose, TeleportLimit, TransitionResult } from '../../../demo/automation';
import { poseNear } from '../../../demo/regions';
import { expect, test } from '../fixtures';
import {
  type CheckpointRecord,
  checkpointRecorder,
  DEMO_PAGE,
  demoReady,
  demoStats,
  installBaselineProbe,
  isolateFromDevServerReloads,
  settle,
  type TrackedFrameRun,
  teleport,
  trackedFrames,
  transition,
  writeJson,
} from './demo-page';

const MIB = 1024 * 1024;
const BUDGETS_MIB = [32, 64, 128];
/** TextureBudget's default: a lowered budget is reached within 8 update frames. */
const MAX_SHED_FRAMES = 8;
const SETTLE_FRAMES = 300;
/** Mip bias (mips) that counts as the oversubscription control having acted. */
const MIN_EXPLAINING_BIAS = 0.25;

const TELEPORTS: { name: string; pose: CameraPose }[] = [
  { name: 'valley-village', pose: poseNear('valley', 0, 0, 25, 0.5, -0.15) },
  { name: 'valley-high', pose: poseNear('valley', -300, 400, 300, -0.6, -0.5) },
  { name: 'desert-dunes', pose: poseNear('desert', 0, 0, 30, -0.4, -0.2) },
  { name: 'snow-ridge', pose: poseNear('snowfield', 0, 0, 60, 0.3, -0.25) },
  { name: 'river-low', pose: { x: 200, z: 200, height: 8, yaw: 2.2, pitch: -0.05 } },
];

interface Checkpoint extends CheckpointRecord {
  /** Frames from the teleport until nothing visible was pending (the settle). */
  timeToSharpFrames?: number;
  /** The simulator's limit measured on the teleport (latencies + pages needed / uploads per frame). */
  teleportLimit?: TeleportLimit | null;
  settled?: boolean;
  sharpRatio?: number;
  transition?: TransitionResult;
  frames?: TrackedFrameRun;
}

test.describe('demo: full budget suite', () => {
  test.skip(!process.env.TESSERA_FULL_BUDGET, 'set TESSERA_FULL_BUDGET=1 (npm run test:budget) to run it');

  for (const budgetMiB of BUDGETS_MIB) {
    test(`budget ${budgetMiB} MiB: fly-over, five teleports, three transitions, a budget cut`, async ({
      page,
      backend,
      openPage,
    }) => {
      test.setTimeout(20 * 60_000);
      const budgetBytes = budgetMiB * MIB;
      await isolateFromDevServerReloads(page);
      await installBaselineProbe(page);
      await openPage(DEMO_PAGE, { auto: 0, size: '480x270', hud: 0, budget: budgetMiB, seed: 7 });
      await demoReady(page);
      const tag = `${backend}-${budgetMiB}MiB`;
      let budgetNow = budgetBytes;

      const { checkpoints, checkpoint } = checkpointRecorder<Checkpoint>(
        page,
        backend,
        () => budgetNow,
        (name, index) => `test-results/demo-full/${tag}-${String(index).padStart(2, '0')}-${name}.png`,
      );
      const expectFramesInBudget = (name: string, run: TrackedFrameRun) => {
        expect(run.overBudgetFrames, `frames over budget during ${name}`).toEqual([]);
      };

      let fly: TrackedFrameRun | undefined;
      let shed: TrackedFrameRun | undefined;
      // The summary is written even when a check fails, so a failing run still leaves its figures.
      try {
        await checkpoint('start');

        // Fly-over: high over the valley down towards the village, 90 frames, every frame tracked.
        fly = await trackedFrames(page, backend, 90, {
          from: poseNear('valley', -600, 900, 400, -0.8, -0.45),
          to: poseNear('valley', 200, -100, 120, -0.3, -0.3),
        });
        expectFramesInBudget('fly-over', fly);
        await checkpoint('fly-over', { frames: fly });

        // Five teleports, each settled; time-to-sharp is the settle's frame count.
        for (const { name, pose } of TELEPORTS) {
          await teleport(page, pose);
          const settled = await settle(page, SETTLE_FRAMES);
          const stats = await demoStats(page);
          const { visibleRequested: requested, visibleSharp: sharp, mipBias } = stats.vt;
          const sharpRatio = requested > 0 ? sharp / requested : 1;
          // Settled means every visible page was sharp and nothing pending at that frame (the
          // ratio read just after may already count a newer feedback's requests). Otherwise the
          // pool must be oversubscribed (full) with the mip bias explaining what is missing: the
          // controller has lowered resolution by a quarter mip at least.
          if (!settled.settled && sharpRatio < 0.99) {
            const why = `${name}: ${sharp}/${requested} sharp, bias ${mipBias}, ${stats.vt.resident}/${stats.vt.poolSlots} slots`;
            expect.soft(stats.vt.resident, why).toBe(stats.vt.poolSlots);
            expect.soft(mipBias, why).toBeGreaterThanOrEqual(MIN_EXPLAINING_BIAS);
          }
          await checkpoint(`teleport-${name}`, {
            timeToSharpFrames: settled.frames,
            teleportLimit: stats.vt.teleportLimit,
            settled: settled.settled,
            sharpRatio,
          });
        }

        // Three transitions, each within max(A, B) + 10% of the budget; every frame tracked after.
        for (const region of ['desert', 'snowfield', 'valley']) {
          const result = await transition(page, region);
          const rule = Math.max(result.residentAtStartBytes, result.residentAtDoneBytes) + 0.1 * budgetNow;
          expect.soft(result.peakBytes, `transition to ${region}: peak vs rule`).toBeLessThanOrEqual(rule);
          expect(result.peakBytes, `transition to ${region}: peak vs budget`).toBeLessThanOrEqual(budgetNow);
          // Issue 16's figure is set at 64 MiB, where the naive order would not fit.
          if (budgetMiB === 64)
            expect
              .soft(result.peakBytes, `transition to ${region}: peak vs 0.8 x naive order`)
              .toBeLessThanOrEqual(0.8 * result.naivePeakBytes);
          const after = await trackedFrames(page, backend, 20);
          expectFramesInBudget(`after transition to ${region}`, after);
          await checkpoint(`transition-${region}`, { transition: result, frames: after });
        }

        // Budget cut: a quarter less (never under 24 MiB: the virtual texture's page tables alone
        // take 5.3 MiB). The shared budget sheds within MAX_SHED_FRAMES frames.
        const cutMiB = Math.max(24, Math.floor(budgetMiB * 0.75));
        await page.evaluate((mib) => window.demo.setBudget(mib), cutMiB);
        budgetNow = cutMiB * MIB;
        shed = await trackedFrames(page, backend, MAX_SHED_FRAMES);
        const afterCut = await trackedFrames(page, backend, 40);
        expect(afterCut.maxTrackedBytes, 'tracked bytes after the cut').toBeLessThanOrEqual(budgetNow);
        expectFramesInBudget('after the cut', afterCut);
        const cutStats = await checkpoint('budget-cut', { frames: afterCut });
        expect(cutStats.budgetBytes).toBe(budgetNow);
      } finally {
        writeJson(`test-results/demo-full/${tag}.json`, {
          backend,
          budgetBytes: budgetBytes,
          cutBytes: budgetNow,
          shedFrames: shed,
          peakTrackedBytes: Math.max(fly?.maxTrackedBytes ?? 0, ...checkpoints.map((c) => c.tracked.bytes)),
          timeToSharpFrames: Object.fromEntries(
            checkpoints
              .filter((c) => c.timeToSharpFrames !== undefined)
              .map((c) => [c.name, c.timeToSharpFrames]),
          ),
          // Time-to-sharp against the simulator's limit measured on each teleport (recorded, not
          // asserted: the procedural source's latency in frames depends on the machine).
          timeToSharpVsLimit: Object.fromEntries(
            checkpoints
              .filter((c) => c.timeToSharpFrames !== undefined)
              .map((c) => [
                c.name,
                {
                  timeToSharpFrames: c.timeToSharpFrames,
                  limitFrames: c.teleportLimit?.limitFrames ?? null,
                  ratio: c.teleportLimit ? (c.timeToSharpFrames ?? 0) / c.teleportLimit.limitFrames : null,
                },
              ]),
          ),
          transitionPeaks: checkpoints
            .filter((c) => c.transition)
            .map((c) => ({ name: c.name, ...c.transition })),
          checkpoints,
        });
      }
    });
  }
});
