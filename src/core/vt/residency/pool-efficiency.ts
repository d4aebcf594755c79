import { FEEDBACK_JITTER_PERIOD } from '../feedback/feedback-jitter';
import type { PhysicalPool } from './physical-pool';

/**
 * Pool efficiency at `frame`: resident pages the feedback touched during the last jitter cycle
 * (requested, or listed by the analyser as an ancestor of a request, the fallback chain; pinned
 * pages count like any other), over resident pages, 0..1. Low values mean the pool holds pages
 * the view has not asked for: requests from earlier views, or pinned pages far from the view.
 * Ancestors above the parent a trilinear sampler blends count although no sampler reads them in a
 * settled view. 1 when nothing is resident.
 */
export function poolEfficiency(pool: PhysicalPool, frame: number): number {
  const resident = pool.residentCount;
  if (resident === 0) return 1;
  const since = frame - FEEDBACK_JITTER_PERIOD + 1;
  return Math.min(1, (pool.usedSinceCount(since) + pool.pinnedUsedSinceCount(since)) / resident);
}
