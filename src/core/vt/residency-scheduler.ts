import { isAbortError, TesseraConfigError, TesseraError, TileSourceError } from '../errors';
import { IndexedMaxHeap } from '../structures/indexed-heap';
import { IntrusiveList } from '../structures/intrusive-list';
import { PageIndexMap } from '../structures/page-index-map';
import { MAX_VIRTUAL_TEXTURES, pageMip, pageVt, pageX, pageY } from './page-id';
import type { TileData, TileSource } from './tile-source';

/** Options of a {@link ResidencyScheduler}; durations in frames. */
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
}

/** Lifecycle of a tracked page. */
export const PageLoadState = {
  /** Not tracked: resident, never requested, or forgotten. */
  Untracked: 0,
  /** Waiting in the priority queue. */
  Queued: 1,
  /** A {@link TileSource.load} is running. */
  Loading: 2,
  /** Loaded, waiting for upload. */
  Ready: 3,
  /** Failed, waiting before the next attempt. */
  Backoff: 4,
  /** Failed for good until the cool-down passes and it is requested again. */
  Failed: 5,
} as const;
/** One of the {@link PageLoadState} values. */
export type PageLoadState = (typeof PageLoadState)[keyof typeof PageLoadState];

/** Counters of a {@link ResidencyScheduler}. */
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
}

/** Called when a page is marked failed (its fallback stays). */
export type PageFailureHandler = (pageId: number, error: TesseraError) => void;

// Priority key: fallback distance (mips) >> coverage (pixels) >> age (frames), packed in a double.
const FALLBACK_WEIGHT = 2 ** 44;
const COVERAGE_WEIGHT = 2 ** 20;
const MAX_COVERAGE = 2 ** 24 - 1;
const MAX_AGE = 2 ** 20 - 1;

/** Feedback buffers that must arrive without a page's request before its load is dropped. */
const FEEDBACKS_BEFORE_ABORT = 2;

/**
 * Decides what to load: missing pages are queued by priority (a max-heap, never a sort): pages whose
 * fallback is far coarser first, then pixel coverage, then how long they have waited. Runs at most
 * `maxConcurrentLoads` {@link TileSource.load} calls, each with its own `AbortController`, aborted
 * when the page goes unrequested for `abortAfterFrames`; a page is never loading twice. Failed
 * loads retry with exponential backoff; after `maxAttempts` (or a non-retryable error) the page is
 * marked failed, reported once, and retried only when requested again after the cool-down.
 * Completed tiles wait in a FIFO the streamer drains under its upload budget.
 */
export class ResidencyScheduler {
  /** Called when a page is marked failed. */
  onFailure: PageFailureHandler | null = null;
  /** Current frame (set by {@link beginFrame}). */
  frame = 0;

  private readonly maxConcurrent: number;
  private readonly abortAfter: number;
  private readonly maxAttempts: number;
  private readonly retryBase: number;
  private readonly cooldown: number;
  private readonly capacity: number;
  private readonly sources: (TileSource | null)[] = new Array(MAX_VIRTUAL_TEXTURES).fill(null);
  private readonly index: PageIndexMap;
  private readonly pageOf: Uint32Array;
  private readonly state: Uint8Array;
  private readonly lastRequested: Int32Array;
  /** {@link feedbacks} when each record was last requested. */
  private readonly requestedAtFeedback: Int32Array;
  /** Feedback buffers analysed so far (see {@link noteFeedback}). */
  private feedbacks = 0;
  private readonly firstRequested: Int32Array;
  private readonly attempts: Uint8Array;
  private readonly waitUntil: Int32Array;
  private readonly tokens: Uint32Array;
  private readonly controllers: (AbortController | null)[];
  private readonly data: (TileData | null)[];
  private readonly free: IntrusiveList;
  private readonly byRequest: IntrusiveList;
  private readonly failedOrder: IntrusiveList;
  private readonly readyQueue: IntrusiveList;
  private readonly queue: IndexedMaxHeap;
  private readonly counters: SchedulerStats = {
    queued: 0,
    inFlight: 0,
    ready: 0,
    failed: 0,
    loadsStarted: 0,
    loadsCompleted: 0,
    loadErrors: 0,
    loadsAborted: 0,
    requestsDropped: 0,
  };
  private inFlight = 0;

