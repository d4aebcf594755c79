import type { TextureBudget } from '../core/budget/texture-budget';
import { warnDeprecated } from '../core/deprecation';
import { TesseraConfigError } from '../core/errors';
import type { UastcTarget } from '../core/vt/residency/pool-format';
import type { ReplacementPolicyName } from '../core/vt/residency/replacement-policy';
import { defaultStagingReserve } from '../core/vt/scheduling/staging-reserve';
import { tileBytes } from '../core/vt/tile-bytes';
import type { TileEncoding } from '../core/vt/tile-source';
import type { FeedbackMode } from '../core/vt/vt-budget-plan';
import { VirtualTextureLayout } from '../core/vt/vt-layout';
import { checkRenderedLayerOptions } from './page-producers';
import type { VirtualTextureFiltering } from './sampling/sampling-context';
import { checkSystemRuntimeOptions, type TesseraRuntime } from './tessera-runtime';
import type { VirtualTexturePoolLayer } from './virtual-texture';

/** Options of a {@link VirtualTextureSystem}. */
export interface VirtualTextureSystemOptions {
  /**
   * Which idle page the pool evicts: `lhd` (default) or `lru` (see
   * `PhysicalPoolOptions.replacementPolicy`).
   */
  replacementPolicy?: ReplacementPolicyName;
  /**
   * The runtime whose budget, network client and workers this system shares with the other
   * systems and sources given it; the runtime's `update` drives this system and its `dispose`
   * disposes it. Without one the system makes its own from {@link budgetBytes}.
   */
  runtime?: TesseraRuntime;
  /**
   * Without a {@link runtime}: every GPU byte this system may allocate (pool, page tables,
   * feedback, readback), in bytes, the budget of the runtime it makes. Not given with a runtime
   * (its budget is the runtime's; see {@link shareBytes}).
   */
  budgetBytes?: number;
  /**
   * With a {@link runtime}: this system's share of the runtime's budget, in bytes (default: all of
   * the budget's free bytes, which leaves nothing to other users, so give a share when sharing).
   * Without one it is {@link budgetBytes}.
   */
  shareBytes?: number;
  /**
   * A budget shared with other users, with {@link budgetBytes} as this system's share.
   * @deprecated Give a {@link runtime} (its budget) and {@link shareBytes}.
   */
  budget?: TextureBudget;
  /**
   * Fewest pool slots the system accepts, in pages; a budget that cannot hold them with the page
   * tables, feedback and readback is refused at construction. Default 21 (the pinned 1 + 4 + 16
   * pages of one texture's three coarsest mips).
   */
  minPoolSlots?: number;
  /** Pages of an evictable texture (see `setEvictable`) freed per frame at most. Default 64. */
  evictPagesPerFrame?: number;
  /**
   * Largest side of one pool texture (of one array layer), in texels; at most, and by default, the
   * backend's `maxTextureDimension2D`. When the budget holds more slots than one such texture,
   * each pool layer becomes a 2D array texture (up to the backend's `maxTextureArrayLayers` array
   * layers). Lower it to use array textures at a small scale (tests).
   */
  maxPoolTextureSize?: number;
  /**
   * Tile side including border, in texels (a multiple of 4, 8..1024); every added source must
   * match. Default 128. For imagery of 256-texel tiles, 264 with a border of 4 makes each page one
   * source tile (docs/imagery.md).
   */
  tileSize?: number;
  /** Border inside each tile side, in texels; every added source must match. Default 4. */
  border?: number;
  /**
   * Screen pixels per feedback pixel along each axis (any positive integer): the side of the screen
   * tile that requests one page per frame. Default 8.
   */
  feedbackScale?: number;
  /**
   * Where page requests are written. `'main-pass'` (the default on WebGPU): by the sampling nodes
   * during your own render, one pixel per screen tile, compacted on the GPU, so the scene is drawn
   * once. `'separate-pass'`: a low-resolution second render of the scene (always on WebGL2, which
   * has no storage buffers in fragment shaders). In the main pass a surface hidden only by meshes
   * without a virtual texture still requests when it is drawn after them (WebGPU cannot force
   * early depth tests on a shader writing storage); the separate pass draws every mesh as an
   * occluder. See ARCHITECTURE.md, "Feedback".
   */
  feedbackMode?: FeedbackMode;
  /**
   * Frames between separate feedback passes (`feedbackMode` `'separate-pass'`, always on WebGL2)
   * while the view is still, a positive integer. Default 4: a still view costs a quarter of the
   * pass, and its 16 jitter offsets are still all visited (the jitter advances per pass rendered,
   * one cycle in 64 frames, about 1 s at 60 fps). The view counts as still when the camera
   * (world and projection matrices, layers), the feedback size and every visible mesh the pass
   * draws (world matrix, material version, geometry, instance matrices, bones, morph influences)
   * are unchanged since the previous frame, for at least one jitter cycle (16 frames): the first
   * frames after a move, a teleport included, render the pass every frame as with 1, and any
   * change returns to every frame at once. Changes the check cannot see (a TSL uniform animated by
   * the app, such as a scrolling uv or a time-driven displacement) are then requested at this
   * lower rate: set 1 for such scenes. Ignored with main-pass feedback (no pass to skip). Change it
   * live with {@link VirtualTextureSystem.setStillFeedbackInterval}.
   */
  stillFeedbackInterval?: number;
  /**
   * Frames a requested page may go unrequested before its queued or running load is dropped, once
   * two feedback readbacks arrived without it too (so slow readbacks abort nothing). Default 8.
   */
  abortAfterFrames?: number;
  /**
   * Frames a page that failed permanently (its error is in the `error` event) waits before a new
   * request may load it again: a source that recovers heals the page, one that stays broken costs
   * one failed load per page per period. Default 300.
   */
  failedCooldownFrames?: number;
  /** Most tiles written into the pool per frame. Default 16. */
  maxUploadsPerFrame?: number;
  /**
   * Most pages of rendered textures (`RenderedTileSource`) rendered on the GPU per frame, new pages
   * and re-renders of invalidated ones together (they count as uploads too). Default 4.
   */
  maxRendersPerFrame?: number;
  /**
   * Staging reserve, in bytes: tiles loaded but not yet written into the pool plus loads in flight
   * (each counted at its source's tile size, all layers) never pass it; when it is full no new load
   * starts until uploads make room (nothing is lost). Reserved in the budget under `staging`, part
   * of this system's share. Must hold one tile of every texture added (else `add` throws
   * 'budget-too-small'). Default: room for 16 loads in flight plus two frames of
   * {@link maxUploadsPerFrame} tiles of the pool's layers, at most an eighth of the share (in whole
   * tiles, at least one).
   */
  stagingBytes?: number;
  /** Pool filtering. Default 'bilinear'. */
  filtering?: VirtualTextureFiltering;
  /**
   * Largest anisotropy ratio, as three's `Texture.anisotropy` (feedback footprint, and sampling in
   * 'anisotropic'), 1..16. Default 8.
   */
  anisotropy?: number;
  /**
   * Anisotropic filtering, 1..16.
   * @deprecated Use {@link anisotropy} (the same).
   */
  maxAnisotropy?: number;
  /**
   * Each pool layer (one pool texture each): an encoding, or a name and an encoding (and for UASTC
   * layers a usage and optionally a forced target) so that sources map their layers onto it by
   * name. Unnamed layers are called `layer<i>`. Default ['rgba8unorm-srgb']. A UASTC layer's pool
   * texture is in the device's best block format, chosen once here (`stats().poolFormats`).
   */
  layers?: readonly (TileEncoding | VirtualTexturePoolLayer)[];
  /**
   * Targets UASTC layers may be transcoded to, intersected with what the device offers. Default:
   * all. With none compressed left, UASTC layers are decoded to rgba8 (warned once).
   */
  uastcTargets?: readonly UastcTarget[];
  /**
   * Folder (a URL, absolute or relative to the page) holding three's `basis_transcoder.js` and
   * `basis_transcoder.wasm`, which the transcode workers fetch on the first UASTC texture (about
   * 0.6 MB), as three's `KTX2Loader.setTranscoderPath` takes it: e.g. a copy of three's
   * `examples/jsm/libs/basis/` served with the application, or a CDN's
   * (`https://cdn.jsdelivr.net/npm/three@0.187.0/examples/jsm/libs/basis/`; cross-origin needs
   * CORS). Default: the copy shipped in the package's `dist/basis/`, found beside the library's
   * own files; Vite and webpack emit it with the application, a page loading the library
   * unbundled (import map, CDN) finds it as is, and with esbuild or Rollup (which leave
   * `new URL(..., import.meta.url)` alone) copy the folder beside the bundle or set this option.
   * @throws (rejects each UASTC tile load) TileSourceError('transcoder-unavailable') when the
   *   files cannot be fetched or started; the system's `error` event reports it.
   */
  transcoderPath?: string;
  /** Transcode workers, 1..16. Default: hardware threads - 1, at most 4. Started on the first UASTC texture. */
  transcodeWorkers?: number;
  /**
   * The page tables' share of the budget, in bytes: the pool is sized without it, and the page
   * tables' reservation (exactly the bytes they hold: per texture its indirection, about w h / 192
   * bytes for w x h pages, plus 2 KiB per stored 16 x 16-page block) grows and shrinks within it.
   * A view needing more blocks than it allows raises the mip bias. Default: budgetBytes / 16,
   * clamped to 1..16 MiB.
   */
  pageTableBytes?: number;
}

