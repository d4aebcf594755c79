import type { TextureByteDescriptor } from '../../budget/texture-bytes';
import { TesseraConfigError, type TesseraError } from '../../errors';

/** Describes a streamed texture to {@link MipStreamingPlanner.add}. */
export interface StreamedTextureDescriptor extends TextureByteDescriptor {
  /** The full chain length of the source (levels 0 .. n-1). Default: full chain for the size. */
  mipLevelCount?: number;
  /** UV units per world unit of the geometries using it (see computeUvDensity), computed once. */
  uvDensity: number;
  /** Multiplies the priority (importance) of this texture. Default 1. */
  priorityBias?: number;
}

/** Options of a {@link MipStreamingPlanner}. */
export interface MipStreamingPlannerOptions {
  /** Most chain loads/resizes in flight at once. Default 4. */
  maxLoadsInFlight?: number;
  /** Most textures dropped (made coarser) per {@link MipStreamingPlanner.update}. Default 8. */
  maxDropsPerFrame?: number;
  /** Frames the wanted level must stay 1+ level coarser before surplus mips are dropped. Default 30. */
  dropAfterFrames?: number;
  /** Grow only when the wanted level is this many levels finer than resident. Default 0.25. */
  growMargin?: number;
  /** Levels added to every wanted level (positive = coarser). Default 0. */
  mipBias?: number;
  /** Importance weight per lifetime tag name; defaults persistent 2, scene:* 1, transient 0.5, others 1. */
  tagWeights?: Record<string, number>;
  /** Called when a chain fails to load; the texture keeps its previous chain (or its placeholder). */
  onLoadFailed?: (textureId: number, error: TesseraError) => void;
  /**
   * Frames a texture whose chain failed to load waits before it may load again (as the virtual
   * texture system's `failedCooldownFrames`), so a texture hit by a burst of network faults or a
   * server down for a while streams again once it is back. Default 300.
   */
  failedCooldownFrames?: number;
}

/** The planner's numeric options with their defaults, checked. @throws TesseraConfigError('invalid-option'). */
export function plannerSettings(options: MipStreamingPlannerOptions) {
  const dropAfterFrames = options.dropAfterFrames ?? 30;
  if (!Number.isInteger(dropAfterFrames) || dropAfterFrames < 0) {
    throw new TesseraConfigError('invalid-option', 'dropAfterFrames must be an integer >= 0.');
  }
  const failedCooldownFrames = options.failedCooldownFrames ?? 300;
  if (!Number.isInteger(failedCooldownFrames) || failedCooldownFrames < 0) {
    throw new TesseraConfigError('invalid-option', 'failedCooldownFrames must be an integer >= 0.');
  }
  return {
    failedCooldownFrames,
    maxLoadsInFlight: positiveInteger(options.maxLoadsInFlight ?? 4, 'maxLoadsInFlight'),
    maxDropsPerFrame: positiveInteger(options.maxDropsPerFrame ?? 8, 'maxDropsPerFrame'),
    dropAfterFrames,
    growMargin: options.growMargin ?? 0.25,
    mipBias: options.mipBias ?? 0,
  };
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TesseraConfigError('invalid-option', `${what} must be an integer >= 1, got ${value}.`);
  }
  return value;
}
