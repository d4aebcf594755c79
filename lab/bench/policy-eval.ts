import { LhdPolicy } from '../../src/core/vt/residency/lhd-policy';
import type { ReplacementPolicy, SlotTableView } from '../../src/core/vt/residency/replacement-policy';
import type { CameraPath } from '../../src/sim/camera-paths';
import type { FrameSimulatorOptions } from '../../src/sim/frame-simulator';
import { countOptimalLoads } from '../../src/sim/optimal-loads';
import { LAB_POLICIES, type LabPolicyName } from '../policies/lab-policies';
import { type CoverageTrace, recordCoverageTrace } from '../sim/coverage-trace';
import { replayLoads, replayLoadsResizing } from '../sim/policy-replay';

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
  byPolicy: Record<LabPolicyName, PolicyFigures>;
}

/**
 * Records the request trace of `path`, with each request's coverage, with a pool that holds
 * everything (no eviction).
 */
export function recordTrace(
  path: CameraPath,
  run: Omit<FrameSimulatorOptions, 'path' | 'poolSlots'>,
): Promise<CoverageTrace> {
  return recordCoverageTrace({ ...run, path });
}

/** Replays `traced` at `fraction` of its union (at least its largest frame) with every policy. */
export function evaluatePolicies(traced: CoverageTrace, fraction: number): TraceFigures {
  const trace = traced.trace;
  const union = trace.unionSize();
  const capacity = Math.max(trace.maxFrameSize(), Math.floor(union * fraction));
  const optLoads = countOptimalLoads(trace, capacity);
  const lruLoads = replayLoads(traced, capacity, 'lru');
  const byPolicy = {} as Record<LabPolicyName, PolicyFigures>;
  for (const policy of LAB_POLICIES) {
    const loads = policy === 'lru' ? lruLoads : replayLoads(traced, capacity, policy);
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
 * Replays `traced` with the pool rebuilt every `periodFrames` frames, alternating between
 * `capacity` and 3/4 of it (at least the largest frame), as budget changes do.
 */
export function evaluateResizes(
  traced: CoverageTrace,
  capacity: number,
  periodFrames: number,
): ResizeFigures {
  const caps = [capacity, Math.max(traced.trace.maxFrameSize(), Math.floor(capacity * 0.75))];
  return {
    adopting: replayLoadsResizing(traced, caps, periodFrames, 'lhd'),
    afresh: replayLoadsResizing(traced, caps, periodFrames, lhdStartingAfresh),
    lru: replayLoadsResizing(traced, caps, periodFrames, 'lru'),
  };
}
