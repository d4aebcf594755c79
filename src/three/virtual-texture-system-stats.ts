import { poolEfficiency } from '../core/vt/residency/pool-efficiency';
import type { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import type { FeedbackLoop } from './feedback/feedback-loop';
import type { LivePool } from './residency/live-pool';
import type { TileUploads } from './uploads/tile-uploads';
import type { VirtualTextureSet } from './virtual-texture-set';
import type { VirtualTextureSystemStats } from './virtual-texture-system-types';

/** What {@link systemStats} reads of a live (or disposed) system. */
export interface SystemStatsInput {
  live: boolean;
  frame: number;
  pool: LivePool;
  set: VirtualTextureSet;
  feedback: FeedbackLoop;
  streamer: VirtualTextureStreamer;
  uploads: TileUploads;
  lastFeedbackFrame: number;
  settled: boolean;
}

/** The {@link VirtualTextureSystemStats} snapshot (allocates: for HUDs and tests). */
export function systemStats(i: SystemStatsInput): VirtualTextureSystemStats {
  const textures = i.pool.textures;
  const poolLayers = i.live ? textures.bytesPerLayer.slice() : [];
  const pageTables = i.set.usedBytes;
  const feedbackTargets = i.live ? i.feedback.targetBytes : 0;
  const readbackBuffers = i.live ? i.feedback.readbackBytes : 0;
  const rendering = i.uploads.rendering;
  const renderTargets = i.live ? rendering.allocatedBytes : 0;
  const total =
    poolLayers.reduce((a, b) => a + b, 0) + pageTables + feedbackTargets + readbackBuffers + renderTargets;
  const pool = i.streamer.pool;
  const s = i.streamer.stats();
  return {
    frame: i.frame,
    gpuBytes: { poolLayers, pageTables, feedbackTargets, readbackBuffers, renderTargets, total },
    byCategory: i.live
      ? {
          'vt-pool': i.pool.reservedBytes,
          'page-table': i.set.usedBytes,
          feedback: i.feedback.reservedTargetBytes,
          readback: i.feedback.reservedReadbackBytes,
          staging: s.stagingBytes + rendering.reservedBytes,
        }
      : { 'vt-pool': 0, 'page-table': 0, feedback: 0, readback: 0, staging: 0 },
    pageTableShareBytes: i.set.reserveBytes,
    poolFormats: textures.formats.slice(),
    slotCount: pool.slotCount,
    residentPages: pool.residentCount,
    uploadsLastFrame: i.uploads.lastFrame,
    uploadsTotal: i.uploads.total,
    rendering: { ...rendering.counters },
    mipBias: i.streamer.mipBias,
    poolEfficiency: poolEfficiency(pool, i.frame),
    readbacks: { ...i.feedback.counters },
    feedbackSize: { width: i.feedback.width, height: i.feedback.height },
    streaming: {
      queued: s.queued,
      loading: s.inFlight,
      awaitingUpload: s.pendingUploads,
      stagedBytes: s.stagedBytes,
      failed: s.failed,
      lastFeedbackFrame: i.lastFeedbackFrame,
      settled: i.settled,
    },
  };
}
