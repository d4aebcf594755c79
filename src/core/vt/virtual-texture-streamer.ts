import { TesseraConfigError, TesseraError } from '../errors';
import { TypedEmitter } from '../structures/typed-emitter';
import { FeedbackAnalyzer } from './feedback/feedback-analyzer';
import { FEEDBACK_JITTER_PERIOD } from './feedback/feedback-jitter';
import type { MipBiasOptions } from './feedback/mip-bias-controller';
import { MipBiasController } from './feedback/mip-bias-controller';
import { PageTablePressure, REFUSED_PAGE_HOLD_FRAMES } from './feedback/page-table-pressure';
import { MAX_VIRTUAL_TEXTURES, NO_REQUEST, packPageId, pageMip, pageVt, pageX, pageY } from './page-id';
import { PageTable } from './page-table/page-table';
import type { PageTableStorage } from './page-table/page-table-blocks';
import { EMPTY_ENTRY } from './page-table/page-table-entry';
import type { PhysicalPoolOptions } from './residency/physical-pool';
import { PhysicalPool } from './residency/physical-pool';
import { compactPool } from './residency/pool-compaction';
import { RING_FRAMES } from './residency/recent-use-counter';
import type { ReplacementPolicyName } from './residency/replacement-policy';
import { TexturePageRelease } from './residency/texture-page-release';
import { PageRefreshQueue } from './scheduling/page-refresh-queue';
import { assertPinnedFit, NOTHING_RESIDENT_MIPS, requestPinnedPages } from './scheduling/pinned-requests';
import { UploadDemand } from './scheduling/ready-tile-queue';
import type { ResidencySchedulerOptions } from './scheduling/residency-scheduler';
import { PageLoadState, ResidencyScheduler, type SchedulerStats } from './scheduling/residency-scheduler';
import { DEFAULT_CONCURRENT_LOADS, defaultStagingBytes } from './scheduling/staging-reserve';
import type { PageEvent, StreamerEvents, TileUploadHandler, UploadAdmission } from './streamer-events';
import { sourceTileBytes } from './tile-bytes';
import type { TileData, TileSource } from './tile-source';
import { VirtualTextureLayout } from './vt-layout';

/**
 * Loads of resident pages their source can compose better (see {@link
 * VirtualTextureStreamer.pageImproved}) running at once: composed from what the source already
 * holds, they are quick, and they must not hold back the loads of missing pages.
 */
const MAX_REFRESH_LOADS = 4;

/** A page loaded again, waiting to be written over its slot, with the source that made it. */
interface RefreshedTile {
  pageId: number;
  source: TileSource;
  tile: TileData;
}

/**
 * The per-frame orchestrator a renderer binding (or the simulator) drives:
 *
 * ```ts
 * streamer.beginFrame(frame);
 * streamer.submitFeedback(buffer);      // when a readback arrives
 * streamer.update();                    // schedules loads, aborts stale ones, updates the mip bias
 * streamer.drainUploads(writeTile);     // writes loaded tiles under the budget, maps page tables
 * // upload pageTable(vt)'s dirty atlas/indirection rectangles, then pageTable(vt).clearDirty()
 * ```
 *
 * Up to 16 textures share one {@link PhysicalPool}; each has its own {@link PageTable}. Pinned
 * coarse mips are requested first (highest priority) at registration and never evicted.
 */
export class VirtualTextureStreamer extends TypedEmitter<StreamerEvents> {
  /** The shared pool (replaced by {@link resizePool}: read it per use, do not keep it). */
  pool: PhysicalPool;
  /** The feedback analyser (its results describe the latest submitted buffer). */
  readonly analyzer: FeedbackAnalyzer;
  /** The load scheduler. */
  readonly scheduler: ResidencyScheduler;
  /** The oversubscription controller. */
  readonly mipBiasController: MipBiasController;

