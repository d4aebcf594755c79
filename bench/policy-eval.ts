import { REPLACEMENT_POLICIES } from '../src/core/vt/create-replacement-policy';
import { LhdPolicy } from '../src/core/vt/lhd-policy';
import type {
  ReplacementPolicy,
  ReplacementPolicyName,
  SlotTableView,
} from '../src/core/vt/replacement-policy';
import type { CameraPath } from '../src/sim/camera-paths';
import { FrameSimulator, type FrameSimulatorOptions } from '../src/sim/frame-simulator';
import { countOptimalLoads } from '../src/sim/optimal-loads';
import { replayLoads, replayLoadsResizing } from '../src/sim/policy-replay';
import type { RequestTrace } from '../src/sim/request-trace';

/** Loads of one policy on one trace, against Belady and LRU on the same trace and pool. */
export interface PolicyFigures {
  loads: number;
  optLoads: number;
  lruLoads: number;
}

/** One trace replayed at one capacity by every policy. */
export interface TraceFigures {
  union: number;
  capacity: number;
  byPolicy: Record<ReplacementPolicyName, PolicyFigures>;
}

/** Records the request trace of `path` with a pool that holds everything (no eviction). */
export async function recordTrace(
  path: CameraPath,
  run: Omit<FrameSimulatorOptions, 'path' | 'poolSlots'>,
): Promise<RequestTrace> {
  const sim = new FrameSimulator({ ...run, path, poolSlots: 65536 });
  const report = await sim.run();
  sim.dispose();
  if (!report.trace) throw new Error('trace not recorded');
  return report.trace;
}

/** Replays `trace` at `fraction` of its union (at least its largest frame) with every policy. */
export function evaluatePolicies(trace: RequestTrace, fraction: number): TraceFigures {
  const union = trace.unionSize();
  const capacity = Math.max(trace.maxFrameSize(), Math.floor(union * fraction));
  const optLoads = countOptimalLoads(trace, capacity);
  const lruLoads = replayLoads(trace, capacity, 'lru');
  const byPolicy = {} as Record<ReplacementPolicyName, PolicyFigures>;
  for (const policy of REPLACEMENT_POLICIES) {
    const loads = policy === 'lru' ? lruLoads : replayLoads(trace, capacity, policy);
    byPolicy[policy] = { loads, optLoads, lruLoads };
  }
  return { union, capacity, byPolicy };
}

/** Lhd without `adopt`: what each resize cost before the policy carried its learning over. */
function lhdStartingAfresh(table: SlotTableView): ReplacementPolicy {
  return Object.assign(new LhdPolicy(table), { adopt: undefined });
}

/** Loads of lhd across pool resizes, adopting its learning or starting afresh, and of LRU. */
export interface ResizeFigures {
  adopting: number;
  afresh: number;
  lru: number;
}

/**
 * Replays `trace` with the pool rebuilt every `periodFrames` frames, alternating between
 * `capacity` and 3/4 of it (at least the largest frame), as budget changes do.
 */
export function evaluateResizes(trace: RequestTrace, capacity: number, periodFrames: number): ResizeFigures {
  const caps = [capacity, Math.max(trace.maxFrameSize(), Math.floor(capacity * 0.75))];
  return {
    adopting: replayLoadsResizing(trace, caps, periodFrames, 'lhd'),
    afresh: replayLoadsResizing(trace, caps, periodFrames, lhdStartingAfresh),
    lru: replayLoadsResizing(trace, caps, periodFrames, 'lru'),
  };
}