  constructor(options: ResidencySchedulerOptions = {}) {
    this.maxConcurrent = options.maxConcurrentLoads ?? 16;
    this.abortAfter = options.abortAfterFrames ?? 8;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.retryBase = options.retryBaseFrames ?? 2;
    this.cooldown = options.failedCooldownFrames ?? 300;
    this.capacity = options.maxTrackedPages ?? 8192;
    for (const [name, v, min] of [
      ['maxConcurrentLoads', this.maxConcurrent, 1],
      ['abortAfterFrames', this.abortAfter, 0],
      ['maxAttempts', this.maxAttempts, 1],
      ['retryBaseFrames', this.retryBase, 0],
      ['failedCooldownFrames', this.cooldown, 0],
      ['maxTrackedPages', this.capacity, 1],
    ] as const) {
      if (!Number.isInteger(v) || v < min) {
        throw new TesseraConfigError('invalid-option', `${name} must be an integer >= ${min}, got ${v}`);
      }
    }
    if (this.maxAttempts > 255) throw new TesseraConfigError('invalid-option', 'maxAttempts must be <= 255');
    const n = this.capacity;
    this.index = new PageIndexMap(n);
    this.pageOf = new Uint32Array(n);
    this.state = new Uint8Array(n);
    this.lastRequested = new Int32Array(n);
    this.requestedAtFeedback = new Int32Array(n);
    this.firstRequested = new Int32Array(n);
    this.attempts = new Uint8Array(n);
    this.waitUntil = new Int32Array(n);
    this.tokens = new Uint32Array(n);
    this.controllers = new Array(n).fill(null);
    this.data = new Array(n).fill(null);
    this.free = new IntrusiveList(n);
    this.byRequest = new IntrusiveList(n);
    this.failedOrder = new IntrusiveList(n);
    this.readyQueue = new IntrusiveList(n);
    this.queue = new IndexedMaxHeap(n);
    for (let r = 0; r < n; r++) this.free.pushBack(r);
  }

  /** Sets (or with `null` removes, aborting its loads) the tile source of texture `vt`. */
  setSource(vt: number, source: TileSource | null): void {
    if (source === null) {
      let r = this.byRequest.head;
      while (r >= 0) {
        const next = this.byRequest.next(r);
        if (pageVt(this.pageOf[r]) === vt) this.drop(r);
        r = next;
      }
      r = this.failedOrder.head;
      while (r >= 0) {
        const next = this.failedOrder.next(r);
        if (pageVt(this.pageOf[r]) === vt) this.drop(r);
        r = next;
      }
    }
    this.sources[vt] = source;
  }

  /** Starts frame `frame` (monotonic). */
  beginFrame(frame: number): void {
    this.frame = frame;
  }

  /** State of `pageId` ({@link PageLoadState.Untracked} when unknown). */
  stateOf(pageId: number): PageLoadState {
    const r = this.index.get(pageId);
    return r < 0 ? PageLoadState.Untracked : (this.state[r] as PageLoadState);
  }

  /** A feedback buffer is being analysed: its requests follow (see the expiry in {@link update}). */
  noteFeedback(): void {
    this.feedbacks++;
  }

  /**
   * Asks for non-resident `pageId` this frame. `fallbackMips`: how many mips coarser the page
   * currently shown instead is (16 when nothing is); `coverage`: pixels requesting it.
   */
  request(pageId: number, fallbackMips: number, coverage: number): void {
    const frame = this.frame;
    let r = this.index.get(pageId);
    if (r < 0) {
      r = this.free.popFront();
      if (r < 0) {
        this.counters.requestsDropped++;
        return;
      }
      this.index.set(pageId, r);
      this.pageOf[r] = pageId;
      this.state[r] = PageLoadState.Queued;
      this.firstRequested[r] = frame;
      this.attempts[r] = 0;
    }
    this.lastRequested[r] = frame;
    this.requestedAtFeedback[r] = this.feedbacks;
    const st = this.state[r];
    if (st === PageLoadState.Failed) {
      if (frame - this.waitUntil[r] < this.cooldown) return;
      this.failedOrder.remove(r);
      this.attempts[r] = 0;
      this.state[r] = PageLoadState.Queued;
    } else if (st === PageLoadState.Backoff) {
      this.byRequest.pushBack(r);
      if (frame < this.waitUntil[r]) return;
      this.state[r] = PageLoadState.Queued;
    }
    this.byRequest.pushBack(r);
    if (this.state[r] === PageLoadState.Queued) {
      const age = frame - this.firstRequested[r];
      const cov = Math.min(coverage, MAX_COVERAGE);
      this.queue.set(r, fallbackMips * FALLBACK_WEIGHT + cov * COVERAGE_WEIGHT + Math.min(age, MAX_AGE));
    }
  }

