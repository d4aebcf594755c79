/** The virtual-texture pipeline: addressing, page table, pool, feedback, scheduling, streamer. */

export * from './arc-policy';
export * from './create-replacement-policy';
export * from './debug/feedback-image';
export * from './debug/mip-palette';
export * from './debug/residency-image';
export * from './dirty-regions';
export * from './eviction-tuning';
export * from './feedback-analyzer';
export * from './feedback-jitter';
export * from './lru-policy';
export * from './mip-bias-controller';
export * from './page-id';
export * from './page-table';
export * from './page-table-entry';
export * from './physical-pool';
export * from './pool-shape';
export * from './predictive-policy';
export * from './replacement-policy';
export * from './residency-scheduler';
export * from './settle-tracker';
export * from './streamer-events';
export * from './streamer-options';
export type { StreamerStats } from './streamer-stats';
export * from './tile-source';
export * from './virtual-texture-streamer';
export * from './vt-budget-plan';
export * from './vt-layout';
