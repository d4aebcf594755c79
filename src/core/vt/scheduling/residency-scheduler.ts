import { isAbortError, TesseraConfigError, TesseraError, TileSourceError } from '../../errors';
import { IndexedMaxHeap } from '../../structures/indexed-heap';
import { IntrusiveList } from '../../structures/intrusive-list';
import { PageIndexMap } from '../../structures/page-index-map';
import { MAX_VIRTUAL_TEXTURES, pageMip, pageVt, pageX, pageY } from '../page-id';
import { sourceTileBytes, tileMismatchError } from '../tile-bytes';
import type { TileData, TileSource } from '../tile-source';
import { ReadyTileQueue, type UploadDemand, type UploadOrder } from './ready-tile-queue';
import { requestPriority } from './request-priority';

/** Queued pages of failing textures one {@link ResidencyScheduler.update} may pass over. */
const MAX_PASSED_OVER = 64;

/** Called when a page is marked failed (its fallback stays). */
export type PageFailureHandler = (pageId: number, error: TesseraError) => void;

/** What a page's permanent failure reports: `tile-failed-permanently`, the last load's error as `cause`. */
function permanentFailure(pageId: number, attempts: number, cause: unknown): TesseraError {
  const page = `page vt=${pageVt(pageId)} mip=${pageMip(pageId)} x=${pageX(pageId)} y=${pageY(pageId)}`;
  return new TesseraError('tile-failed-permanently', `${page} failed after ${attempts} attempt(s)`, {
    cause,
  });
}

/** Feedback buffers that must arrive without a page's request before its load is dropped. */
const FEEDBACKS_BEFORE_ABORT = 2;