  /**
   * Per-frame work: forgets cooled-down failures, drops pages unrequested for `abortAfterFrames`
   * (aborting their loads), then starts the highest-priority loads up to the concurrency bound.
   */
  update(): void {
    const frame = this.frame;
    while (this.failedOrder.head >= 0 && frame - this.waitUntil[this.failedOrder.head] >= this.cooldown) {
      this.drop(this.failedOrder.head);
    }
    // Unrequested means unrequested by feedback: a page is only dropped once at least two feedback
    // buffers arrived without it, so slow readbacks (or frames rendered without a feedback) never
    // abort loads the view still wants. Both orders agree, so the oldest request is the head.
    while (
      this.byRequest.head >= 0 &&
      frame - this.lastRequested[this.byRequest.head] > this.abortAfter &&
      this.feedbacks - this.requestedAtFeedback[this.byRequest.head] >= FEEDBACKS_BEFORE_ABORT
    ) {
      this.drop(this.byRequest.head);
    }
    while (this.inFlight < this.maxConcurrent && this.queue.size > 0) this.start(this.queue.pop());
  }

  /** Oldest loaded tile waiting for upload (a record id for the `ready*` accessors), or -1. */
  peekReady(): number {
    return this.readyQueue.head;
  }

  /** Page id of ready record `r`. */
  readyPage(r: number): number {
    return this.pageOf[r];
  }

  /** Tile data of ready record `r`. */
  readyData(r: number): TileData {
    return this.data[r]!;
  }

  /** Forgets ready record `r` once its tile was uploaded (or is no longer wanted). */
  finishReady(r: number): void {
    if (this.state[r] === PageLoadState.Ready) this.drop(r);
  }

  /** Current counters (one reused object). */
  stats(): SchedulerStats {
    const c = this.counters;
    c.queued = this.queue.size;
    c.inFlight = this.inFlight;
    c.ready = this.readyQueue.size;
    c.failed = this.failedOrder.size;
    return c;
  }

  /** Aborts every load and forgets every page. */
  dispose(): void {
    while (this.byRequest.head >= 0) this.drop(this.byRequest.head);
    while (this.failedOrder.head >= 0) this.drop(this.failedOrder.head);
    this.onFailure = null;
  }

  private start(r: number): void {
    const pageId = this.pageOf[r];
    const source = this.sources[pageVt(pageId)];
    if (!source) {
      this.drop(r);
      return;
    }
    const controller = new AbortController();
    const token = ++this.tokens[r];
    this.controllers[r] = controller;
    this.state[r] = PageLoadState.Loading;
    this.attempts[r]++;
    this.inFlight++;
    this.counters.loadsStarted++;
    let promise: Promise<TileData>;
    try {
      promise = source.load(pageMip(pageId), pageX(pageId), pageY(pageId), controller.signal);
    } catch (error) {
      promise = Promise.reject(error);
    }
    promise.then(
      (tile) => this.loaded(r, token, tile),
      (error: unknown) => this.failed(r, token, error),
    );
  }

  private loaded(r: number, token: number, tile: TileData): void {
    if (this.tokens[r] !== token || this.state[r] !== PageLoadState.Loading) return;
    this.inFlight--;
    this.controllers[r] = null;
    this.counters.loadsCompleted++;
    this.state[r] = PageLoadState.Ready;
    this.data[r] = tile;
    this.readyQueue.pushBack(r);
  }

  private failed(r: number, token: number, error: unknown): void {
    if (this.tokens[r] !== token || this.state[r] !== PageLoadState.Loading) return;
    this.inFlight--;
    this.controllers[r] = null;
    this.counters.loadErrors++;
    const retryable = error instanceof TileSourceError ? error.retryable : !isAbortError(error);
    const n = this.attempts[r];
    if (!retryable || n >= this.maxAttempts) {
      this.state[r] = PageLoadState.Failed;
      this.waitUntil[r] = this.frame;
      this.byRequest.remove(r);
      this.failedOrder.pushBack(r);
      const pageId = this.pageOf[r];
      this.onFailure?.(
        pageId,
        new TesseraError(
          'tile-failed-permanently',
          `page vt=${pageVt(pageId)} mip=${pageMip(pageId)} x=${pageX(pageId)} y=${pageY(pageId)} failed after ${n} attempt(s)`,
          { cause: error },
        ),
      );
      return;
    }
    this.state[r] = PageLoadState.Backoff;
    this.waitUntil[r] = this.frame + this.retryBase * 2 ** (n - 1);
  }

  private drop(r: number): void {
    const st = this.state[r];
    if (st === PageLoadState.Untracked) return;
    if (st === PageLoadState.Loading) {
      this.inFlight--;
      this.counters.loadsAborted++;
      const c = this.controllers[r];
      this.controllers[r] = null;
      this.tokens[r]++;
      c?.abort();
    }
    this.queue.delete(r);
    this.byRequest.remove(r);
    this.failedOrder.remove(r);
    this.readyQueue.remove(r);
    this.data[r] = null;
    this.index.delete(this.pageOf[r]);
    this.state[r] = PageLoadState.Untracked;
    this.free.pushBack(r);
  }
}
