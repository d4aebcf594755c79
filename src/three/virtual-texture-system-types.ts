import type { TextureBudgetStats } from '../core/budget/texture-budget-options';
import type { TesseraError } from '../core/errors';
import type { StreamingProgress } from '../core/streaming/streaming-progress';
import type { PageTableStorage } from '../core/vt/page-table/page-table-blocks';
import type { PoolTexelFormat } from '../core/vt/residency/pool-format';
import type { TileRenderCounters } from './page-producers';
import type { VirtualTexture, VirtualTextureLayerMapping } from './virtual-texture';

/** Options of {@link VirtualTextureSystem.add}. */
export interface VirtualTextureAddOptions {
  /** Name used in GPU labels. Default `vt<index>`. */
  name?: string;
  /** Which pool layer each source layer goes to (default: by name, else by position). */
  layers?: VirtualTextureLayerMapping;
  /**
   * Page-table storage: `'auto'` (default) stores tables of at most 256 KiB (up to 128 x 128 pages)
   * densely, one page-table fetch per sample, when that takes at most a quarter of what is left of
   * `pageTableBytes`; others sparsely (memory follows the view, two dependent fetches).
   * `'dense'` / `'sparse'` force one.
   */
  pageTableStorage?: PageTableStorage;
}

/** Budget reservations a {@link VirtualTextureSystem} holds, by budget category, in bytes. */
export interface VirtualTextureReservedBytes {
  /** The physical pool's textures (every layer). */
  'vt-pool': number;
  /** The page-table reserve (`pageTableBytes`), dense and sparse tables alike. */
  'page-table': number;
  /** The feedback target (colour and depth), or in main-pass mode the tile buffer, hash table and list. */
  feedback: number;
  /** The ring of feedback readback buffers. */
  readback: number;
  /**
   * The staging reserve (see `stagingBytes`; {@link VirtualTextureStreamingState.stagedBytes} is its
   * use), plus the render targets of rendered textures once one is added.
   */
  staging: number;
}

/** Exact GPU bytes Tessera holds, by category. */
export interface VirtualTextureGpuBytes {
  /** Pool texture of each layer (whole blocks for block formats), in bytes. */
  poolLayers: number[];
  /** All page-table textures together, in bytes. */
  pageTables: number;
  /** Feedback colour + depth targets, in bytes. */
  feedbackTargets: number;
  /** Readback buffers (WebGPU ring), in bytes. */
  readbackBuffers: number;
  /** Render targets of rendered textures (one tile-sized per pool layer) and their GPU compressors' buffers, once one rendered, in bytes. */
  renderTargets: number;
  /** Sum of the above, in bytes. */
  total: number;
}

