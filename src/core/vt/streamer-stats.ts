import type { SchedulerStats } from './scheduling/residency-scheduler-options';
/** Counters of a {@link VirtualTextureStreamer} (one reused object). */
export interface StreamerStats {
  /** Latest frame given to {@link VirtualTextureStreamer.beginFrame}. */
  frame: number;
  /** Pool slots holding a page. */
  residentPages: number;
  /** Pool slots holding pinned pages. */
  pinnedPages: number;
  /** Pool capacity, in slots. */
  poolSlots: number;
  /** Pages queued for loading. */
  queued: number;
  /** Loads running. */
  inFlight: number;
  /** Loaded tiles waiting for upload. */
  pendingUploads: number;
  /** Pages marked failed. */
  failed: number;
  /** Evictions so far. */
  evictions: number;
  /** Tiles uploaded and mapped so far. */
  loads: number;
  /** Source loads started so far. */
  loadsStarted: number;
  /** Load attempts that failed so far. */
  loadErrors: number;
  /** Loads aborted (page no longer requested). */
  loadsAborted: number;
  /** Loaded tiles dropped unuploaded because their page left the view and a wanted load needed their staging bytes. */
  uploadsDropped: number;
  /** Bytes staged now: tiles loaded but not uploaded, plus loads in flight, in bytes. */
  stagedBytes: number;
  /** Highest {@link stagedBytes} so far, in bytes. */
  stagedPeakBytes: number;
  /** The staging bound {@link stagedBytes} never passes, in bytes. */
  stagingBytes: number;
  /** Distinct pages (with fallback ancestors) in the latest feedback. */
  requestedPages: number;
  /** Fraction of the latest feedback's requesting pixels whose page is resident (0..1). */
  residency: number;
  /** Malformed pixels in the latest feedback. */
  malformedPixels: number;
  /** Current global mip bias, in mips. */
  mipBias: number;
}

/** A {@link StreamerStats} with every counter at its start value, for a pool of `poolSlots` slots. */
export function createStreamerStats(poolSlots: number): StreamerStats {
  return {
    frame: 0,
    residentPages: 0,
    pinnedPages: 0,
    poolSlots,
    queued: 0,
    inFlight: 0,
    pendingUploads: 0,
    failed: 0,
    evictions: 0,
    loads: 0,
    loadsStarted: 0,
    loadErrors: 0,
    loadsAborted: 0,
    uploadsDropped: 0,
    stagedBytes: 0,
    stagedPeakBytes: 0,
    stagingBytes: 0,
    requestedPages: 0,
    residency: 1,
    malformedPixels: 0,
    mipBias: 0,
  };
}

/** Fills `c` with this frame's figures (the streamer's own and its scheduler's `s`); returns `c`. */
export function fillStreamerStats(
  c: StreamerStats,
  frame: number,
  residentPages: number,
  pinnedPages: number,
  evictions: number,
  loads: number,
  mipBias: number,
  s: SchedulerStats,
): StreamerStats {
  c.frame = frame;
  c.residentPages = residentPages;
  c.pinnedPages = pinnedPages;
  c.queued = s.queued;
  c.inFlight = s.inFlight;
  c.pendingUploads = s.ready;
  c.failed = s.failed;
  c.evictions = evictions;
  c.loads = loads;
  c.loadsStarted = s.loadsStarted;
  c.loadErrors = s.loadErrors;
  c.loadsAborted = s.loadsAborted;
  c.uploadsDropped = s.readyDropped;
  c.stagedBytes = s.stagedBytes;
  c.stagedPeakBytes = s.stagedPeakBytes;
  c.stagingBytes = s.stagingLimitBytes;
  c.mipBias = mipBias;
  return c;
}
