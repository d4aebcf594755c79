import { NO_REQUEST, pageMip, pageX, pageY } from '../src/core/vt/page-id';
import type { PageTable } from '../src/core/vt/page-table/page-table';
import { EMPTY_ENTRY, entryMip } from '../src/core/vt/page-table/page-table-entry';
import type { UploadOrder } from '../src/core/vt/scheduling/ready-tile-queue';
import { type CameraPath, teleportPath } from '../src/sim/camera-paths';
import { createCameraPose } from '../src/sim/camera-pose';
import { FrameSimulator } from '../src/sim/frame-simulator';
import { TerrainFeedbackGenerator } from '../src/sim/terrain-feedback-generator';

/**
 * Upload order and staging under lagging uploads (issue 12, section 3), on the simulator: a camera
 * that glances at a place and jumps on before it is sharp, with few uploads per frame, so loaded
 * tiles of the place it left are still waiting when the next place's arrive. The same trace runs with
 * uploads in arrival order (the baseline: the FIFO it replaced) and in priority order.
 */

// 1024 x 1024 pages of 120 payload texels, as the other simulator benchmarks.
const TERRAIN = { widthPages: 1024, heightPages: 1024 };
const WORLD = 1024 * 120;
const SHAPE = { worldWidth: WORLD, worldDepth: WORLD, altitude: 150 };

/** Settings of one lagging-upload run. */
export interface LaggingRun {
  /** Seed of the teleport path. */
  seed: number;
  uploadOrder: UploadOrder;
  /** Loads running at once. */
  maxConcurrentLoads: number;
  /** Staging bound, in bytes (undefined: the streamer's default for the concurrency). */
  stagingBytes?: number;
  /** Tiles uploaded per frame. Default 4. */
  uploadsPerFrame?: number;
  /** Frames of each glance. Default 12. */
  glanceFrames?: number;
}

/** Figures of one run. */
export interface LaggingFigures {
  /** Median frames from the start of a stay to 90% sharp (Infinity when most never got there). */
  framesToSharp: number;
  /** Stays that never reached 90% sharp. */
  neverSharp: number;
  /** Mean sharp fraction over the whole run (0..1). */
  meanSharp: number;
  /**
   * Mean blur over the run: for each pixel of the view, how many mips coarser than it asks for the
   * page it shows is (its fallback), averaged over pixels and frames, in mips. Sharpness counts
   * only pages that are in; this also counts how good the fallback of the others is.
   */
  meanBlurMips: number;
  /** Highest staged bytes (loads in flight + tiles awaiting upload), in bytes. */
  stagedPeakBytes: number;
  /** The staging bound, in bytes. */
  stagingBytes: number;
  /** Tiles uploaded (non-pinned). */
  loads: number;
}

/**
 * Each visit: a glance of `glanceFrames` at one place (too short to make it sharp: its tiles pile
 * up), then a stay of {@link STAY_FRAMES} at another. Time-to-sharp is measured on the stays,
 * which start with the glance's tiles still waiting.
 */
const STAY_FRAMES = 60;
const VISITS = 6;

/** Glances and stays at the places of a seeded teleport path (one place per frame of it). */
function glanceAndStayPath(seed: number, glanceFrames: number): CameraPath {
  const places = teleportPath({ ...SHAPE, seed, frames: 2 * VISITS, holdFrames: 1 });
  const visit = glanceFrames + STAY_FRAMES;
  const teleportFrames: number[] = [];
  for (let v = 0; v < VISITS; v++) teleportFrames.push(v * visit, v * visit + glanceFrames);
  return {
    name: 'glance-and-stay',
    frames: VISITS * visit,
    teleportFrames,
    poseAt(frame, out) {
      const v = Math.min(Math.floor(frame / visit), VISITS - 1);
      return places.poseAt(2 * v + (frame - v * visit < glanceFrames ? 0 : 1), out);
    },
  };
}

/** Mean over the requesting pixels of `ids` of (mip shown - mip asked for), in mips. */
function blurMips(ids: Uint32Array, table: PageTable): number {
  const coarsest = table.layout.mipCount - 1;
  let sum = 0;
  let pixels = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (id === NO_REQUEST) continue;
    const mip = pageMip(id);
    const e = table.entry(mip, pageX(id), pageY(id));
    const shown = e === EMPTY_ENTRY ? coarsest + 1 : entryMip(e);
    sum += Math.max(0, shown - mip);
    pixels++;
  }
  return pixels > 0 ? sum / pixels : 0;
}

