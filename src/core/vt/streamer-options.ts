import { TesseraConfigError } from '../errors';
import type { MipBiasOptions } from './feedback/mip-bias-controller';
import type { PageTableStorage } from './page-table/page-table-blocks';
import type { PhysicalPool } from './residency/physical-pool';
import type { PhysicalPoolOptions } from './residency/physical-pool-options';
import { RING_FRAMES } from './residency/recent-use-counter';
import type { ResidencySchedulerOptions } from './scheduling/residency-scheduler';
import type { TileSource } from './tile-source';

/** Options of one texture given to {@link VirtualTextureStreamer.registerTexture}. */
export interface TextureRegistrationOptions {
  /** Coarsest mips kept resident forever. Default min(3, mipCount). */
  pinnedMipCount?: number;
  /** Dirty rectangles kept per mip before merging. Default 64. */
  maxDirtyRectsPerMip?: number;
  /**
   * Page-table storage: `'auto'` (default) is dense for tables of at most 256 KiB (up to 128 x 128
   * pages; one page-table fetch per sample instead of two), sparse beyond.
   */
  pageTableStorage?: PageTableStorage;
}

/** A texture to register at construction. */
export interface TextureRegistration extends TextureRegistrationOptions {
  /** Where the texture's tiles come from; its `info` gives the layout. */
  source: TileSource;
}

/** Options of a {@link VirtualTextureStreamer}. */
export interface VirtualTextureStreamerOptions extends ResidencySchedulerOptions {
  /** The shared pool, or options to create one. */
  pool: PhysicalPool | PhysicalPoolOptions;
  /** Tiles uploaded per {@link VirtualTextureStreamer.drainUploads} call by default. Default 32. */
  maxUploadsPerFrame?: number;
  /** Bytes uploaded per drain by default, all layers together, in bytes. Default 16 MiB. */
  maxUploadBytesPerFrame?: number;
  /**
   * Most bytes staged at once: tiles loaded but not yet uploaded plus loads in flight, counted at
   * the size each source's info gives (see `tileLayerBytes`), in bytes. When full, no new load
   * starts until uploads (or dropping tiles whose page left the view) make room; nothing queued is
   * lost. Must hold one tile of every texture registered (else `budget-too-small`). Default: room
   * for `maxConcurrentLoads` loads plus two frames of `maxUploadsPerFrame` uploads of the largest
   * tile registered (`defaultStagingBytes`).
   */
  stagingBytes?: number;
  /** Largest feedback buffer expected, in pixels. Default 240 x 135. */
  maxFeedbackPixels?: number;
  /** Oversubscription control options. */
  mipBias?: MipBiasOptions;
  /**
   * Window over which the working set is measured for the mip bias, in frames. The feedback pass
   * samples a different spot of each feedback pixel every frame, so one frame sees only part of
   * what the view needs; the default is one jitter cycle ({@link FEEDBACK_JITTER_PERIOD}). At most
   * 64: the pool counts recent uses per frame over that many frames, so measuring the window
   * never scans the slots.
   */
  workingSetFrames?: number;
  /** Textures registered at construction (a pool too small for their pinned mips throws here). */
  textures?: readonly TextureRegistration[];
}

/**
 * Checks a streamer's limits: `workingSetFrames` an integer in 1..64 (the recent-use ring),
 * `maxUploadsPerFrame` an integer >= 1, `maxUploadBytesPerFrame` > 0.
 * @throws TesseraConfigError('invalid-option')
 */
export function checkStreamerLimits(
  workingSetFrames: number,
  maxUploads: number,
  maxUploadBytes: number,
): void {
  const wsf = workingSetFrames;
  if (!(Number.isInteger(wsf) && wsf >= 1 && wsf <= RING_FRAMES)) {
    throw new TesseraConfigError(
      'invalid-option',
      `workingSetFrames must be an integer in 1..${RING_FRAMES}, got ${wsf}`,
    );
  }
  if (!Number.isInteger(maxUploads) || maxUploads < 1) {
    throw new TesseraConfigError('invalid-option', `maxUploadsPerFrame must be an integer >= 1`);
  }
  if (!(maxUploadBytes > 0))
    throw new TesseraConfigError('invalid-option', 'maxUploadBytesPerFrame must be > 0');
}
