import type { Material } from 'three';
import type { UniformNode } from 'three/webgpu';
import type { FilterMode } from '../../core/vt/feedback/mip-rule';
import type { UvRect } from '../../core/vt/page-rect';
import type { PoolShape } from '../../core/vt/residency/pool-shape';
import type { TileSource } from '../../core/vt/tile-source';
import type { WorldRect } from '../page-producers';
import type { PoolTexture } from '../residency/pool-textures';

/**
 * Texture coordinates in the virtual texture's own space (whole padded texture, v down), built once
 * per sampling node and shared by its layers and its feedback, so the feedback pass requests for
 * exactly what the node samples.
 */
export interface VirtualUv {
  /** Unclamped virtual uv (vec2): its derivatives give the footprint. */
  readonly uv: unknown;
  /** Largest virtual u sampled (the content's far edge, or just under 1). */
  readonly maxU: number;
  /** Largest virtual v sampled (the content's far edge, or just under 1). */
  readonly maxV: number;
  /** Added to the footprint's lambda of sampling and feedback alike, in mips (0 when absent). */
  readonly lodBias?: number;
  /**
   * Period of u in virtual uv when the texture repeats across its left and right edges (a
   * whole-world map's longitude): lookups read u modulo it, while the footprint keeps the
   * derivatives of the continuous u, so the wrap draws no line of coarse mips. Absent: u clamps.
   */
  readonly wrapU?: number;
  /**
   * A bool node: the pixel requests pages only where it is true (absent: everywhere). For a
   * material that draws several textures over the same surface and shows one per pixel, so each
   * texture is asked only for what is shown.
   */
  readonly requestMask?: unknown;
}

/** How pool samples are filtered (the mip rule of each mode: src/core/vt/feedback/mip-rule.ts). */
export type VirtualTextureFiltering = FilterMode;

/**
 * What sampling and feedback nodes need from the system that owns the pool. One per
 * {@link VirtualTextureSystem}; shared by every virtual texture in it.
 */
export interface SamplingContext {
  /** Pool texture of each layer (2D array textures when `poolShape.arrayLayers > 1`); replaced by a pool resize. */
  poolTextures: readonly PoolTexture[];
  /** Slot grid of the pool. */
  poolShape: PoolShape;
  /** Pool texture size, in texels. */
  poolWidth: number;
  /** Pool texture size (of one array layer), in texels. */
  poolHeight: number;
  /** Filtering mode baked into sampling nodes (changed by `VirtualTextureSystem.setFiltering`). */
  filtering: VirtualTextureFiltering;
  /** Largest anisotropy ratio resolved (1 = isotropic), also used by the feedback mip. */
  readonly maxAnisotropy: number;
  /**
   * Bumped whenever something baked into the node graphs changes (filtering, pool textures or
   * shape): part of every sampling node's cache key, so three rebuilds the materials using them.
   */
  version: number;
  /**
   * log2 of the drawing-buffer pixels per feedback pixel (about log2(feedbackScale), exact for the
   * current sizes): subtracted from the feedback pass's lambda, whose derivatives are per feedback
   * pixel. Updated when the renderer's drawing buffer or the feedback target is resized.
   */
  feedbackLodOffset: UniformNode<'float', number>;
  /**
   * Main-pass feedback (WebGPU): builds the statement by which a sampling node records the page id
   * its pixel requests during the user's render (`pageId` builds it in the write's branch;
   * `transparent`: for a material that lets what lies behind show); null when a separate feedback
   * pass draws the requests.
   */
  requestWriter: ((pageId: () => unknown, vtId: number, transparent: boolean) => unknown) | null;
  /** Residency mip bias added to the feedback mip, in mip levels. */
  readonly mipBias: UniformNode<'float', number>;
  /** Called when a node material using `vt` is compiled, so the feedback pass can mirror it. */
  registerMaterial(material: Material, vtId: number, uv: VirtualUv): void;
  /**
   * Marks the resident pages of rendered texture `vt` overlapping `rect` (uv, or the source's world
   * units with `'world'`) for a re-render; returns how many (see `VirtualTexture.invalidate`).
   */
  invalidatePages(
    vt: { readonly id: number; readonly name: string; readonly source: TileSource },
    rect: UvRect | WorldRect,
    units: 'uv' | 'world',
  ): number;
}

/** The pool fields of a {@link SamplingContext} for `pool` (at creation and after each resize). */
export function poolSampling(pool: {
  readonly textures: readonly PoolTexture[];
  readonly shape: PoolShape;
  readonly width: number;
  readonly height: number;
}): Pick<SamplingContext, 'poolTextures' | 'poolShape' | 'poolWidth' | 'poolHeight'> {
  return {
    poolTextures: pool.textures,
    poolShape: pool.shape,
    poolWidth: pool.width,
    poolHeight: pool.height,
  };
}
