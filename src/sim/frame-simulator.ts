import { TesseraConfigError } from '../core/errors';
import { FeedbackAnalyzer } from '../core/vt/feedback/feedback-analyzer';
import { feedbackJitterX, feedbackJitterY } from '../core/vt/feedback/feedback-jitter';
import type { FilterMode } from '../core/vt/feedback/mip-rule';
import { NO_REQUEST } from '../core/vt/page-id';
import type { PageTable } from '../core/vt/page-table/page-table';
import { EMPTY_ENTRY } from '../core/vt/page-table/page-table-entry';
import type { PhysicalPoolOptions } from '../core/vt/residency/physical-pool';
import type { TileData } from '../core/vt/tile-source';
import type { VirtualTextureStreamerOptions } from '../core/vt/virtual-texture-streamer';
import { VirtualTextureStreamer } from '../core/vt/virtual-texture-streamer';
import type { CameraPath } from './camera-paths';
import { createCameraPose } from './camera-pose';
import { flushTasks } from './flush-tasks';
import { countOptimalLoads } from './optimal-loads';
import { RequestTrace } from './request-trace';
import { SimulatedTileSource } from './simulated-tile-source';
import { TerrainFeedbackGenerator } from './terrain-feedback-generator';

/** The simulated terrain: one virtual texture stretched over a flat plane. */
export interface SimulatedTerrain {
  /** Width of mip 0, in pages (power of two). */
  widthPages: number;
  /** Height of mip 0, in pages (power of two). */
  heightPages: number;
  /** Tile side including its border, in texels. Default 128. */
  tileSize?: number;
  /** Border inside each tile side, in texels. Default 4. */
  border?: number;
  /** Extent along world x, in world units. Default: one world unit per mip-0 payload texel. */
  worldWidth?: number;
  /** Extent along world z, in world units. Default: square texels. */
  worldDepth?: number;
  /** Coarsest mips pinned in the pool. Default: the streamer's default (3). */
  pinnedMipCount?: number;
}

/** Options of a {@link FrameSimulator}. */
export interface FrameSimulatorOptions {
  /** The terrain and its virtual texture. */
  terrain: SimulatedTerrain;
  /** Where the camera goes (built with the same world size as {@link terrain}). */
  path: CameraPath;
  /** Total pool slots, pinned pages included. */
  poolSlots: number;
  /** The pool's replacement policy (`PhysicalPoolOptions.replacementPolicy`). Default `lhd`. */
  replacementPolicy?: PhysicalPoolOptions['replacementPolicy'];
  /** Tiles uploaded per frame, in tiles. Default 32. */
  uploadsPerFrame?: number;
  /**
   * Frames between rendering a feedback buffer and the core analysing it (readback latency).
   * Default 1.
   */
  feedbackLatencyFrames?: number;
  /** Frames a tile load takes in the simulated source. Default 2. */
  sourceLatencyFrames?: number;
  /** Probability that a tile load fails. Default 0. */
  failureProbability?: number;
  /** Seed of the source's failures. Default 1. */
  seed?: number;
  /** Screen size, in screen pixels. Default 1920 x 1080. */
  screenWidth?: number;
  /** Screen size, in screen pixels. Default 1920 x 1080. */
  screenHeight?: number;
  /** Screen pixels per feedback pixel along each axis. Default 8 (240 x 135 at 1080p). */
  feedbackScale?: number;
  /** Sampler anisotropy limit used for the mip. Default 8. */
  maxAnisotropy?: number;
  /** The sampler's filtering, whose mip rule the feedback follows. Default 'anisotropic'. */
  filtering?: FilterMode;
  /** Rotate the sub-pixel feedback offset every frame (as the GPU pass does). Default true. */
  jitter?: boolean;
  /** Feed the streamer's oversubscription mip bias back into the feedback. Default true. */
  applyMipBias?: boolean;
  /** Record the per-frame request trace (needed for the optimal-loads figure). Default true. */
  recordTrace?: boolean;
  /** Fraction of requesting pixels that counts as sharp for time-to-sharp. Default 0.99. */
  sharpThreshold?: number;
  /**
   * Extra streamer options (concurrency, abort delay, retries, mip-bias tuning). The pool, upload
   * budget and textures are set by the simulator. Default concurrency: 1024 loads.
   */
  streamer?: Partial<VirtualTextureStreamerOptions>;
}

