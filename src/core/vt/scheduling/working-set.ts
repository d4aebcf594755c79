import type { PhysicalPool } from '../residency/physical-pool';
import type { SchedulerStats } from './residency-scheduler';

/**
 * Pages the view needs, in pages: the larger of the latest feedback's distinct pages
 * (`requestedPages`) and the working set over the window starting at frame `windowStart`
 * (unpinned pages used in the window plus the missing ones queued, loading or waiting for
 * upload). The windowed count sees what successive jittered feedback frames need together;
 * without it a pool that holds every single frame's pages but not the cycle's union thrashes
 * with the mip bias at 0. O(slots), allocates nothing.
 */
export function workingSetPages(
  pool: PhysicalPool,
  scheduler: SchedulerStats,
  windowStart: number,
  requestedPages: number,
): number {
  const windowed = pool.usedSinceCount(windowStart) + scheduler.queued + scheduler.inFlight + scheduler.ready;
  return Math.max(requestedPages, windowed);
}
