/**
 * The seam between the terrain and whatever textures it: Tessera's virtual texture when the plugin
 * is available, or a stand-in ordinary texture. The HUD and automation API read and drive the
 * terrain only through this interface.
 */

import type { Camera, Material, Scene } from 'three';
import type { TeleportLimit } from './teleport-latency-probe';

/** Texture filtering of the terrain's virtual texture. */
export type TerrainFiltering = 'bilinear' | 'trilinear' | 'anisotropic';

/** Debug views a surface may offer. */
export type TerrainDebugView = 'mipColours' | 'tileBorders' | 'feedbackBuffer' | 'residencyMap';

/** All debug views, in HUD order. */
export const TERRAIN_DEBUG_VIEWS: readonly TerrainDebugView[] = [
  'mipColours',
  'tileBorders',
  'feedbackBuffer',
  'residencyMap',
];

/** Run-time settings the HUD changes. */
export interface TerrainSurfaceSettings {
  /** Budget for everything Tessera allocates, bytes. */
  budgetBytes: number;
  /** Feedback pass resolution divisor (8 = 1/8 of the canvas per side). */
  feedbackScale: number;
  /** Tile uploads per frame at most. */
  maxUploadsPerFrame: number;
  filtering: TerrainFiltering;
  /** When true, page requests stop changing (to inspect what is resident). */
  freezeFeedback: boolean;
  /** UASTC tiles into block-compressed pools; false decodes them to rgba8 (`?compressed=0`). */
  compressedPool: boolean;
  /** Where page requests are written (`?feedback=main-pass|separate-pass`); undefined: the library's default. */
  feedbackMode: 'main-pass' | 'separate-pass' | undefined;
}

/** What the terrain's texturing reports each frame (zeros where the stand-in has no such thing). */
export interface TerrainSurfaceStats {
  /** Physical pool slots (pages that fit). */
  poolSlots: number;
  /** Pages resident in the pool. */
  resident: number;
  /** Page loads in flight. */
  pending: number;
  /** Distinct pages the last feedback asked for. */
  visibleRequested: number;
  /** Of those, pages resident at the requested mip. */
  visibleSharp: number;
  /** Mip bias the system applied to fit the pool (0 = none), mips. */
  mipBias: number;
  /** Resident pages the feedback touched in the last jitter cycle / resident pages (0..1; `stats().poolEfficiency`). */
  poolEfficiency: number;
  /** Texel format of each pool layer (`bc7-rgba-unorm-srgb`, `rgba8unorm`, ...); empty without a pool. */
  poolFormats: readonly string[];
  /** Tiles uploaded in the last frame. */
  uploadsLastFrame: number;
  /** Pages rendered on the GPU (runtime virtual texture; zeros for other sources). */
  rendering: {
    renderedLastFrame: number;
    renderedTotal: number;
    rerenderedTotal: number;
    refreshQueued: number;
  };
  /** Virtual-texture frame of the latest feedback analysed (-1: none yet); compare with `readbacks`. */
  lastFeedbackFrame: number;
  /**
   * Latency floor of the latest teleport, as the simulator defines its limit: feedback latency +
   * source latency (both measured, frames) + ceil(pages needed / uploads per frame); null until the
   * first tile after a teleport arrived. Compare a settle's frame count with `limitFrames`.
   */
  teleportLimit: TeleportLimit | null;
  /** Feedback readbacks started / delivered / dropped as stale / skipped. */
  readbacks: { started: number; delivered: number; dropped: number; skipped: number };
  /** Pages whose loads failed for good, cooling down (`stats().streaming.failed` of the virtual texture). */
  failedPages: number;
  /** HTTP retries of the terrain's tile source (`stats().streaming.retries`; 0 when it does not load over HTTP). */
  retries: number;
  /** Bytes the terrain's texturing holds on the GPU, by budget category. */
  bytesByCategory: Record<string, number>;
}

/** Stats with nothing to report yet; each surface fills in what it has. */
export function emptySurfaceStats(): TerrainSurfaceStats {
  return {
    poolSlots: 0,
    resident: 0,
    pending: 0,
    visibleRequested: 0,
    visibleSharp: 0,
    mipBias: 0,
    poolEfficiency: 1,
    poolFormats: [],
    uploadsLastFrame: 0,
    rendering: { renderedLastFrame: 0, renderedTotal: 0, rerenderedTotal: 0, refreshQueued: 0 },
    lastFeedbackFrame: -1,
    teleportLimit: null,
    readbacks: { started: 0, delivered: 0, dropped: 0, skipped: 0 },
    failedPages: 0,
    retries: 0,
    bytesByCategory: {},
  };
}

/** Texturing of the terrain. */
export interface TerrainSurface {
  /** `virtual-texture` when Tessera's plugin drives it; `stand-in` for an ordinary texture. */
  readonly kind: 'virtual-texture' | 'stand-in';
  /** The material every terrain chunk uses. */
  readonly material: Material;
  /** Debug views this surface implements (the HUD disables the others). */
  readonly debugViews: readonly TerrainDebugView[];
  /** True once every visible texel has something to show (the coarsest mip is resident). */
  readonly isReady: boolean;
  /** Errors the texturing reported (failed tile loads), as messages. */
  readonly errors: readonly string[];
  /** Called once per frame before `renderer.render`. */
  update(camera: Camera, scene: Scene): void;
  /** Applies HUD settings (a surface ignores what it cannot change). */
  applySettings(settings: TerrainSurfaceSettings): void;
  setDebugView(view: TerrainDebugView, enabled: boolean): void;
  /** Mips added to what the terrain's texture reads and requests (virtual texture only). */
  setLodBias?(mips: number): void;
  /** The camera jumped: measure the new place's latency floor. */
  markTeleport(): void;
  /** False until a feedback rendered after the latest teleport has arrived (stale requests otherwise). */
  readonly feedbackCaughtUp: boolean;
  stats(): TerrainSurfaceStats;
  dispose(): void;
}