/** A snapshot of the system's state (see {@link VirtualTextureSystem.stats}). */
export interface VirtualTextureSystemStats {
  /** Frames run through {@link VirtualTextureSystem.update}. */
  frame: number;
  /** GPU bytes by category (what exists now; at most {@link byCategory}). */
  gpuBytes: VirtualTextureGpuBytes;
  /** Bytes reserved in the budget by category (equal to the budget's figures when it is not shared). */
  byCategory: VirtualTextureReservedBytes;
  /**
   * The page tables' share (`pageTableBytes`), in bytes: their reservation (`byCategory['page-table']`,
   * exactly their GPU bytes) grows and shrinks within it, and the pool is sized without it.
   */
  pageTableShareBytes: number;
  /**
   * Texel format of each pool layer's texture (WebGPU names: `bc7-rgba-unorm-srgb`, `rgba8unorm`,
   * ...), chosen once from the device.
   */
  poolFormats: PoolTexelFormat[];
  /** Pool slots in total. */
  slotCount: number;
  /** Pool slots holding a page. */
  residentPages: number;
  /** Tiles written into the pool during the latest update. */
  uploadsLastFrame: number;
  /** Tiles written since creation. */
  uploadsTotal: number;
  /** Current residency mip bias, in mips. */
  mipBias: number;
  /** Pages of rendered textures (`RenderedTileSource`) rendered on the GPU. */
  rendering: TileRenderCounters;
  /**
   * Resident pages the feedback touched during the last 16-frame jitter cycle (requested, or
   * listed as an ancestor of a request: the fallback chain; pinned pages alike) over resident
   * pages (0..1; see `poolEfficiency` in @tessera-vt/tessera/core).
   */
  poolEfficiency: number;
  /**
   * Feedback readbacks started / delivered / dropped as stale, and frames skipped: all 3 readback
   * slots were in flight, so that frame's feedback was not read. `bytesRead`: bytes mapped by the
   * readbacks delivered, in bytes; `analysisMs`: CPU time analysing them, in milliseconds; both
   * since creation. `skippedStill`: frames whose separate pass was left out because the view was
   * still (the `stillFeedbackInterval` option), since creation.
   */
  readbacks: {
    started: number;
    delivered: number;
    dropped: number;
    skipped: number;
    skippedStill: number;
    bytesRead: number;
    analysisMs: number;
  };
  /**
   * `'main-pass'` (requests written by your render, WebGPU) or `'separate-pass'` (a second,
   * low-resolution render).
   */
  feedbackMode: 'main-pass' | 'separate-pass';
  /** Feedback target size (main pass: the grid of screen tiles) now, in feedback pixels. */
  feedbackSize: { width: number; height: number };
  /** Where streaming stands: done when {@link VirtualTextureStreamingState.settled}. */
  streaming: VirtualTextureStreamingState;
  /** The budget's figures by category and tag (shared with the runtime's other systems), in bytes. */
  budget: TextureBudgetStats;
}

/** Where streaming stands (see {@link VirtualTextureSystem.whenSettled}). */
export interface VirtualTextureStreamingState extends StreamingProgress {
  /** Loaded tiles waiting to be written into the pool (at most `maxUploadsPerFrame` per frame). */
  awaitingUpload: number;
  /**
   * Bytes staged now: tiles loaded but not yet written plus loads in flight, in bytes (at most
   * `byCategory.staging`).
   */
  stagedBytes: number;
  /** Frame the latest analysed feedback was rendered at (0 before the first). */
  lastFeedbackFrame: number;
}

/** The `error` event of a {@link VirtualTextureSystem} (the streaming system's has the same shape). */
export interface VirtualTextureErrorEvent {
  /** What failed. */
  error: TesseraError;
  /** The texture whose page failed. */
  texture: VirtualTexture;
  /** The page (`page-id.ts` packing) that failed. */
  pageId: number;
  /**
   * The failed texture's id.
   * @deprecated Use `texture.id`.
   */
  vt: number;
}

/** Events of a {@link VirtualTextureSystem}. */
export interface VirtualTextureSystemEvents {
  /** A tile failed to load or upload; the page keeps its coarser fallback. */
  error: VirtualTextureErrorEvent;
  /**
   * A page was written into the pool and mapped in its page table during frame `frame` (one reused
   * object: copy fields to keep them).
   */
  'page-loaded': { vt: number; pageId: number; slot: number; frame: number };
  /**
   * A resident page was loaded again, improved by its source (an imagery page whose border had
   * stood in for a neighbouring source tile: `TileSource.watchPages`), and written over its slot
   * during frame `frame` (one reused object).
   */
  'page-refreshed': { vt: number; pageId: number; slot: number; frame: number };
  /** A page was evicted from the pool to make room (one reused object). */
  'page-evicted': { vt: number; pageId: number; slot: number; frame: number };
  /**
   * A feedback readback was analysed; `ids` (packed page ids per feedback pixel, row by row, `width`
   * x `height` feedback pixels) is valid during the call (one reused object). `frame` is the frame
   * it was rendered in; `jitterFrame` the index into the 16-frame jitter sequence it was rendered
   * at (`feedbackJitterX(jitterFrame)`): the frame itself for main-pass feedback, the count of
   * separate passes rendered for a separate pass (which skips frames: busy readbacks, a still view).
   */
  feedback: { frame: number; jitterFrame: number; ids: Uint32Array; width: number; height: number };
}
