/**
 * The demo's automation API: a contract that tests and external tools rely on. Open the page with
 * URL parameters (see ./params.ts: `backend`, `budget` MiB, `seed`, `size` WxH, `hud` 0/1,
 * `source` procedural|archive, `auto` 0/1, `assets` the base URL every asset is downloaded from),
 * then drive `window.demo`.
 *
 * Network faults: every download is retried with backoff when the failure is transient (5xx,
 * resets, timeouts, cut or mismatched bodies); `stats()` counts the retries and what failed for good
 * (`vt.failedPages`, `streamed.failedLevels`), and a transition whose files fail for good rejects
 * with a `TileSourceError` (`code`, `retryable`), the old region staying (`stats().transitions`).
 *
 * ```js
 * await demo.ready;
 * demo.teleport({ x: -1350, z: 50, height: 30, yaw: 0, pitch: -0.2 });
 * const { frames, settled } = await demo.settle({ maxFrames: 300 });
 * const { peakBytes, naivePeakBytes } = await demo.transition('desert');
 * console.log(demo.stats().usedBytes);
 * ```
 */

import type { CameraPose } from './camera/camera-pose';
import type { PlainThreeEstimate } from './comparison/plain-three-estimate';
import type { SharpnessFigures } from './comparison/sharpness-inset';
import type { GpuTimingStats } from './gpu-timings';
import type { TransitionCounters, TransitionResult } from './scenes/region-scenes';
import type { TerrainDebugView, TerrainSurfaceStats } from './terrain/terrain-surface';

export type { CameraPose } from './camera/camera-pose';
export type { TransitionCounters, TransitionResult } from './scenes/region-scenes';
export type { TeleportLimit } from './terrain/teleport-latency-probe';
export type { TerrainDebugView } from './terrain/terrain-surface';

/**
 * Virtual-texture figures of the terrain (all zero while the terrain uses the stand-in texture):
 * the terrain surface's figures less its per-frame upload count and byte split (see
 * {@link TerrainSurfaceStats} for each field).
 */
export type DemoVtStats = Omit<TerrainSurfaceStats, 'uploadsLastFrame' | 'bytesByCategory'>;

/** Ordinary (streamed) prop textures, managed by Tessera's TextureStreamingSystem. */
export interface DemoStreamedStats {
  /** Live streamed textures (placeholder, pinned or finer chain bound). */
  count: number;
  /** Their bytes on the GPU (the budget's `streamed` category). */
  residentBytes: number;
  /** Chain loads in flight. */
  loadsInFlight: number;
  /** Chain loads that failed for good after the HTTP retries (each reported once as an error). */
  failedLevels: number;
  /** HTTP retries of the prop scenes' files (`.glb`, KTX2) after transient failures. */
  retries: number;
}

/** Main-thread time and frame rate, averaged over about the last 10 frames. */
export interface DemoCpuStats {
  /**
   * CPU milliseconds of the demo's frame on the main thread: camera, terrain, Tessera's updates and
   * three's render calls (command encoding and submission, not the GPU's work).
   */
  frameMs: number;
  /** Wall-clock milliseconds between animation frames (0 until two live frames ran; none with `?auto=0`). */
  frameIntervalMs: number;
  /** Frames per second shown, 1000 / `frameIntervalMs` (null until measured). */
  framesPerSecond: number | null;
}

/** What is still on its way to the screen. */
export interface DemoInFlight {
  /** Virtual-texture pages queued, loading or loaded and awaiting upload. */
  pages: number;
  /** Runtime virtual-texture pages queued for a re-render (after `invalidate`). */
  renders: number;
  /** Streamed texture levels (the props') loading. */
  levels: number;
  /** Terrain chunks whose geometry is being built. */
  chunks: number;
  /** True while a region transition runs. */
  regionChange: boolean;
}