/** Runs one glance-and-stay trace with lagging uploads. */
export async function runLaggingUploads(run: LaggingRun): Promise<LaggingFigures> {
  const sim = new FrameSimulator({
    terrain: TERRAIN,
    path: glanceAndStayPath(run.seed, run.glanceFrames ?? 12),
    poolSlots: 2048,
    uploadsPerFrame: run.uploadsPerFrame ?? 4,
    feedbackLatencyFrames: 2,
    sourceLatencyFrames: 3,
    screenWidth: 1280,
    screenHeight: 720,
    recordTrace: false,
    sharpThreshold: 0.9,
    streamer: {
      uploadOrder: run.uploadOrder,
      maxConcurrentLoads: run.maxConcurrentLoads,
      stagingBytes: run.stagingBytes,
    },
  });
  const path = sim.path;
  const view = new TerrainFeedbackGenerator({
    ...TERRAIN,
    worldWidth: WORLD,
    screenWidth: 1280,
    screenHeight: 720,
    feedbackWidth: 160,
    feedbackHeight: 90,
  });
  const pose = createCameraPose();
  let blur = 0;
  for (let f = 0; f < path.frames; f++) {
    await sim.step();
    blur += blurMips(view.generate(path.poseAt(f, pose), 0, 0.5, 0.5), sim.pageTable);
  }
  const report = sim.report();
  const stats = sim.streamer.stats();
  sim.dispose();
  const stays = report.teleports.filter((_, i) => i % 2 === 1);
  const frames = stays
    .map((t) => (t.timeToSharpFrames < 0 ? Number.POSITIVE_INFINITY : t.timeToSharpFrames))
    .sort((a, b) => a - b);
  return {
    framesToSharp: frames[frames.length >> 1],
    neverSharp: stays.filter((t) => t.timeToSharpFrames < 0).length,
    meanSharp: report.meanSharpFraction,
    meanBlurMips: blur / path.frames,
    stagedPeakBytes: stats.stagedPeakBytes,
    stagingBytes: stats.stagingBytes,
    loads: report.loads,
  };
}

/**
 * The benchmark keys: each configuration runs in priority and in arrival order on the same trace.
 * `bounded`: the system's configuration (16 loads at once, the default staging bound);
 * `unbounded`: 1024 loads at once and no effective bound (the ready queue as it was, unbounded);
 * `heldout`: the bounded configuration on another seed, 8 uploads per frame and 20-frame glances
 * (never looked at while writing the policy). `vt.staging_peak_bytes` is the bounded priority run's
 * peak of staged bytes, against `vt.staging_reserve_bytes`; `vt.staging_peak_unbounded_bytes` the
 * peak with the unbounded arrival-order run (the behaviour before the bound).
 */
export async function measureUploadOrder(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const cases: [string, Omit<LaggingRun, 'uploadOrder'>][] = [
    ['bounded', { seed: 21, maxConcurrentLoads: 16 }],
    ['unbounded', { seed: 21, maxConcurrentLoads: 1024, stagingBytes: Number.POSITIVE_INFINITY }],
    ['heldout', { seed: 23, maxConcurrentLoads: 16, uploadsPerFrame: 8, glanceFrames: 20 }],
  ];
  for (const [name, run] of cases) {
    for (const uploadOrder of ['priority', 'arrival'] as const) {
      const r = await runLaggingUploads({ ...run, uploadOrder });
      out[`vt.upload_order.${name}.${uploadOrder}.stay_frames_to_sharp`] = r.framesToSharp;
      out[`vt.upload_order.${name}.${uploadOrder}.mean_sharp`] = r.meanSharp;
      out[`vt.upload_order.${name}.${uploadOrder}.mean_blur_mips`] = r.meanBlurMips;
      if (name === 'bounded' && uploadOrder === 'priority') {
        out['vt.staging_peak_bytes'] = r.stagedPeakBytes;
        out['vt.staging_reserve_bytes'] = r.stagingBytes;
      }
      if (name === 'unbounded' && uploadOrder === 'arrival')
        out['vt.staging_peak_unbounded_bytes'] = r.stagedPeakBytes;
    }
    out[`vt.upload_order.${name}.arrival_over_priority_frames`] =
      out[`vt.upload_order.${name}.arrival.stay_frames_to_sharp`] /
      out[`vt.upload_order.${name}.priority.stay_frames_to_sharp`];
  }
  return out;
}
