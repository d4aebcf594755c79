import { TesseraConfigError } from '../core/errors';
import { PhysicalPool } from '../core/vt/physical-pool';
import type { ReplacementPolicyFactory, ReplacementPolicyName } from '../core/vt/replacement-policy';
import type { RequestTrace } from './request-trace';

/**
 * Loads a {@link PhysicalPool} of `capacity` slots with replacement policy `policy` needs to serve
 * `trace`, cold start included, in the model of {@link countOptimalLoads}: every page requested in
 * a frame is resident in that frame (resident ones are touched first, then the misses loaded).
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
  const pool = new PhysicalPool({ slotCount: capacity, replacementPolicy: policy });
  let loads = 0;
  for (let f = 0; f < trace.frameCount; f++) {
    const start = trace.frameStart(f);
    const end = trace.frameEnd(f);
    for (let i = start; i < end; i++) {
      const s = pool.slotOf(trace.id(i));
      if (s >= 0) pool.touch(s, f);
    }
    for (let i = start; i < end; i++) {
      const id = trace.id(i);
      if (pool.slotOf(id) >= 0) continue;
      if (pool.allocate(id, f) < 0) {
        throw new TesseraConfigError('pool-too-small', `frame ${f} needs more than ${capacity} pages`);
      }
      loads++;
    }
  }
  return loads;
}