/** Smallest default page-table share, in bytes. */
const MIN_PAGE_TABLE_BYTES = 1 << 20;
/** Largest default page-table share, in bytes (sparse tables of several 4096²-page textures fit well within it). */
const MAX_PAGE_TABLE_BYTES = 16 << 20;
/** Pinned pages of one texture with the default three pinned mips (1 + 4 + 16). */
const DEFAULT_MIN_POOL_SLOTS = 21;

/**
 * Frames between separate feedback passes on a still view: 4 cuts the pass to a quarter while a
 * whole jitter cycle still takes about a second at 60 fps, and a change the stillness check
 * cannot see is still requested within 4 frames.
 */
const DEFAULT_STILL_FEEDBACK_INTERVAL = 4;

/** {@link VirtualTextureSystemOptions} validated, with every default applied. */
export interface ResolvedSystemOptions {
  /** The runtime given, if any. */
  runtime: TesseraRuntime | undefined;
  /** The runtime's budget, or the deprecated `budget` option's. */
  sharedBudget: TextureBudget | undefined;
  /** Replacement policy of the pool (undefined: the pool's default). */
  replacementPolicy: ReplacementPolicyName | undefined;
  /** This system's share, in bytes. */
  shareBytes: number;
  minPoolSlots: number;
  evictPagesPerFrame: number;
  maxPoolTextureSize: number | undefined;
  tileSize: number;
  border: number;
  feedbackScale: number;
  feedbackMode: FeedbackMode;
  /** Frames between separate feedback passes while the view is still. */
  stillFeedbackInterval: number;
  maxUploadsPerFrame: number;
  maxRendersPerFrame: number;
  /** Staging reserve, in bytes. */
  stagingBytes: number;
  abortAfterFrames: number | undefined;
  failedCooldownFrames: number | undefined;
  filtering: VirtualTextureFiltering;
  anisotropy: number;
  layers: VirtualTexturePoolLayer[];
  pageTableBytes: number;
  uastcTargets: readonly UastcTarget[] | undefined;
  transcoderPath: string | undefined;
  transcodeWorkers: number | undefined;
}

