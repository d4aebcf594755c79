import { FEEDBACK_JITTER_PERIOD } from './feedback-jitter';
import type { PhysicalPool } from './physical-pool';

/**
 * Pool efficiency at `frame`: resident pages the view used (requested, directly or as the parent
 * the sampler blends with) during the last feedback jitter cycle, over resident pages (pinned
 * included), 0..1. Low values mean the pool holds pages nothing samples: requests finer than the
 * sampler reads, or a budget larger than the view needs. 1 when nothing is resident.
 */
export function poolEfficiency(pool: PhysicalPool, frame: number): number {
  const resident = pool.residentCount;
  if (resident === 0) return 1;
  return Math.min(1, pool.usedSinceCount(frame - FEEDBACK_JITTER_PERIOD + 1) / resident);
}
