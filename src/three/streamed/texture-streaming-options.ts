import type { TextureBudget } from '../../core/budget/texture-budget';
import type { TextureBudgetStats } from '../../core/budget/texture-budget-options';
import type { TesseraError } from '../../core/errors';
import type { MipStreamingPlannerOptions } from '../../core/streaming/mip-streaming-options';
import type { StaleSweepOptions } from '../../core/streaming/stale-sweep';
import type { StreamedTexture } from './streamed-texture';
import type { StreamedTranscodingOptions } from './streamed-transcoding';

/** Options of a `TextureStreamingSystem` (with those of UASTC transcoding). */
export interface TextureStreamingSystemOptions extends StreamedTranscodingOptions {
  /** A budget shared with other users (virtual textures); or give {@link budgetBytes}. */
  budget?: TextureBudget;
  /** Budget to create when {@link budget} is not given, in bytes. */
  budgetBytes?: number;
  /** Bytes that must always fit (created budget only); a smaller budget fails at construction. */
  pinnedMinimumBytes?: number;
  /** Mip streaming planner options (loads in flight, hysteresis, tag weights). */
  planner?: Omit<MipStreamingPlannerOptions, 'onLoadFailed'>;
  /** Stale sweep options (cadence, transient policy). */
  sweep?: StaleSweepOptions;
  /**
   * CPU bytes kept of levels shed from the GPU (for lack of room or a coarser need), so that growing
   * back loads them from memory instead of the network; least recently shed dropped first. Not
   * counted in the GPU budget. 0 keeps none. Default 4 MiB.
   */
  shedLevelCacheBytes?: number;
  /** Refresh the screen need of every texture every this many frames. Default 4. */
  needRefreshFrames?: number;
  /** Clock for idle-ms policies, in milliseconds. Default performance.now. */
  now?: () => number;
}

/** Events of a `TextureStreamingSystem`. */
export interface TextureStreamingEvents {
  /** A chain failed to load; the texture keeps its previous chain or its placeholder. */
  error: { error: TesseraError; texture: StreamedTexture };
  /** A texture was released (sweep, transition or explicit) and its users now bind the placeholder. */
  released: { texture: StreamedTexture };
}

/** A snapshot of the system (allocates; for tools and tests). */
export interface TextureStreamingStats {
  frame: number;
  /** Live streamed textures. */
  textures: number;
  /** Chain loads in flight. */
  loadsInFlight: number;
  /** CPU bytes held by the cache of shed levels (see `shedLevelCacheBytes`; not in the budget). */
  shedLevelBytes: number;
  /** The budget by category and by tag, in bytes. */
  budget: TextureBudgetStats;
}
