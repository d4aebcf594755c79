import { TesseraConfigError } from '../core/errors';
import { PhysicalPool } from '../core/vt/physical-pool';
import { compactPool } from '../core/vt/pool-compaction';
import type { ReplacementPolicyFactory, ReplacementPolicyName } from '../core/vt/replacement-policy';
import type { RequestTrace } from './request-trace';

/**
 * Loads a {@link PhysicalPool} of `capacity` slots with replacement policy `policy` needs to serve
 * `trace`, cold start included, in the model of {@link countOptimalLoads}: every page requested in
 * a frame is resident in that frame (resident ones are touched first, then the misses loaded),
 * each with the feedback coverage the trace recorded.
 * The same as the frame simulator with unlimited uploads and no latency, without rendering
 * feedback again, so many policies and pool sizes can be compared on one recorded trace.
 *
 * @throws TesseraConfigError `pool-too-small` when one frame requests more than `capacity` pages.
 */
export function replayLoads(
  trace: RequestTrace,
  capacity: number,
  policy: ReplacementPolicyName | ReplacementPolicyFactory,
): number {
  return replayLoadsResizing(trace, [capacity], trace.frameCount, policy);
}

/**
 * As {@link replayLoads}, with the pool rebuilt every `periodFrames` frames at the next of
 * `capacities` (cyclically; the first from frame 0), as a budget change does in the streamer
 * (`compactPool`: the most recently used pages survive, the rest are dropped and count as loads
 * when requested again).
 * @throws TesseraConfigError `pool-too-small` when one frame requests more pages than the pool has.
 */
export function replayLoadsResizing(
  trace: RequestTrace,
  capacities: readonly number[],
  periodFrames: number,
  policy: ReplacementPolicyName | ReplacementPolicyFactory,
): number {
  let pool = new PhysicalPool({ slotCount: capacities[0], replacementPolicy: policy });
  let loads = 0;
  let next = 1;
  for (let f = 0; f < trace.frameCount; f++) {
    if (f > 0 && f % periodFrames === 0 && capacities.length > 1) {
      const capacity = capacities[next++ % capacities.length];
      pool = compactPool(pool, [], capacity, capacity, f, policy).pool;
    }
    const start = trace.frameStart(f);
    const end = trace.frameEnd(f);
    for (let i = start; i < end; i++) {
      const s = pool.slotOf(trace.id(i));
      if (s >= 0) pool.touch(s, f, trace.coverage(i));
    }
    for (let i = start; i < end; i++) {
      const id = trace.id(i);
      if (pool.slotOf(id) >= 0) continue;
      if (pool.allocate(id, f, false, trace.coverage(i)) < 0) {
        throw new TesseraConfigError('pool-too-small', `frame ${f} needs more than ${pool.slotCount} pages`);
      }
      loads++;
    }
  }
  return loads;
}