  private readonly tables: (PageTable | null)[] = new Array(MAX_VIRTUAL_TEXTURES).fill(null);
  private readonly sources: (TileSource | null)[] = new Array(MAX_VIRTUAL_TEXTURES).fill(null);
  private readonly pinnedMissing = new Int32Array(MAX_VIRTUAL_TEXTURES);
  private readonly maxUploads: number;
  private readonly maxUploadBytes: number;
  private readonly workingSetFrames: number;
  /** True when the staging bound is the default (it then grows with the largest tile registered). */
  private readonly defaultStaging: boolean;
  private readonly maxConcurrentLoads: number;
  private largestTileBytes = 0;
  private readonly pageEvent: PageEvent = { vt: 0, pageId: 0, slot: 0, frame: 0 };
  private readonly counters: StreamerStats;
  private readonly replacementPolicy: PhysicalPoolOptions['replacementPolicy'];
  private frame = 0;
  private readonly pageRelease = new TexturePageRelease();
  /** @internal page-table refusals (dropped uploads, requests of held pages): they raise the bias. */
  readonly tablePressure = new PageTablePressure();
  /** Emits `page-evicted` for a page {@link releaseTexturePages} freed (made once, not per call). */
  private readonly releasedPage = (page: number, slot: number) =>
    this.emitPage('page-evicted', pageVt(page), page, slot);
  private loads = 0;
  /** Pages their source reported improved, loaded again once resident (see {@link pageImproved}). */
  private readonly improvable = new PageRefreshQueue();
  private refreshLoads = 0;
  private readonly refreshed: RefreshedTile[] = [];
  private readonly refreshAbort = new AbortController();
  private feedbackSinceUpdate = false;
  private disposed = false;

  constructor(options: VirtualTextureStreamerOptions) {
    super();
    this.pool = options.pool instanceof PhysicalPool ? options.pool : new PhysicalPool(options.pool);
    this.replacementPolicy =
      options.pool instanceof PhysicalPool
        ? (this.pool.policy.name as ReplacementPolicyName)
        : options.pool.replacementPolicy;
    this.maxUploads = options.maxUploadsPerFrame ?? 32;
    this.maxUploadBytes = options.maxUploadBytesPerFrame ?? 16 * 1024 * 1024;
    this.workingSetFrames = options.workingSetFrames ?? FEEDBACK_JITTER_PERIOD;
    checkStreamerLimits(this.workingSetFrames, this.maxUploads, this.maxUploadBytes);
    this.defaultStaging = options.stagingBytes === undefined;
    this.maxConcurrentLoads = options.maxConcurrentLoads ?? DEFAULT_CONCURRENT_LOADS;
    this.analyzer = new FeedbackAnalyzer({ maxPixels: options.maxFeedbackPixels });
    this.scheduler = new ResidencyScheduler(options);
    this.mipBiasController = new MipBiasController(options.mipBias);
    this.scheduler.onFailure = (pageId, error) => this.emit('error', { error, vt: pageVt(pageId), pageId });
    this.counters = createStreamerStats(this.pool.slotCount);
    for (const t of options.textures ?? []) this.registerTexture(t.source, t);
  }

  /** Current global mip bias, in mips: feed it to the feedback pass (and optionally sampling). */
  get mipBias(): number {
    return this.mipBiasController.bias;
  }

  /**
   * Adds a texture served by `source`; returns its index (0..15) used in page ids. Throws
   * {@link TesseraConfigError}: an invalid `source.info`, no free index, `pool-too-small` when
   * the pool cannot hold every registered texture's pinned pages, or `budget-too-small` when one of
   * its tiles is larger than the given `stagingBytes`.
   */
  registerTexture(source: TileSource, options: TextureRegistrationOptions = {}): number {
    this.assertLive();
    const layout = VirtualTextureLayout.fromSourceInfo(source.info, options.pinnedMipCount);
    const vt = this.tables.indexOf(null);
    if (vt < 0) throw new TesseraConfigError('invalid-option', `at most ${MAX_VIRTUAL_TEXTURES} textures`);
    assertPinnedFit(this.tables, layout.pinnedPages, this.pool.slotCount);
    const tileBytes = sourceTileBytes(source.info);
    const scheduler = this.scheduler;
    if (this.defaultStaging) {
      // A rendered source stages nothing; the bound still needs a positive size.
      this.largestTileBytes = Math.max(this.largestTileBytes, tileBytes, 1);
      scheduler.stagingBytes = defaultStagingBytes(
        this.largestTileBytes,
        this.maxUploads,
        this.maxConcurrentLoads,
      );
    } else if (tileBytes > scheduler.stagingBytes) {
      throw new TesseraConfigError(
        'budget-too-small',
        `a tile of ${tileBytes} bytes does not fit the staging bound of ${scheduler.stagingBytes} bytes`,
      );
    }
    this.tables[vt] = new PageTable(layout, options.maxDirtyRectsPerMip, options.pageTableStorage ?? 'auto');
    this.sources[vt] = source;
    this.pinnedMissing[vt] = layout.pinnedPages;
    this.analyzer.setLayout(vt, layout);
    this.scheduler.setSource(vt, source);
    requestPinnedPages(this.tables[vt]!, vt, this.scheduler);
    return vt;
  }