/** What happened after one teleport. */
export interface TeleportReport {
  /** Frame of the jump. */
  frame: number;
  /**
   * Distinct pages the first feedback at the new place requests directly (not fallback ancestors)
   * that were not resident and are not pinned, in pages.
   */
  pagesNeeded: number;
  /** Latency floor: feedback latency + source latency + ceil(pagesNeeded / uploadsPerFrame), in frames. */
  limitFrames: number;
  /** Frames from the jump to the first frame at least `sharpThreshold` sharp; -1 if never before the next jump. */
  timeToSharpFrames: number;
}

/** Figures of a whole run. */
export interface SimulationReport {
  /** Frames simulated. */
  frames: number;
  /** Sharp fraction of every frame (requesting pixels served at their mip or finer), 0..1. */
  sharpFraction: Float32Array;
  /** Mean of {@link sharpFraction}. */
  meanSharpFraction: number;
  /** One entry per teleport reached so far (frame 0 included: it also loads the pinned mips). */
  teleports: TeleportReport[];
  /** Non-pinned tiles uploaded, in tiles. */
  loads: number;
  /** Pages evicted from the pool, in pages. */
  evictions: number;
  /** Failed load attempts, in loads. */
  loadErrors: number;
  /** Pool slots available to non-pinned pages (the capacity given to the optimal policy), in pages. */
  capacity: number;
  /** Distinct non-pinned pages over the trace (requests and their ancestors), in pages. */
  workingSetUnion: number;
  /** Largest per-frame set of non-pinned pages, in pages. */
  maxFrameWorkingSet: number;
  /** Loads Belady's optimum needs on the same trace and capacity; NaN without a trace or when a frame alone exceeds the capacity. */
  optLoads: number;
  /** Mip bias at the end, in mips. */
  finalMipBias: number;
  /** The recorded trace (per-frame non-pinned pages the core saw), or null. */
  trace: RequestTrace | null;
}

/**
 * Runs the real core ({@link VirtualTextureStreamer}) frame by frame against a simulated camera,
 * feedback pass and tile source. Each frame `f`:
 * 1. the source advances to `f` and settled loads reach the streamer;
 * 2. `beginFrame(f)`; the feedback of frame `f` is rendered (pose of `f`, current mip bias, jitter);
 * 3. the feedback of frame `f - feedbackLatency` is submitted, then `update()`;
 * 4. loads that settle at once (source latency 0) reach the streamer; `drainUploads` writes up to
 *    `uploadsPerFrame` tiles (the sim writes nothing: its tiles are fake);
 * 5. frame `f` is "rendered": its sharp fraction is measured against the page table as it is now.
 *
 * So a page missing at teleport frame T is sharp at best at T + feedbackLatency + sourceLatency,
 * and the last of N such pages at T + feedbackLatency + sourceLatency + ceil(N / uploadsPerFrame) - 1.
 */
export class FrameSimulator {
  /** The core under test. */
  readonly streamer: VirtualTextureStreamer;
  /** The simulated tile source. */
  readonly source: SimulatedTileSource;
  /** The feedback generator. */
  readonly generator: TerrainFeedbackGenerator;
  /** The camera path. */
  readonly path: CameraPath;
  /** Texture index of the terrain in the streamer. */
  readonly vt: number;
  /** The terrain's page table. */
  readonly pageTable: PageTable;
  /** Next frame to simulate. */
  frame = 0;

  private readonly uploadsPerFrame: number;
  private readonly feedbackLatency: number;
  private readonly sourceLatency: number;
  private readonly jitter: boolean;
  private readonly applyMipBias: boolean;
  private readonly threshold: number;
  private readonly ring: Uint32Array[];
  private readonly pose = createCameraPose();
  private readonly firstPinnedMip: number;
  private readonly trace: RequestTrace | null;
  private readonly teleportAnalyzer: FeedbackAnalyzer;
  private readonly teleportFrames: readonly number[];
  private readonly teleports: TeleportReport[] = [];
  private sharp: Float32Array;
  private nextTeleport = 0;
  private openTeleport: TeleportReport | null = null;
  private loads = 0;
  private readonly upload: (vt: number, slot: number, pageId: number, tile: TileData) => boolean;

