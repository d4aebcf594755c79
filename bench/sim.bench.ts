import { type CameraPath, flyOverPath, orbitPath, pingPongPath, teleportPath } from '../src/sim/camera-paths';
import { FrameSimulator, type FrameSimulatorOptions } from '../src/sim/frame-simulator';
import { measureUploadOrder } from './upload-order';

/**
 * Simulator-driven benchmarks (issue 3, section 8): cache efficiency of the default policy against
 * Belady's optimum on three camera paths, time-to-sharp after teleports against the latency floor,
 * and heap growth over a long run. All figures are counts or frames (deterministic), except the
 * heap figure. Comparisons of replacement policies (other policies, held-out and tuning paths,
 * resizes) are the lab's: `npm run bench:lab`.
 */

// 1024 x 1024 pages of 120 payload texels (128K²); one world unit per mip-0 texel.
export const TERRAIN = { widthPages: 1024, heightPages: 1024 };
export const WORLD = 1024 * 120;
export const SHAPE = { worldWidth: WORLD, worldDepth: WORLD, altitude: 150 };

/**
 * Settings of the cache runs: uploads and latency never limit and the mip bias stays at 0 (it would
 * shrink the requests of an oversubscribed pool), so only the eviction policy counts.
 */
export const CACHE_RUN: Omit<FrameSimulatorOptions, 'path' | 'poolSlots' | 'terrain'> = {
  uploadsPerFrame: 1 << 20,
  feedbackLatencyFrames: 1,
  sourceLatencyFrames: 0,
  applyMipBias: false,
};

/** The three paths of the cache figures: a fly-over, a ping-pong and 4 revolutions of an orbit. */
export function cachePaths(): CameraPath[] {
  return [
    flyOverPath({ ...SHAPE, seed: 11, frames: 900, speed: 6 }),
    pingPongPath({ ...SHAPE, seed: 12, frames: 960, legFrames: 120, length: 2400 }),
    orbitPath({ ...SHAPE, seed: 13, frames: 1440, periodFrames: 360, radius: 600 }), // 4 revolutions
  ];
}

/** Report key of each of {@link cachePaths} by path name. */
export const PATH_KEYS: Record<string, string> = { flyover: 'flyover', pingpong: 'pingpong', orbit: 'orbit' };

/** Runs `path` twice: with a pool holding everything (to measure the union), then at half of it. */
export async function measureCachePath(path: CameraPath): Promise<{
  union: number;
  capacity: number;
  loads: number;
  optLoads: number;
  evictions: number;
  maxFrame: number;
  mipBias: number;
}> {
  const big = new FrameSimulator({ ...CACHE_RUN, terrain: TERRAIN, path, poolSlots: 65536 });
  const full = await big.run();
  big.dispose();
  const pinned = big.pageTable.layout.pinnedPages;
  const capacity = Math.floor(full.workingSetUnion / 2);
  const sim = new FrameSimulator({ ...CACHE_RUN, terrain: TERRAIN, path, poolSlots: pinned + capacity });
  const half = await sim.run();
  sim.dispose();
  return {
    union: full.workingSetUnion,
    capacity,
    loads: half.loads,
    optLoads: half.optLoads,
    evictions: half.evictions,
    maxFrame: half.maxFrameWorkingSet,
    mipBias: half.finalMipBias,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Teleports between far places with realistic latency and a 32-tile upload budget. */
export async function measureTeleports(): Promise<{ timeToSharp: number; limit: number; never: number }> {
  const path = teleportPath({ ...SHAPE, seed: 21, frames: 11 * 90, holdFrames: 90 });
  const sim = new FrameSimulator({
    terrain: TERRAIN,
    path,
    poolSlots: 4096,
    uploadsPerFrame: 32,
    feedbackLatencyFrames: 2,
    sourceLatencyFrames: 3,
    recordTrace: false,
  });
  const report = await sim.run();
  sim.dispose();
  // Frame 0 also loads the pinned mips: leave it out.
  const jumps = report.teleports.slice(1);
  return {
    timeToSharp: median(
      jumps.map((t) => (t.timeToSharpFrames < 0 ? Number.POSITIVE_INFINITY : t.timeToSharpFrames)),
    ),
    limit: median(jumps.map((t) => t.limitFrames)),
    never: jumps.filter((t) => t.timeToSharpFrames < 0).length,
  };
}

/** Heap growth after GC over 10,000 frames of teleports with failures (warm-up excluded). */
export async function measureSoak(frames = 10_000): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const warmup = 600;
  const path = teleportPath({ ...SHAPE, seed: 31, frames: warmup + frames, holdFrames: 45 });
  const sim = new FrameSimulator({
    terrain: TERRAIN,
    path,
    poolSlots: 1024,
    uploadsPerFrame: 16,
    feedbackLatencyFrames: 2,
    sourceLatencyFrames: 2,
    failureProbability: 0.02,
    screenWidth: 960,
    screenHeight: 540,
    recordTrace: false,
  });
  await sim.run(warmup);
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc?.();
  const before = process.memoryUsage().heapUsed;
  await sim.run(frames);
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc?.();
  const after = process.memoryUsage().heapUsed;
  sim.dispose();
  return after - before;
}

export default {
  name: 'sim',
  async run(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const path of cachePaths()) {
      const key = PATH_KEYS[path.name];
      const r = await measureCachePath(path);
      out[`cache.${key}.loads`] = r.loads;
      out[`cache.${key}.opt_loads`] = r.optLoads;
      out[`cache.${key}.ratio`] = r.loads / r.optLoads;
      out[`cache.${key}.pool_pages`] = r.capacity;
      out[`cache.${key}.union_pages`] = r.union;
    }
    const t = await measureTeleports();
    out['sim.teleport.time_to_sharp_frames'] = t.timeToSharp;
    out['sim.teleport.limit_frames'] = t.limit;
    out['sim.teleport.ratio'] = t.timeToSharp / t.limit;
    Object.assign(out, await measureUploadOrder());
    out['sim.soak.heap_growth_bytes'] = await measureSoak();
    return out;
  },
};