  /** Removes texture `vt`: aborts its loads and frees its slots. Does not dispose its source. */
  unregisterTexture(vt: number): void {
    if (!this.tables[vt]) return;
    this.scheduler.setSource(vt, null);
    this.analyzer.setLayout(vt, null);
    const pages = this.pool.slotPages;
    for (let s = 0; s < pages.length; s++) {
      if (pages[s] !== NO_REQUEST && pageVt(pages[s]) === vt) this.pool.release(s);
    }
    this.tables[vt] = null;
    this.sources[vt] = null;
    this.pinnedMissing[vt] = 0;
  }

  /**
   * Frees up to `maxPages` resident, non-pinned, unlocked pages of texture `vt` whose last use was
   * before frame `usedBefore`: each is unmapped (its page table falls back to a coarser resident
   * mip) and its slot returned to the free list, so the next uploads take those slots first.
   * Emits `page-evicted` for each (a leaving scene's pages become the first victims). Examines at
   * most `maxSlots` slots (default: all) from where the previous call stopped, so a per-frame
   * caller bounds its cost and still reaches every slot. Allocates nothing. Returns the pages freed.
   */
  releaseTexturePages(vt: number, maxPages: number, usedBefore: number, maxSlots = Infinity): number {
    this.assertLive();
    const table = this.tables[vt];
    if (!table) return 0;
    const freed = this.has('page-evicted') ? this.releasedPage : null;
    return this.pageRelease.release(this.pool, table, vt, maxPages, usedBefore, maxSlots, freed);
  }

  /**
   * Replaces the pool by one of `slotCount` slots holding every pinned page and the most recently
   * used others, `keep` at most (`compactPool`); dropped pages are unmapped (`page-evicted`) and
   * re-requested by later feedback. Call between frames. A grow resets the mip bias. Returns the
   * new slot of each old slot (-1: dropped or free), for the GPU copy.
   * @throws TesseraConfigError('pool-too-small') when `slotCount` cannot hold the pinned pages of
   *   the registered textures; nothing changes then.
   */
  resizePool(slotCount: number, keep = slotCount): Int32Array {
    this.assertLive();
    assertPinnedFit(this.tables, 0, slotCount);
    const old = this.pool;
    const result = compactPool(old, this.tables, slotCount, keep, this.frame, this.replacementPolicy);
    this.pool = result.pool;
    this.counters.poolSlots = slotCount;
    if (slotCount > old.slotCount) this.mipBiasController.reset(); // it compensated for the smaller pool
    this.pool.evictionCount = old.evictionCount + result.dropped.length;
    this.pool.allocationCount = old.allocationCount;
    if (this.has('page-evicted')) {
      for (let i = 0; i < result.dropped.length; i++) {
        const page = result.dropped[i];
        this.emitPage('page-evicted', pageVt(page), page, old.slotOf(page));
      }
    }
    return result.newSlotOf;
  }

  /** Page table of texture `vt` (throws `unknown-texture` when not registered). */
  pageTable(vt: number): PageTable {
    const t = this.tables[vt];
    if (!t) throw new TesseraError('unknown-texture', `no texture registered at index ${vt}`);
    return t;
  }

  /** Layout of texture `vt` (throws `unknown-texture` when not registered). */
  layout(vt: number): VirtualTextureLayout {
    return this.pageTable(vt).layout;
  }

  /** Starts frame `frame` (an increasing integer; recency is counted in these). */
  beginFrame(frame: number): void {
    this.frame = frame;
    this.scheduler.beginFrame(frame);
  }

  /**
   * Analyses one feedback buffer (packed page ids, {@link NO_REQUEST} for none): resident pages are
   * touched for this frame, missing ones requested with their fallback distance and coverage.
   * Malformed values are counted in {@link stats}, never thrown. Allocates nothing.
   */
  submitFeedback(buffer: Uint32Array, length?: number): void {
    this.assertLive();
    this.scheduler.noteFeedback();
    this.applyFeedback(this.analyzer.analyze(buffer, length));
    this.startRequestedLoads();
  }

  /**
   * Like {@link submitFeedback}, for feedback the GPU already reduced to distinct pages:
   * `pages[0..length)` with the feedback pixels (screen tiles) requesting each in `counts`.
   */
  submitCountedFeedback(pages: Uint32Array, counts: Uint32Array, length: number): void {
    this.assertLive();
    this.scheduler.noteFeedback();
    this.applyFeedback(this.analyzer.analyzeCounted(pages, counts, length));
    this.startRequestedLoads();
  }

