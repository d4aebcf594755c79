import { TesseraConfigError } from '../../src/core/errors';
import { PhysicalPool } from '../../src/core/vt/residency/physical-pool';
import { compactPool } from '../../src/core/vt/residency/pool-compaction';
import type { RequestTrace } from '../../src/sim/request-trace';
import type { CoverageFeed } from '../policies/coverage-feed';
import { type LabPolicyFactory, type LabPolicyName, labPolicy } from '../policies/lab-policies';
import type { CoverageTrace } from './coverage-trace';

function split(trace: RequestTrace | CoverageTrace): [RequestTrace, Uint32Array | null] {
  return 'coverage' in trace && 'trace' in trace
    ? [trace.trace, trace.coverage]
    : [trace as RequestTrace, null];
}

/**
 * Loads a {@link PhysicalPool} of `capacity` slots with replacement policy `policy` needs to serve
 * `trace`, cold start included, in the model of `countOptimalLoads`: every page requested in a
 * frame is resident in that frame (resident ones are touched first, then the misses loaded). With
 * a {@link CoverageTrace}, each pool call is preceded by its request's coverage in the policy's
 * {@link CoverageFeed}. The same as the frame simulator with unlimited uploads and no latency,
 * without rendering feedback again, so many policies and pool sizes can be compared on one trace.
 *
 * @throws TesseraConfigError `pool-too-small` when one frame requests more than `capacity` pages.
 */
export function replayLoads(
  trace: RequestTrace | CoverageTrace,
  capacity: number,
  policy: LabPolicyName | LabPolicyFactory,
): number {
  return replayLoadsResizing(trace, [capacity], split(trace)[0].frameCount, policy);
}

/**
 * As {@link replayLoads}, with the pool rebuilt every `periodFrames` frames at the next of
 * `capacities` (cyclically; the first from frame 0), as a budget change does in the streamer
 * (`compactPool`: the most recently used pages survive, the rest are dropped and count as loads
 * when requested again).
 * @throws TesseraConfigError `pool-too-small` when one frame requests more pages than the pool has.
 */
export function replayLoadsResizing(
  traced: RequestTrace | CoverageTrace,
  capacities: readonly number[],
  periodFrames: number,
  policy: LabPolicyName | LabPolicyFactory,
): number {
  const [trace, coverage] = split(traced);
  const feed: CoverageFeed = { coverage: 0 };
  const create = labPolicy(policy, feed);
  let pool = new PhysicalPool({ slotCount: capacities[0], replacementPolicy: create });
  let loads = 0;
  let next = 1;
  for (let f = 0; f < trace.frameCount; f++) {
    if (f > 0 && f % periodFrames === 0 && capacities.length > 1) {
      const capacity = capacities[next++ % capacities.length];
      feed.coverage = 0;
      pool = compactPool(pool, [], capacity, capacity, f, create).pool;
    }
    const start = trace.frameStart(f);
    const end = trace.frameEnd(f);
    for (let i = start; i < end; i++) {
      const s = pool.slotOf(trace.id(i));
      if (s < 0) continue;
      feed.coverage = coverage ? coverage[i] : 0;
      pool.touch(s, f);
    }
    for (let i = start; i < end; i++) {
      const id = trace.id(i);
      if (pool.slotOf(id) >= 0) continue;
      feed.coverage = coverage ? coverage[i] : 0;
      if (pool.allocate(id, f, false) < 0) {
        throw new TesseraConfigError('pool-too-small', `frame ${f} needs more than ${pool.slotCount} pages`);
      }
      loads++;
    }
  }
  return loads;
}
