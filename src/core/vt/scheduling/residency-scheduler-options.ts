import { TesseraConfigError } from '../../errors';
import type { UploadOrder } from './ready-tile-queue';

/** Options of a `ResidencyScheduler`; durations in frames. */
export interface ResidencySchedulerOptions {
  /** Loads running at once, all textures together. Default 16. */
  maxConcurrentLoads?: number;
  /**
   * Frames without a request after which a queued page is dropped and its load aborted, once at
   * least two feedback buffers arrived without it as well. Default 8.
   */
  abortAfterFrames?: number;
  /** Attempts before a page is marked failed. Default 3. */
  maxAttempts?: number;
  /** Backoff after the first failure, doubled after each further one, in frames. Default 2. */
  retryBaseFrames?: number;
  /** Frames a failed page waits before a new request may retry it. Default 300. */
  failedCooldownFrames?: number;
  /** Pages tracked at once (queued, loading, ready, failed). Default 8192. */
  maxTrackedPages?: number;
  /**
   * Most bytes of tiles loaded but not yet uploaded plus loads in flight (counted at the size
   * their source's info gives), in bytes: no load starts that would pass it. The scheduler alone
   * has no bound (Infinity); the streamer sets one (see `VirtualTextureStreamerOptions`).
   */
  stagingBytes?: number;
  /** The order loaded tiles are uploaded in. Default 'priority'. */
  uploadOrder?: UploadOrder;
}

/** Lifecycle of a tracked page. */
export const PageLoadState = {
  /** Not tracked: resident, never requested, or forgotten. */
  Untracked: 0,
  /** Waiting in the priority queue. */
  Queued: 1,
  /** A `TileSource.load` is running. */
  Loading: 2,
  /** Loaded, waiting for upload. */
  Ready: 3,
  /** Failed, waiting before the next attempt. */
  Backoff: 4,
  /** Failed for good until the cool-down passes and it is requested again. */
  Failed: 5,
  /** Loaded, but its page table had no block for it: tile discarded, waiting before a reload. */
  Held: 6,
} as const;
/** One of the {@link PageLoadState} values. */
export type PageLoadState = (typeof PageLoadState)[keyof typeof PageLoadState];

/** Counters of a `ResidencyScheduler`. */
export interface SchedulerStats {
  /** Pages waiting in the priority queue. */
  queued: number;
  /** Loads running. */
  inFlight: number;
  /** Loaded tiles waiting for upload. */
  ready: number;
  /** Pages marked failed (cooling down). */
  failed: number;
  /** Loads started so far. */
  loadsStarted: number;
  /** Loads completed so far. */
  loadsCompleted: number;
  /** Load attempts that failed so far. */
  loadErrors: number;
  /** Loads aborted because nobody requested the page any more. */
  loadsAborted: number;
  /** Requests ignored because {@link ResidencySchedulerOptions.maxTrackedPages} was reached. */
  requestsDropped: number;
  /** Loaded tiles dropped unuploaded, their page gone from view, to make staging room, so far. */
  readyDropped: number;
  /** Bytes staged now: tiles loaded but not uploaded, plus loads in flight, in bytes. */
  stagedBytes: number;
  /** Highest {@link stagedBytes} so far, in bytes. */
  stagedPeakBytes: number;
  /** The staging bound, in bytes (Infinity when unbounded). */
  stagingLimitBytes: number;
}

/** {@link ResidencySchedulerOptions} validated, with every default applied. */
export type ResolvedSchedulerOptions = Required<ResidencySchedulerOptions>;

/**
 * Validates `options` and applies the defaults.
 * @throws TesseraConfigError('invalid-option')
 */
export function resolveSchedulerOptions(options: ResidencySchedulerOptions): ResolvedSchedulerOptions {
  const o: ResolvedSchedulerOptions = {
    maxConcurrentLoads: options.maxConcurrentLoads ?? 16,
    abortAfterFrames: options.abortAfterFrames ?? 8,
    maxAttempts: options.maxAttempts ?? 3,
    retryBaseFrames: options.retryBaseFrames ?? 2,
    failedCooldownFrames: options.failedCooldownFrames ?? 300,
    maxTrackedPages: options.maxTrackedPages ?? 8192,
    stagingBytes: options.stagingBytes ?? Number.POSITIVE_INFINITY,
    uploadOrder: options.uploadOrder ?? 'priority',
  };
  for (const [name, v, min] of [
    ['maxConcurrentLoads', o.maxConcurrentLoads, 1],
    ['abortAfterFrames', o.abortAfterFrames, 0],
    ['maxAttempts', o.maxAttempts, 1],
    ['retryBaseFrames', o.retryBaseFrames, 0],
    ['failedCooldownFrames', o.failedCooldownFrames, 0],
    ['maxTrackedPages', o.maxTrackedPages, 1],
  ] as const) {
    if (!Number.isInteger(v) || v < min) {
      throw new TesseraConfigError('invalid-option', `${name} must be an integer >= ${min}, got ${v}`);
    }
  }
  if (o.maxAttempts > 255) throw new TesseraConfigError('invalid-option', 'maxAttempts must be <= 255');
  if (!(o.stagingBytes > 0)) {
    throw new TesseraConfigError('invalid-option', `stagingBytes must be > 0, got ${options.stagingBytes}`);
  }
  if (o.uploadOrder !== 'priority' && o.uploadOrder !== 'arrival') {
    throw new TesseraConfigError(
      'invalid-option',
      `uploadOrder must be 'priority' or 'arrival', got '${o.uploadOrder}'`,
    );
  }
  return o;
}

/** A {@link SchedulerStats} with every counter at its start value. */
export function createSchedulerStats(): SchedulerStats {
  return {
    queued: 0,
    inFlight: 0,
    ready: 0,
    failed: 0,
    loadsStarted: 0,
    loadsCompleted: 0,
    loadErrors: 0,
    loadsAborted: 0,
    requestsDropped: 0,
    readyDropped: 0,
    stagedBytes: 0,
    stagedPeakBytes: 0,
    stagingLimitBytes: Number.POSITIVE_INFINITY,
  };
}