  /**
   * Starts the loads a feedback just asked for, as it arrives (a readback lands between frames),
   * not at the next {@link update}: the tiles then arrive up to a frame sooner.
   */
  private startRequestedLoads(): void {
    for (let vt = 0; vt < MAX_VIRTUAL_TEXTURES; vt++) {
      if (this.pinnedMissing[vt] > 0) requestPinnedPages(this.tables[vt]!, vt, this.scheduler);
    }
    this.scheduler.update();
  }

  /** Touches the resident pages of the latest analysis and requests the missing ones. */
  private applyFeedback(n: number): void {
    const a = this.analyzer;
    const pages = a.pages;
    const coverage = a.coverage;
    const frame = this.frame;
    let residentPixels = 0;
    let requestPixels = 0;
    for (let i = 0; i < n; i++) {
      const id = pages[i];
      const mip = (id >>> 24) & 0xf;
      const table = this.tables[id >>> 28]!;
      const e = table.entry(mip, id & 0xfff, (id >>> 12) & 0xfff);
      const cov = coverage[i];
      requestPixels += cov;
      if (e !== EMPTY_ENTRY && ((e >>> 16) & 0xf) === mip) {
        this.pool.touch(e & 0xffff, frame);
        residentPixels += cov;
      } else {
        const fallbackMips = e === EMPTY_ENTRY ? NOTHING_RESIDENT_MIPS : ((e >>> 16) & 0xf) - mip;
        if (this.scheduler.request(id, fallbackMips, cov)) this.tablePressure.refused(frame);
      }
    }
    this.counters.requestedPages = n;
    this.counters.residency = requestPixels > 0 ? residentPixels / requestPixels : 1;
    this.counters.malformedPixels = a.stats.malformedPixels;
    this.feedbackSinceUpdate = true;
  }

  /**
   * Page (`mip`, `x`, `y`) of texture `vt` would load better now than when it loaded (its source
   * says so through `TileSource.watchPages`): once resident, it is loaded again, at most
   * 4 at once, and written over its slot by {@link drainUploads}, its old
   * texels drawn until then. A page queued but not loading yet is left to its coming load; one
   * neither resident nor loading is forgotten.
   */
  pageImproved(vt: number, mip: number, x: number, y: number): void {
    if (this.disposed || !this.tables[vt]?.layout.contains(mip, x, y)) return;
    this.improvable.add(packPageId(vt, mip, x, y));
    // Started now, not at the next update(): the better page is then written in the same upload
    // pass as the neighbour whose arrival improved it, a frame sooner.
    if (this.refreshLoads < MAX_REFRESH_LOADS) this.startRefreshes();
  }

  /** Starts the loads of improved resident pages (see {@link pageImproved}). */
  private startRefreshes(): void {
    // Each page waiting is looked at once per frame: one still loading goes back to wait.
    for (let n = this.improvable.size; n > 0 && this.refreshLoads < MAX_REFRESH_LOADS; n--) {
      const pageId = this.improvable.take();
      const vt = pageVt(pageId);
      const table = this.tables[vt];
      const source = this.sources[vt];
      if (!table || !source) continue;
      const mip = pageMip(pageId);
      const x = pageX(pageId);
      const y = pageY(pageId);
      if (!table.isResident(mip, x, y)) {
        const state = this.scheduler.stateOf(pageId);
        if (state === PageLoadState.Loading || state === PageLoadState.Ready) this.improvable.add(pageId);
        continue;
      }
      this.refreshLoads++;
      const signal = this.refreshAbort.signal;
      source.load(mip, x, y, signal).then(
        (tile) => {
          this.refreshLoads--;
          if (!signal.aborted) this.refreshed.push({ pageId, source, tile });
        },
        // A page that fails to load again keeps the texels it has.
        () => {
          this.refreshLoads--;
        },
      );
    }
  }

