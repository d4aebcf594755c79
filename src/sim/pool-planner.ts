import { TesseraConfigError } from '../core/errors';
import { FrameSimulator, type FrameSimulatorOptions } from './frame-simulator';
import { countOptimalLoads } from './optimal-loads';
import type { RequestTrace } from './request-trace';

/** Answer of the pool planners. */
export interface PoolPlan {
  /** Slots for non-pinned pages, in pages (add the texture's pinned pages for the pool size). */
  capacity: number;
  /** Loads at that capacity, in tiles (Belady's for {@link planPoolFromTrace}, the core's for {@link planPoolBySimulation}). */
  loads: number;
  /** Distinct non-pinned pages the path touches (every load beyond these is a reload), in pages. */
  workingSetUnion: number;
  /** Largest per-frame set, in pages: no pool smaller than this can serve the path sharp. */
  maxFrameWorkingSet: number;
}

/**
 * "How large a pool does this path need?", answered from a recorded trace: the smallest capacity
 * at which even the optimal policy reloads at most `tolerance` x the working-set union (e.g. 0.15:
 * loads <= 1.15 x union). Optimal loads never grow with capacity (OPT is a stack algorithm), so a
 * binary search over [max frame set, union] finds it in O(log union) OPT runs. A lower bound for
 * a real policy; see {@link planPoolBySimulation} for the core's own answer.
 */
export function planPoolFromTrace(trace: RequestTrace, tolerance = 0.15): PoolPlan {
  if (!(tolerance >= 0)) {
    throw new TesseraConfigError('invalid-option', `tolerance must be >= 0, got ${tolerance}`);
  }
  const union = trace.unionSize();
  const maxFrame = trace.maxFrameSize();
  const budget = (1 + tolerance) * union;
  let lo = Math.max(1, maxFrame);
  let hi = Math.max(lo, union);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (countOptimalLoads(trace, mid) <= budget) hi = mid;
    else {
      lo = mid + 1;
    }
  }
  return {
    capacity: lo,
    loads: countOptimalLoads(trace, lo),
    workingSetUnion: union,
    maxFrameWorkingSet: maxFrame,
  };
}

/**
 * The same question answered with the real core: the smallest non-pinned capacity at which the
 * simulated core loads at most (1 + `tolerance`) x the working-set union on `options.path`
 * (`options.poolSlots` is ignored). Binary search over whole simulations: the core's loads are
 * assumed to shrink as the pool grows (true for the policies tried, not guaranteed). Slow: each
 * probe simulates the whole path.
 */
export async function planPoolBySimulation(
  options: Omit<FrameSimulatorOptions, 'poolSlots'>,
  tolerance = 0.15,
): Promise<PoolPlan> {
  if (!(tolerance >= 0)) {
    throw new TesseraConfigError('invalid-option', `tolerance must be >= 0, got ${tolerance}`);
  }
  const probe = async (capacity: number, pinned: number) => {
    const sim = new FrameSimulator({ ...options, recordTrace: true, poolSlots: capacity + pinned });
    const report = await sim.run();
    sim.dispose();
    return report;
  };
  // A pool holding every page tells the union and the pinned page count.
  const first = new FrameSimulator({ ...options, recordTrace: true, poolSlots: 65536 });
  const pinned = first.pageTable.layout.pinnedPages;
  const full = await first.run();
  first.dispose();
  const union = full.workingSetUnion;
  const budget = (1 + tolerance) * union;
  let lo = Math.max(1, full.maxFrameWorkingSet);
  let hi = Math.max(lo, union);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((await probe(mid, pinned)).loads <= budget) hi = mid;
    else {
      lo = mid + 1;
    }
  }
  const loads = (await probe(lo, pinned)).loads;
  return { capacity: lo, loads, workingSetUnion: union, maxFrameWorkingSet: full.maxFrameWorkingSet };
}