  constructor(options: FrameSimulatorOptions) {
    const t = options.terrain;
    const tileSize = t.tileSize ?? 128;
    const border = t.border ?? 4;
    const payload = tileSize - 2 * border;
    const screenWidth = options.screenWidth ?? 1920;
    const screenHeight = options.screenHeight ?? 1080;
    const scale = options.feedbackScale ?? 8;
    if (!(scale >= 1)) {
      throw new TesseraConfigError('invalid-option', `feedbackScale must be >= 1, got ${scale}`);
    }
    this.uploadsPerFrame = options.uploadsPerFrame ?? 32;
    this.feedbackLatency = options.feedbackLatencyFrames ?? 1;
    this.sourceLatency = options.sourceLatencyFrames ?? 2;
    if (!Number.isInteger(this.feedbackLatency) || this.feedbackLatency < 0) {
      throw new TesseraConfigError('invalid-option', `feedbackLatencyFrames must be an integer >= 0`);
    }
    this.jitter = options.jitter ?? true;
    this.applyMipBias = options.applyMipBias ?? true;
    this.threshold = options.sharpThreshold ?? 0.99;
    this.path = options.path;
    this.generator = new TerrainFeedbackGenerator({
      widthPages: t.widthPages,
      heightPages: t.heightPages,
      tileSize,
      border,
      worldWidth: t.worldWidth ?? t.widthPages * payload,
      worldDepth: t.worldDepth,
      screenWidth,
      screenHeight,
      feedbackWidth: Math.ceil(screenWidth / scale),
      feedbackHeight: Math.ceil(screenHeight / scale),
      maxAnisotropy: options.maxAnisotropy,
      filtering: options.filtering,
    });
    this.source = new SimulatedTileSource({
      widthPages: t.widthPages,
      heightPages: t.heightPages,
      tileSize,
      border,
      latencyFrames: this.sourceLatency,
      failureProbability: options.failureProbability,
      seed: options.seed,
    });
    const pixels = this.generator.buffer.length;
    this.streamer = new VirtualTextureStreamer({
      maxConcurrentLoads: 1024,
      maxTrackedPages: 16384,
      ...options.streamer,
      pool: { slotCount: options.poolSlots, tileSize, replacementPolicy: options.replacementPolicy },
      maxUploadsPerFrame: this.uploadsPerFrame,
      maxUploadBytesPerFrame: Number.MAX_SAFE_INTEGER,
      maxFeedbackPixels: pixels,
    });
    this.vt = this.streamer.registerTexture(this.source, { pinnedMipCount: t.pinnedMipCount });
    this.pageTable = this.streamer.pageTable(this.vt);
    this.firstPinnedMip = this.pageTable.layout.firstPinnedMip;
    this.ring = [];
    for (let i = 0; i <= this.feedbackLatency; i++) this.ring.push(new Uint32Array(pixels));
    this.trace = (options.recordTrace ?? true) ? new RequestTrace(1 << 16) : null;
    this.teleportAnalyzer = new FeedbackAnalyzer({ maxPixels: pixels });
    this.teleportAnalyzer.setLayout(this.vt, this.pageTable.layout);
    this.teleportFrames = this.path.teleportFrames;
    // Reports are allocated up front so that long runs allocate nothing per teleport.
    for (const frame of this.teleportFrames) {
      this.teleports.push({ frame, pagesNeeded: 0, limitFrames: 0, timeToSharpFrames: -1 });
    }
    this.sharp = new Float32Array(Math.max(1, this.path.frames));
    const firstPinned = this.firstPinnedMip;
    this.upload = (_vt, _slot, pageId) => {
      if (((pageId >>> 24) & 0xf) < firstPinned) this.loads++;
      return true;
    };
  }

  /** Pool slots available to non-pinned pages, in pages. */
  get capacity(): number {
    return this.streamer.pool.slotCount - this.pageTable.layout.pinnedPages;
  }

  /** Simulates one frame and returns its sharp fraction (0..1). */
  async step(): Promise<number> {
    const f = this.frame;
    const streamer = this.streamer;
    this.source.advanceTo(f);
    await flushTasks();
    streamer.beginFrame(f);
    const pose = this.path.poseAt(f, this.pose);
    const current = this.ring[f % this.ring.length];
    const bias = this.applyMipBias ? streamer.mipBias : 0;
    const jx = this.jitter ? feedbackJitterX(f) : 0.5;
    const jy = this.jitter ? feedbackJitterY(f) : 0.5;
    this.generator.generate(pose, bias, jx, jy, current);
    if (this.nextTeleport < this.teleportFrames.length && this.teleportFrames[this.nextTeleport] === f) {
      this.beginTeleport(this.teleports[this.nextTeleport++], current);
    }
    if (f >= this.feedbackLatency) {
      streamer.submitFeedback(this.ring[(f - this.feedbackLatency) % this.ring.length]);
      if (this.trace) this.recordTraceFrame();
    }
    streamer.update();
    if (this.sourceLatency === 0) await flushTasks();
    streamer.drainUploads(this.upload);
    const sharp = this.measureSharp(current);
    if (f >= this.sharp.length) this.growSharp(f);
    this.sharp[f] = sharp;
    const open = this.openTeleport;
    if (open && sharp >= this.threshold) {
      open.timeToSharpFrames = f - open.frame;
      this.openTeleport = null;
    }
    this.frame = f + 1;
    return sharp;
  }