  /** Writes refreshed pages over their slots, up to `maxTiles` tiles and `maxBytes`; returns how many. */
  private writeRefreshed(
    handler: TileUploadHandler,
    maxTiles: number,
    maxBytes: number,
    admit: UploadAdmission | undefined,
  ): number {
    let tiles = 0;
    let bytes = 0;
    while (tiles < maxTiles && this.refreshed.length > 0) {
      const { pageId, source, tile } = this.refreshed[0];
      let tileBytes = 0;
      for (let l = 0; l < tile.layers.length; l++) tileBytes += tile.layers[l].byteLength;
      if (tiles > 0 && bytes + tileBytes > maxBytes) break;
      const vt = pageVt(pageId);
      const table = this.tables[vt];
      // Removed (or replaced by another texture at the same index), or evicted meanwhile.
      if (this.sources[vt] !== source || !table?.isResident(pageMip(pageId), pageX(pageId), pageY(pageId))) {
        this.refreshed.shift();
        continue;
      }
      if (admit !== undefined && !admit(vt)) break;
      this.refreshed.shift();
      const slot = this.pool.slotOf(pageId);
      this.pool.lock(slot);
      try {
        if (handler(vt, slot, pageId, tile) === false) continue;
      } finally {
        this.pool.unlock(slot);
      }
      tiles++;
      bytes += tileBytes;
      if (this.has('page-refreshed')) this.emitPage('page-refreshed', vt, pageId, slot);
    }
    return tiles;
  }

  /**
   * Per-frame scheduling: re-requests missing pinned pages, aborts loads no longer wanted, starts
   * new loads by priority, and updates the mip bias from the latest feedback.
   */
  update(): void {
    if (this.disposed) return;
    if (this.improvable.size > 0) this.startRefreshes();
    this.startRequestedLoads();
    if (this.feedbackSinceUpdate) {
      this.feedbackSinceUpdate = false;
      const needed = workingSetPages(
        this.pool,
        this.scheduler.stats(),
        this.frame - this.workingSetFrames + 1,
        this.counters.requestedPages,
      );
      const pressure = this.tablePressure.pressure(this.frame);
      this.mipBiasController.update(needed, this.pool.slotCount - this.pool.pinnedCount, pressure);
    }
  }

  /**
   * Uploads loaded tiles in the scheduler's upload order (pages the latest feedback wants first,
   * then by the request's current priority), up to `maxTiles` tiles and `maxBytes` bytes (at least
   * one tile so a large tile cannot stall), while `admit` (if given) accepts the next tile's
   * texture: takes a slot (evicting and unmapping a victim if needed), calls `handler` to write the
   * tile, then maps the page. Returns the tiles uploaded.
   *
   * A tile whose page left the view (`UploadDemand.Unwanted`: neither of the latest two
   * feedback buffers asked for it) is uploaded only into a free slot, so it never evicts a page for
   * a view that no longer needs it. With none free it waits: uploaded if the view asks for it
   * again, else dropped (its bytes freed) when its request expires (`abortAfterFrames`) or when a
   * wanted load needs its staging bytes. It is not dropped at once: a page covering a few pixels
   * is missed by some jittered feedbacks, and dropping it would load it again.
   *
   * The fallback is served by the priority itself (pages with nothing resident, the pinned mips,
   * outrank all; then the farther a page's fallback, the sooner), not by uploading a tile's loaded
   * ancestors first, which reaches sharp later (docs/benchmarks.md#sim, `vt.upload_order.*`).
   * Resident pages loaded again ({@link pageImproved}) are written over their slots with what the
   * bounds leave (`page-refreshed`); they count in the tiles returned.
   */
  drainUploads(
    handler: TileUploadHandler,
    maxTiles = this.maxUploads,
    maxBytes = this.maxUploadBytes,
    admit?: UploadAdmission,
  ): number {
    this.assertLive();
    const scheduler = this.scheduler;
    const pool = this.pool;
    const frame = this.frame;
    let tiles = 0;
    let bytes = 0;
    while (tiles < maxTiles) {
      const r = scheduler.peekReady();
      if (r < 0) break;
      const pageId = scheduler.readyPage(r);
      const tile = scheduler.readyData(r);
      let tileBytes = 0;
      for (let l = 0; l < tile.layers.length; l++) tileBytes += tile.layers[l].byteLength;
      if (tiles > 0 && bytes + tileBytes > maxBytes) break;
      const vt = pageVt(pageId);
      const mip = pageMip(pageId);
      const x = pageX(pageId);
      const y = pageY(pageId);
      const table = this.tables[vt];
      if (!table || table.isResident(mip, x, y)) {
        scheduler.finishReady(r);
        continue;
      }
      // The lowest class: every tile still waiting is unwanted too.
      if (pool.freeCount === 0 && scheduler.readyDemand(r) === UploadDemand.Unwanted) break;
      if (!table.canMap(mip, x, y)) {
        // No block for it within the table's budget: drop the tile, hold the page, raise the bias.
        this.tablePressure.refused(frame);
        scheduler.finishReady(r, REFUSED_PAGE_HOLD_FRAMES);
        continue;
      }
      if (admit !== undefined && !admit(vt)) break;
      const pinned = table.layout.isPinnedMip(mip);
      const slot = pool.allocate(pageId, frame, pinned);
      if (slot < 0) break; // every slot is pinned, locked or needed this frame
      const victim = pool.lastEvictedPage;
      if (victim !== NO_REQUEST) this.evicted(victim, slot);
      pool.lock(slot);
      let written: boolean | undefined;
      try {
        written = handler(vt, slot, pageId, tile);
      } finally {
        pool.unlock(slot);
      }
      scheduler.finishReady(r);
      if (written === false) {
        pool.release(slot);
        continue;
      }
      table.map(mip, x, y, slot);
      if (pinned) this.pinnedMissing[vt]--;
      tiles++;
      bytes += tileBytes;
      this.loads++;
      if (this.has('page-loaded')) this.emitPage('page-loaded', vt, pageId, slot);
    }
    if (this.refreshed.length > 0 && tiles < maxTiles) {
      tiles += this.writeRefreshed(handler, maxTiles - tiles, Math.max(0, maxBytes - bytes), admit);
    }
    return tiles;
  }