/**
 * Decides what to load: missing pages are queued by priority (a max-heap, never a sort): pages whose
 * fallback is far coarser first, then pixel coverage, then how long they have waited. Runs at most
 * `maxConcurrentLoads` {@link TileSource.load} calls, each with its own `AbortController`, aborted
 * when the page goes unrequested for `abortAfterFrames`; a page is never loading twice. Failed
 * loads retry with exponential backoff; after `maxAttempts` (or a non-retryable error) the page is
 * marked failed, reported once, and retried only when requested again after the cool-down.
 * Completed tiles wait in a {@link ReadyTileQueue} (by current demand and priority) the streamer
 * drains under its upload budget. Staging is bounded: bytes of loads in flight plus tiles waiting
 * never pass `stagingBytes` (no load starts that would; when the best queued load does not fit,
 * waiting tiles whose page left the view are dropped to make room, else loading waits).
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
  private readonly readyQueue: ReadyTileQueue;
  /** Bytes of one tile of each texture's source (what its loads stage). */
  private readonly tileBytesOf = new Float64Array(MAX_VIRTUAL_TEXTURES);
  /** Latest request priority of each record. */
  private readonly priority: Float64Array;
  private stagingLimit: number;
  private staged = 0;
  private readonly queue: IndexedMaxHeap;
  private readonly counters: SchedulerStats = createSchedulerStats();
  private inFlight = 0;
  /** Loads in flight per texture. */
  private readonly inFlightOf = new Int32Array(MAX_VIRTUAL_TEXTURES);
  /** 1 while a texture's latest finished load failed (its host may be down), else 0. */
  private readonly failingOf = new Uint8Array(MAX_VIRTUAL_TEXTURES);
  /** Loads a failing texture may hold at once (see {@link update}). */
  private readonly failingShare: number;
  /** Queued records passed over by one {@link update}, and their keys, put back after it. */
  private readonly passedOver = new Int32Array(MAX_PASSED_OVER);
  private readonly passedOverKeys = new Float64Array(MAX_PASSED_OVER);

  constructor(options: ResidencySchedulerOptions = {}) {
    const o = resolveSchedulerOptions(options);
    this.maxConcurrent = o.maxConcurrentLoads;
    this.failingShare = Math.max(1, Math.floor(o.maxConcurrentLoads / 4));
    this.abortAfter = o.abortAfterFrames;
    this.maxAttempts = o.maxAttempts;
    this.retryBase = o.retryBaseFrames;
    this.cooldown = o.failedCooldownFrames;
    this.capacity = o.maxTrackedPages;
    this.stagingLimit = o.stagingBytes;
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
    this.priority = new Float64Array(n);
    this.readyQueue = new ReadyTileQueue(n, this.requestedAtFeedback, o.uploadOrder);
    this.queue = new IndexedMaxHeap(n);
    for (let r = 0; r < n; r++) this.free.pushBack(r);
  }

  /** Sets (or with `null` removes, aborting its loads) the tile source of texture `vt`. */
  setSource(vt: number, source: TileSource | null): void {
    if (source === null) for (const list of [this.byRequest, this.failedOrder]) this.dropTexture(list, vt);
    this.sources[vt] = source;
    this.tileBytesOf[vt] = source ? sourceTileBytes(source.info) : 0;
    this.failingOf[vt] = 0;
  }

  /** The staging bound, in bytes (see {@link ResidencySchedulerOptions.stagingBytes}). */
  get stagingBytes(): number {
    return this.stagingLimit;
  }

  /** Changes the staging bound (> 0 bytes); staged bytes above a lowered bound drain by uploads. */
  set stagingBytes(bytes: number) {
    if (!(bytes > 0)) {
      throw new TesseraConfigError('invalid-option', `stagingBytes must be > 0, got ${bytes}`);
    }
    this.stagingLimit = bytes;
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
   * currently shown instead is (16 when nothing is); `coverage`: pixels requesting it. True when
   * the page is held after its page table refused it (the view still wants what cannot be mapped).
   */
  request(pageId: number, fallbackMips: number, coverage: number): boolean {
    const frame = this.frame;
    let r = this.index.get(pageId);
    if (r < 0) {
      r = this.free.popFront();
      if (r < 0) {
        this.counters.requestsDropped++;
        return false;
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
      if (frame - this.waitUntil[r] < this.cooldown) return false;
      this.failedOrder.remove(r);
      this.attempts[r] = 0;
      this.state[r] = PageLoadState.Queued;
    } else if (st === PageLoadState.Backoff || st === PageLoadState.Held) {
      this.byRequest.pushBack(r);
      if (frame < this.waitUntil[r]) return st === PageLoadState.Held;
      this.state[r] = PageLoadState.Queued;
    }
    this.byRequest.pushBack(r);
    const priority = requestPriority(fallbackMips, coverage, frame - this.firstRequested[r]);
    this.priority[r] = priority;
    if (this.state[r] === PageLoadState.Queued) this.queue.set(r, priority);
    else if (this.state[r] === PageLoadState.Ready) this.readyQueue.rekey(r, priority, this.feedbacks);
    return false;
  }

  /**
   * Per-frame work: forgets cooled-down failures, drops pages unrequested for `abortAfterFrames`
   * (aborting their loads), then starts the highest-priority loads up to the concurrency bound
   * and the staging bound (strictly in priority order: a load that does not fit stops the rest),
   * except that a texture whose latest finished load failed holds at most a quarter of the loads
   * while other textures' pages wait.
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
    // A texture whose loads fail (a dead or failing host) holds at most a quarter of the loads:
    // its pages, with nothing resident, outrank every other texture's, and each failing load holds
    // its slot through the client's retries, so it would starve textures that stream fine.
    let passed = 0;
    let stagingFull = false;
    let othersStarted = false;
    while (this.inFlight < this.maxConcurrent && this.queue.size > 0) {
      const r = this.queue.peek();
      const vt = pageVt(this.pageOf[r]);
      if (this.failingOf[vt] === 1 && this.inFlightOf[vt] >= this.failingShare) {
        if (passed === MAX_PASSED_OVER) break;
        this.passedOverKeys[passed] = this.queue.key(r);
        this.passedOver[passed++] = this.queue.pop();
        continue;
      }
      const bytes = this.tileBytesOf[vt];
      if (this.staged + bytes > this.stagingLimit && !this.reclaimStaging(bytes)) {
        stagingFull = true;
        break;
      }
      if (this.failingOf[vt] === 0) othersStarted = true;
      this.start(this.queue.pop());
    }
    // No other texture's page was waiting: the failing texture may use the free loads after all.
    const alone = this.queue.size === 0 && !stagingFull && !othersStarted;
    for (let i = 0; i < passed; i++) {
      const r = this.passedOver[i];
      const bytes = this.tileBytesOf[pageVt(this.pageOf[r])];
      if (alone && this.inFlight < this.maxConcurrent && this.staged + bytes <= this.stagingLimit)
        this.start(r);
      else this.queue.set(r, this.passedOverKeys[i]);
    }
  }

  /**
   * The loaded tile to upload next (a record id for the `ready*` accessors), or -1: by demand, then
   * the request's current priority (see {@link ReadyTileQueue}), or by arrival in 'arrival' order.
   */
  peekReady(): number {
    return this.readyQueue.peek(this.feedbacks);
  }

  /** How much the view still wants ready record `r`'s page ({@link UploadDemand}). */
  readyDemand(r: number): UploadDemand {
    return this.readyQueue.demandOf(r, this.feedbacks);
  }

  /** Drops ready record `r` unuploaded (its page left the view), freeing its staged bytes. */
  dropReady(r: number): void {
    if (this.state[r] !== PageLoadState.Ready) return;
    this.counters.readyDropped++;
    this.drop(r);
  }

  /** Page id of ready record `r`. */
  readyPage(r: number): number {
    return this.pageOf[r];
  }

  /** Tile data of ready record `r`. */
  readyData(r: number): TileData {
    return this.data[r]!;
  }

  /**
   * Forgets ready record `r` once its tile was uploaded or is unwanted. With `holdFrames` > 0 the
   * tile is discarded but the page is held ({@link PageLoadState.Held}): no request loads it again
   * for that long, and {@link request} says so.
   */
  finishReady(r: number, holdFrames = 0): void {
    if (this.state[r] !== PageLoadState.Ready) return;
    if (holdFrames <= 0) {
      this.drop(r);
      return;
    }
    this.stage(-this.tileBytesOf[pageVt(this.pageOf[r])]);
    this.readyQueue.delete(r);
    this.data[r] = null;
    this.attempts[r] = 0;
    this.state[r] = PageLoadState.Held;
    this.waitUntil[r] = this.frame + holdFrames;
  }

  /** True while page `pageId` is marked failed (its cool-down running). */
  isFailed(pageId: number): boolean {
    const r = this.index.get(pageId);
    return r >= 0 && this.state[r] === PageLoadState.Failed;
  }

  /** Current counters (one reused object). */
  stats(): SchedulerStats {
    const c = this.counters;
    c.queued = this.queue.size;
    c.inFlight = this.inFlight;
    c.ready = this.readyQueue.size;
    c.failed = this.failedOrder.size;
    c.stagedBytes = this.staged;
    c.stagingLimitBytes = this.stagingLimit;
    return c;
  }

  /** Aborts every load and forgets every page. */
  dispose(): void {
    for (const list of [this.byRequest, this.failedOrder]) while (list.head >= 0) this.drop(list.head);
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
    this.inFlightOf[pageVt(pageId)]++;
    this.stage(this.tileBytesOf[pageVt(pageId)]);
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
    const source = this.sources[pageVt(this.pageOf[r])];
    const mismatch = source ? tileMismatchError(tile, source.info) : null;
    if (mismatch) return void this.failed(r, token, mismatch);
    this.inFlight--;
    this.inFlightOf[pageVt(this.pageOf[r])]--;
    this.failingOf[pageVt(this.pageOf[r])] = 0;
    this.controllers[r] = null;
    this.counters.loadsCompleted++;
    this.state[r] = PageLoadState.Ready;
    this.data[r] = tile;
    this.readyQueue.add(r, this.priority[r], this.feedbacks);
  }

  private failed(r: number, token: number, error: unknown): void {
    if (this.tokens[r] !== token || this.state[r] !== PageLoadState.Loading) return;
    const vt = pageVt(this.pageOf[r]);
    this.inFlight--;
    this.inFlightOf[vt]--;
    if (!isAbortError(error)) this.failingOf[vt] = 1;
    this.controllers[r] = null;
    this.stage(-this.tileBytesOf[vt]);
    this.counters.loadErrors++;
    const retryable = error instanceof TileSourceError ? error.retryable : !isAbortError(error);
    const n = this.attempts[r];
    if (!retryable || n >= this.maxAttempts) {
      this.state[r] = PageLoadState.Failed;
      this.waitUntil[r] = this.frame;
      this.byRequest.remove(r);
      this.failedOrder.pushBack(r);
      this.counters.failedTotal++;
      this.onFailure?.(this.pageOf[r], permanentFailure(this.pageOf[r], n, error));
      return;
    }
    this.state[r] = PageLoadState.Backoff;
    this.waitUntil[r] = this.frame + this.retryBase * 2 ** (n - 1);
  }

  private drop(r: number): void {
    const st = this.state[r];
    if (st === PageLoadState.Untracked) return;
    if (st === PageLoadState.Loading || st === PageLoadState.Ready) {
      this.stage(-this.tileBytesOf[pageVt(this.pageOf[r])]);
    }
    if (st === PageLoadState.Loading) {
      this.inFlight--;
      this.inFlightOf[pageVt(this.pageOf[r])]--;
      this.counters.loadsAborted++;
      const c = this.controllers[r];
      this.controllers[r] = null;
      this.tokens[r]++;
      c?.abort();
    }
    this.queue.delete(r);
    this.byRequest.remove(r);
    this.failedOrder.remove(r);
    this.readyQueue.delete(r);
    this.data[r] = null;
    this.index.delete(this.pageOf[r]);
    this.state[r] = PageLoadState.Untracked;
    this.free.pushBack(r);
  }

  /** Drops every record of texture `vt` in `list`. */
  private dropTexture(list: IntrusiveList, vt: number): void {
    for (let r = list.head, next = r; r >= 0; r = next) {
      next = list.next(r);
      if (pageVt(this.pageOf[r]) === vt) this.drop(r);
    }
  }

  /** Adds `bytes` (negative: frees them) to the staged bytes. */
  private stage(bytes: number): void {
    this.staged += bytes;
    if (this.staged > this.counters.stagedPeakBytes) this.counters.stagedPeakBytes = this.staged;
  }

  /**
   * Makes room for a load of `bytes` by dropping ready tiles whose page left the view, least
   * recently requested first (the head of the request order), and says whether it fits now.
   * Stops at the first page the latest two feedbacks still asked for: every later one was
   * requested more recently.
   */
  private reclaimStaging(bytes: number): boolean {
    let r = this.byRequest.head;
    while (r >= 0 && this.staged + bytes > this.stagingLimit) {
      const next = this.byRequest.next(r);
      if (this.feedbacks - this.requestedAtFeedback[r] < FEEDBACKS_BEFORE_ABORT) break;
      if (this.state[r] === PageLoadState.Ready) this.dropReady(r);
      r = next;
    }
    return this.staged + bytes <= this.stagingLimit;
  }
}

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
  /** Times a page was marked failed so far (never decreases). */
  failedTotal: number;
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
    failedTotal: 0,
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