  /** Simulates `frames` frames (default: the rest of the path) and returns the report. */
  async run(frames = this.path.frames - this.frame): Promise<SimulationReport> {
    for (let i = 0; i < frames; i++) await this.step();
    return this.report();
  }

  /** Figures for the frames simulated so far (computes the optimal loads; allocates). */
  report(): SimulationReport {
    const frames = this.frame;
    const sharpFraction = this.sharp.slice(0, frames);
    let sum = 0;
    for (let i = 0; i < frames; i++) sum += sharpFraction[i];
    const stats = this.streamer.stats();
    const trace = this.trace;
    const capacity = this.capacity;
    let optLoads = Number.NaN;
    let union = 0;
    let maxFrame = 0;
    if (trace) {
      union = trace.unionSize();
      maxFrame = trace.maxFrameSize();
      if (maxFrame <= capacity && capacity > 0) optLoads = countOptimalLoads(trace, capacity);
    }
    return {
      frames,
      sharpFraction,
      meanSharpFraction: frames > 0 ? sum / frames : 1,
      teleports: this.teleports.slice(0, this.nextTeleport).map((t) => ({ ...t })),
      loads: this.loads,
      evictions: stats.evictions,
      loadErrors: stats.loadErrors,
      capacity,
      workingSetUnion: union,
      maxFrameWorkingSet: maxFrame,
      optLoads,
      finalMipBias: stats.mipBias,
      trace,
    };
  }

  /** Releases the streamer and the source. */
  dispose(): void {
    this.streamer.dispose();
    this.source.dispose();
  }

  /** Fraction of requesting pixels of `buffer` whose page is resident at its own mip (or finer). */
  private measureSharp(buffer: Uint32Array): number {
    const table = this.pageTable;
    let requesting = 0;
    let sharp = 0;
    let previous = NO_REQUEST;
    let previousSharp = false;
    for (let i = 0; i < buffer.length; i++) {
      const v = buffer[i];
      if (v === NO_REQUEST) continue;
      requesting++;
      if (v !== previous) {
        const mip = (v >>> 24) & 0xf;
        const e = table.entry(mip, v & 0xfff, (v >>> 12) & 0xfff);
        // An entry names the finest resident page among itself and its ancestors: only the page
        // itself (resident mip == requested mip) is sharp.
        previousSharp = e !== EMPTY_ENTRY && ((e >>> 16) & 0xf) <= mip;
        previous = v;
      }
      if (previousSharp) sharp++;
    }
    return requesting > 0 ? sharp / requesting : 1;
  }

  /** Appends the streamer's latest analysed pages (requests and ancestors, minus pinned ones). */
  private recordTraceFrame(): void {
    const trace = this.trace!;
    const a = this.streamer.analyzer;
    const firstPinned = this.firstPinnedMip;
    trace.beginFrame();
    for (let i = 0; i < a.count; i++) {
      const id = a.pages[i];
      if (((id >>> 24) & 0xf) < firstPinned) trace.add(id);
    }
  }

  private beginTeleport(report: TeleportReport, feedback: Uint32Array): void {
    // A jump before the previous place got sharp leaves that report at -1.
    const a = this.teleportAnalyzer;
    a.analyze(feedback);
    let needed = 0;
    for (let i = 0; i < a.directCount; i++) {
      const id = a.pages[i];
      const mip = (id >>> 24) & 0xf;
      if (mip >= this.firstPinnedMip) continue;
      if (!this.pageTable.isResident(mip, id & 0xfff, (id >>> 12) & 0xfff)) needed++;
    }
    report.pagesNeeded = needed;
    report.limitFrames = this.feedbackLatency + this.sourceLatency + Math.ceil(needed / this.uploadsPerFrame);
    report.timeToSharpFrames = -1;
    this.openTeleport = report;
  }

  private growSharp(frame: number): void {
    const grown = new Float32Array(Math.max(frame + 1, this.sharp.length * 2));
    grown.set(this.sharp);
    this.sharp = grown;
  }
}
