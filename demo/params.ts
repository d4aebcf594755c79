/**
 * The demo's URL parameters, parsed once. They are part of the automation contract
 * (see ./automation.ts): tests and external tools open the page with them.
 */

import { REGIONS_SEED } from './regions';

/** Which backend of three's WebGPURenderer to use: `auto` tries WebGPU and falls back to WebGL2. */
export type BackendChoice = 'auto' | 'webgpu' | 'webgl';

/** Where the terrain's virtual texture comes from. */
export type TerrainSourceKind = 'rendered' | 'procedural' | 'archive' | 'uastc';

/** Everything the URL can set. */
export interface DemoParams {
  /** `?backend=webgpu|webgl`; absent = auto (WebGPU with fallback to WebGL2). */
  backend: BackendChoice;
  /** `?budget=` one VRAM budget for virtual and streamed textures, bytes (URL gives MiB). Default 128 MiB. */
  budgetBytes: number;
  /** `?seed=` world seed (integer). Default {@link REGIONS_SEED} (7), the world the regions were placed on. */
  seed: number;
  /** `?size=WxH` fixed canvas size in CSS pixels; null = fill the window. */
  size: { width: number; height: number } | null;
  /** `?hud=0` hides lil-gui, stats-gl and the budget bar (and does not load them). Default shown. */
  hud: boolean;
  /**
   * `?source=rendered|procedural|archive|uastc`: `rendered` (default) the runtime virtual texture
   * (pages rendered on the GPU from the terrain's material), `procedural` the CPU generator in
   * workers, `archive` the baked WebP archive, `uastc` the UASTC archive into a block-compressed
   * pool.
   */
  source: TerrainSourceKind;
  /** `?auto=0`: no animation loop; frames advance only through `demo.renderFrames`. Default 1. */
  auto: boolean;
  /** `?vt=0` textures the terrain with an ordinary texture instead of Tessera's virtual texture. Default 1. */
  virtualTexture: boolean;
  /** `?tour=1` starts the scripted tour at load. Default 0. */
  tour: boolean;
  /** `?lodBias=` mips added to what the terrain's virtual texture reads and requests (2: mip 2 where mip 0 would be). Default 0. */
  lodBias: number;
  /** `?compare=1` shows the comparison with plain three.js at load (the HUD toggles it). Default 0. */
  compare: boolean;
  /**
   * `?compressed=0` decodes `?source=uastc` tiles to rgba8 pools instead of block-compressed ones
   * (BC7 + BC5 on desktop): the baseline the compressed pool is measured against. Default 1.
   */
  compressedPool: boolean;
  /**
   * `?assets=<base URL>`: where every downloaded asset comes from (the region scenes' `.glb`, their
   * KTX2 textures, the terrain archives of `?source=archive|uastc`), e.g. a CDN or a test server's
   * fault-injecting path (`/__faults/503,reset/0.05/1/assets/`); resolved against the page's URL.
   * null (absent) = the demo's own `assets/` folder.
   */
  assets: string | null;
  /**
   * `?rangeCache=<MiB>`: the HTTP client's own cache of Range answers (default: the client's,
   * 32 MiB); `0` turns it off, so every read reaches the network (tests that corrupt a file the
   * demo read before).
   */
  rangeCacheBytes: number | undefined;
  /**
   * `?feedback=main-pass|separate-pass`: where the terrain's page requests are written (absent:
   * the library's default, the main pass on WebGPU).
   */
  feedbackMode: 'main-pass' | 'separate-pass' | undefined;
}

/** Default budget when `?budget=` is absent, MiB. */
export const DEFAULT_BUDGET_MIB = 128;

/** Parses `search` (e.g. `location.search`); malformed values fall back to defaults with a warning. */
export function parseDemoParams(search: string): DemoParams {
  const query = new URLSearchParams(search);
  const backendText = query.get('backend');
  const backend: BackendChoice = backendText === 'webgpu' || backendText === 'webgl' ? backendText : 'auto';
  const budgetMiB = positiveNumber(query.get('budget'), DEFAULT_BUDGET_MIB);
  const seed = Number.parseInt(query.get('seed') ?? String(REGIONS_SEED), 10);
  const sizeMatch = /^(\d+)x(\d+)$/.exec(query.get('size') ?? '');
  const size = sizeMatch ? { width: Number(sizeMatch[1]), height: Number(sizeMatch[2]) } : null;
  return {
    backend,
    budgetBytes: Math.round(budgetMiB * 1024 * 1024),
    seed: Number.isFinite(seed) ? seed : REGIONS_SEED,
    size: size && size.width > 0 && size.height > 0 ? size : null,
    hud: query.get('hud') !== '0',
    source: sourceKind(query.get('source')),
    auto: query.get('auto') !== '0',
    virtualTexture: query.get('vt') !== '0',
    tour: query.get('tour') === '1',
    lodBias: Number.isFinite(Number(query.get('lodBias'))) ? Number(query.get('lodBias') ?? 0) : 0,
    compare: query.get('compare') === '1',
    compressedPool: query.get('compressed') !== '0',
    assets: query.get('assets') || null,
    rangeCacheBytes: rangeCacheBytes(query.get('rangeCache')),
    feedbackMode: feedbackMode(query.get('feedback')),
  };
}

function feedbackMode(text: string | null): DemoParams['feedbackMode'] {
  return text === 'main-pass' || text === 'separate-pass' ? text : undefined;
}

function rangeCacheBytes(text: string | null): number | undefined {
  if (text === null) return undefined;
  const mib = Number(text);
  return Number.isFinite(mib) && mib >= 0 ? Math.round(mib * 1024 * 1024) : undefined;
}

function sourceKind(text: string | null): TerrainSourceKind {
  return text === 'archive' || text === 'uastc' || text === 'procedural' ? text : 'rendered';
}

function positiveNumber(text: string | null, fallback: number): number {
  if (text === null) return fallback;
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