/** `value` when it is a positive integer. @throws TesseraConfigError('invalid-option') */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TesseraConfigError('invalid-option', `${name} must be a positive integer, got ${value}`);
  }
  return value;
}

/** `mode` when it is a filtering mode. @throws TesseraConfigError('invalid-option') */
export function checkFiltering(mode: VirtualTextureFiltering): VirtualTextureFiltering {
  if (mode !== 'bilinear' && mode !== 'trilinear' && mode !== 'anisotropic') {
    throw new TesseraConfigError('invalid-option', `unknown filtering '${mode as string}'`);
  }
  return mode;
}

/**
 * Validates `options` and applies the defaults.
 * @throws TesseraConfigError('invalid-option' | 'invalid-layers' | 'invalid-tile')
 */
export function resolveSystemOptions(options: VirtualTextureSystemOptions): ResolvedSystemOptions {
  const runtime = options.runtime;
  checkSystemRuntimeOptions(options, 'VirtualTextureSystemOptions');
  for (const [name, bytes] of [
    ['budgetBytes', options.budgetBytes],
    ['shareBytes', options.shareBytes],
  ] as const) {
    if (bytes !== undefined && (!(bytes > 0) || !Number.isFinite(bytes))) {
      throw new TesseraConfigError('invalid-option', `${name} must be positive, got ${bytes}`);
    }
  }
  if (options.maxAnisotropy !== undefined)
    warnDeprecated('VirtualTextureSystemOptions.maxAnisotropy', 'anisotropy');
  const tileSize = positiveInteger('tileSize', options.tileSize ?? 128);
  const border = options.border ?? 4;
  // Validates tile size and border the same way a layout does.
  new VirtualTextureLayout({ widthPages: 1, heightPages: 1, tileSize, border });
  const filtering = checkFiltering(options.filtering ?? 'bilinear');
  const anisotropy = options.anisotropy ?? options.maxAnisotropy ?? 8;
  if (!(anisotropy >= 1 && anisotropy <= 16)) {
    throw new TesseraConfigError('invalid-option', `anisotropy must be in 1..16, got ${anisotropy}`);
  }
  const layers = (options.layers ?? ['rgba8unorm-srgb']).map((layer, i) =>
    typeof layer === 'string' ? { name: `layer${i}`, format: layer } : { ...layer },
  );
  if (layers.length < 1 || layers.length > 8) {
    throw new TesseraConfigError('invalid-layers', 'layers must list 1..8 pool layer formats');
  }
  for (const layer of layers) {
    const known = ['rgba8unorm', 'rgba8unorm-srgb', 'uastc-4x4', 'uastc-4x4-srgb'];
    if (!known.includes(layer.format)) {
      throw new TesseraConfigError('invalid-layers', `unknown pool layer format '${layer.format as string}'`);
    }
  }
  const uastc = layers.some((layer) => layer.format === 'uastc-4x4' || layer.format === 'uastc-4x4-srgb');
  if (uastc && (tileSize % 4 !== 0 || border % 4 !== 0)) {
    throw new TesseraConfigError(
      'invalid-tile',
      `UASTC layers need a tile size and border that are multiples of 4 (whole blocks), got ${tileSize}/${border}`,
    );
  }
  for (const layer of layers) {
    if (layer.usage !== undefined && layer.usage !== 'color' && layer.usage !== 'normal') {
      throw new TesseraConfigError('invalid-layers', `unknown layer usage '${layer.usage as string}'`);
    }
    checkRenderedLayerOptions(layer, tileSize, border);
  }
  if (new Set(layers.map((layer) => layer.name)).size !== layers.length) {
    throw new TesseraConfigError('invalid-layers', 'pool layer names must be distinct');
  }
  // This system's share: the given bytes, else whatever the shared budget has free.
  const shared = runtime?.budget ?? options.budget;
  const shareBytes = Math.floor(
    options.shareBytes ?? options.budgetBytes ?? (shared as TextureBudget).freeBytes,
  );
  const pageTableBytes = Math.floor(
    options.pageTableBytes ?? Math.max(MIN_PAGE_TABLE_BYTES, Math.min(shareBytes / 16, MAX_PAGE_TABLE_BYTES)),
  );
  if (!(pageTableBytes >= 0) || !Number.isFinite(pageTableBytes)) {
    throw new TesseraConfigError(
      'invalid-option',
      `pageTableBytes must be >= 0, got ${options.pageTableBytes}`,
    );
  }
  const maxUploadsPerFrame = positiveInteger('maxUploadsPerFrame', options.maxUploadsPerFrame ?? 16);
  const stagingBytes =
    options.stagingBytes === undefined
      ? defaultStagingReserve(shareBytes, tileBytes(layers, tileSize), maxUploadsPerFrame)
      : positiveInteger('stagingBytes', options.stagingBytes);
  return {
    runtime,
    sharedBudget: shared,
    replacementPolicy: options.replacementPolicy,
    shareBytes,
    minPoolSlots: positiveInteger('minPoolSlots', options.minPoolSlots ?? DEFAULT_MIN_POOL_SLOTS),
    evictPagesPerFrame: positiveInteger('evictPagesPerFrame', options.evictPagesPerFrame ?? 64),
    maxPoolTextureSize:
      options.maxPoolTextureSize === undefined
        ? undefined
        : positiveInteger('maxPoolTextureSize', options.maxPoolTextureSize),
    tileSize,
    border,
    feedbackScale: positiveInteger('feedbackScale', options.feedbackScale ?? 8),
    feedbackMode: feedbackModeOption(options.feedbackMode),
    stillFeedbackInterval: positiveInteger(
      'stillFeedbackInterval',
      options.stillFeedbackInterval ?? DEFAULT_STILL_FEEDBACK_INTERVAL,
    ),
    maxUploadsPerFrame,
    maxRendersPerFrame: positiveInteger('maxRendersPerFrame', options.maxRendersPerFrame ?? 4),
    stagingBytes,
    abortAfterFrames: options.abortAfterFrames,
    failedCooldownFrames: options.failedCooldownFrames,
    filtering,
    anisotropy,
    layers,
    pageTableBytes,
    uastcTargets: options.uastcTargets,
    transcoderPath: options.transcoderPath,
    transcodeWorkers:
      options.transcodeWorkers === undefined
        ? undefined
        : positiveInteger('transcodeWorkers', options.transcodeWorkers),
  };
}

function feedbackModeOption(mode: FeedbackMode | undefined): FeedbackMode {
  if (mode === undefined) return 'main-pass';
  if (mode !== 'main-pass' && mode !== 'separate-pass') {
    throw new TesseraConfigError(
      'invalid-option',
      `feedbackMode must be 'main-pass' or 'separate-pass', got ${String(mode)}`,
    );
  }
  return mode;
}