  /**
   * True when the coarsest page of texture `vt` failed for good and is cooling down: the texture
   * has no fallback now (its samples show the placeholder), and nothing will load before a retry.
   */
  coarsestFailed(vt: number): boolean {
    const table = this.tables[vt];
    if (!table) return false;
    return this.scheduler.isFailed(packPageId(vt, table.layout.mipCount - 1, 0, 0));
  }

  /** Current counters (one reused object). */
  stats(): StreamerStats {
    const pool = this.pool;
    const c = fillStreamerStats(
      this.counters,
      this.frame,
      pool.residentCount,
      pool.pinnedCount,
      pool.evictionCount,
      this.loads,
      this.mipBiasController.bias,
      this.scheduler.stats(),
    );
    // Pages loading again count as loads, so the system settles once their better texels are in.
    c.queued += this.improvable.size;
    c.inFlight += this.refreshLoads;
    c.pendingUploads += this.refreshed.length;
    return c;
  }

  /** Aborts every load, drops every queued tile and listener. Sources are not disposed (the caller owns them). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.scheduler.dispose();
    this.refreshAbort.abort();
    this.refreshed.length = 0;
    this.improvable.clear();
    this.clear();
  }

  private evicted(victim: number, slot: number): void {
    const vt = pageVt(victim);
    this.tables[vt]?.unmap(pageMip(victim), pageX(victim), pageY(victim));
    if (this.has('page-evicted')) this.emitPage('page-evicted', vt, victim, slot);
  }

  private emitPage(
    type: 'page-loaded' | 'page-refreshed' | 'page-evicted',
    vt: number,
    pageId: number,
    slot: number,
  ): void {
    const e = this.pageEvent;
    e.vt = vt;
    e.pageId = pageId;
    e.slot = slot;
    e.frame = this.frame;
    this.emit(type, e);
  }

  private assertLive(): void {
    if (this.disposed) throw new TesseraError('disposed', 'the streamer was disposed');
  }
}

/**
 * Pages the view needs, in pages: the larger of the latest feedback's distinct pages
 * (`requestedPages`) and the working set over the window starting at frame `windowStart`
 * (unpinned pages used in the window plus the missing ones queued, loading or waiting for
 * upload). The windowed count sees what successive jittered feedback frames need together;
 * without it a pool that holds every single frame's pages but not the cycle's union thrashes
 * with the mip bias at 0. O(slots), allocates nothing.
 */
export function workingSetPages(
  pool: PhysicalPool,
  scheduler: SchedulerStats,
  windowStart: number,
  requestedPages: number,
): number {
  const windowed = pool.usedSinceCount(windowStart) + scheduler.queued + scheduler.inFlight + scheduler.ready;
  return Math.max(requestedPages, windowed);
}

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
  /** Pages marked failed now (cooling down; retried when requested after it). */
  failed: number;
  /** Times a page was marked failed since creation (never decreases). */
  failedTotal: number;
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
    failedTotal: 0,
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
  c.failedTotal = s.failedTotal;
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
  if (!(maxUploadBytes > 0)) {
    throw new TesseraConfigError('invalid-option', 'maxUploadBytesPerFrame must be > 0');
  }
}