/** A snapshot of the demo, `window.demo.stats()`. */
export interface DemoStats {
  /** Frames rendered since load. */
  frame: number;
  /** Backend the renderer runs on. */
  backend: 'webgpu' | 'webgl';
  /** The budget (one `TextureBudget` for everything Tessera allocates), bytes. */
  budgetBytes: number;
  /** Bytes reserved in the budget now (virtual texture + streamed textures + placeholders). */
  usedBytes: number;
  /** Highest `usedBytes` since the last transition started (or since load), bytes. */
  peakBytes: number;
  /** `usedBytes` by budget category (`vt-pool`, `page-table`, `feedback`, `readback`, `streamed`, `other`). */
  byCategory: Record<string, number>;
  /** Bytes by lifetime tag (`scene:valley`, ...); untagged reservations are left out. */
  byTag: Record<string, number>;
  vt: DemoVtStats;
  streamed: DemoStreamedStats;
  /** The active region (scene), or null before the first one is loaded. */
  scene: string | null;
  /** Region transitions completed and rejected, and region loads attempted again after a retryable failure. */
  transitions: TransitionCounters;
  /**
   * GPU time from timestamp queries (`available: false` and null figures where the device has
   * none): a frame's render passes and Tessera's own (the feedback pass), milliseconds per frame.
   */
  gpu: GpuTimingStats;
  /** Main-thread time and frame rate, averaged over about the last 10 frames (see {@link DemoCpuStats}). */
  cpu: DemoCpuStats;
  /** What is still on its way to the screen; `settle` waits for all of it to be 0. */
  inFlight: DemoInFlight;
  /** What `settle` waits for: nothing in flight, the feedback caught up with the view, every page it asks for sharp. */
  settled: boolean;
  /**
   * Tessera beside plain three.js: whether comparison mode is on (`?compare=1`, the HUD, the tour's
   * end), Tessera's live bytes, and what plain three.js would need for the same scene (every texture
   * fully resident, the terrain as the device's largest texture per layer), bytes; and the close-up
   * pair's measured sharpness (Tessera's terrain against the stand-in texture, captured while
   * comparison mode is on; null on the `?vt=0` stand-in terrain).
   */
  comparison: {
    compare: boolean;
    tesseraBytes: number;
    plainThree: PlainThreeEstimate;
    sharpness: SharpnessFigures | null;
  };
  /**
   * Which implementation each part runs on: the terrain's texturing (`stand-in` with `?vt=0`), its
   * tile source, the budget, and how the virtual texture sits in it (`shared`: the
   * VirtualTextureSystem reserves its share in the budget of the demo's one TesseraRuntime).
   */
  implementation: {
    terrain: 'virtual-texture' | 'stand-in';
    terrainSource: 'rendered' | 'procedural' | 'archive' | 'uastc';
    budget: 'texture-budget';
    virtualTextureBudget: 'shared';
  };
  /** Errors the demo caught (error events, failed loads), as messages. */
  errors: string[];
}

/** Result of `settle()`. */
export interface SettleResult {
  /** Frames rendered while settling. */
  frames: number;
  /** True when nothing visible was pending at the end; false when `maxFrames` ran out first. */
  settled: boolean;
}

/** `window.demo`. */
export interface DemoAutomation {
  /** Resolves when the first frame can be rendered (scene built, first region loaded). */
  ready: Promise<void>;
  /** Scene (region) names accepted by `transition()`. */
  scenes: string[];
  /** Renders `n` frames (with `?auto=0` these are the only frames; each advances time by 1/60 s). */
  renderFrames(n: number): Promise<void>;
  /** Moves the camera; `height` is metres above the ground at (x, z). */
  teleport(pose: CameraPose): void;
  /** Switches region; resolves after the old scene's textures are released. */
  transition(name: string): Promise<TransitionResult>;
  /**
   * Renders until no visible page or terrain chunk is pending, judged on a feedback rendered after
   * the latest teleport, at most `maxFrames` frames.
   */
  settle(options?: { maxFrames?: number }): Promise<SettleResult>;
  stats(): DemoStats;
  /**
   * Changes the budget (MiB, like `?budget=`): the shared budget sheds streamed mips within a few
   * frames and the virtual texture is rebuilt with its new share.
   */
  setBudget(mib: number): void;
  /**
   * Turns a debug view on or off: `mipColours` and `tileBorders` shade the terrain,
   * `feedbackBuffer` and `residencyMap` are overlays (canvases with `data-debug-view`). Throws for a
   * view the terrain does not offer (the `?vt=0` stand-in offers none).
   */
  setDebugView(view: TerrainDebugView, enabled: boolean): void;
  /**
   * Adds `mips` to the mip the terrain's virtual texture reads and requests (like `?lodBias=`; 2
   * shows mip 2 where mip 0 would be): the sharpness comparison of the runtime virtual texture.
   * Throws for the `?vt=0` stand-in.
   */
  setLodBias(mips: number): void;
  /**
   * Turns comparison mode on or off, as `?compare=1` and the HUD's checkbox: Tessera's bytes beside
   * plain three.js's, and the close-up pair (`[data-compare="tessera"]` and
   * `[data-compare="plain-three"]`, captured in the same frame from the same camera).
   */
  setCompare(on: boolean): void;
}

declare global {
  interface Window {
    /** The demo's automation API (see demo/automation.ts). */
    demo: DemoAutomation;
    /**
     * Optional probe a test installs before the page loads (an init script): the demo calls it with
     * `'before-tessera'` once the renderer is initialised and has drawn one empty frame, before any
     * Tessera allocation (so a GPU tracker can take its baseline there).
     */
    demoProbe?: (phase: 'before-tessera') => void;
  }
}

/** Installs `window.demo` at once (so `await demo.ready` works before the scene exists). */
export function installAutomation(api: DemoAutomation): void {
  window.demo = api;
}
