import type { Material } from 'three';
import type { UniformNode } from 'three/webgpu';
import type { PoolShape, PoolTexture } from './pool-textures';

/** How pool samples are filtered. */
export type VirtualTextureFiltering = 'bilinear' | 'trilinear' | 'anisotropic';

/**
 * What sampling and feedback nodes need from the system that owns the pool. One per
 * {@link VirtualTextureSystem}; shared by every virtual texture in it.
 */
export interface SamplingContext {
  /** Pool texture of each layer (2D array textures when `poolShape.arrayLayers > 1`). */
  readonly poolTextures: readonly PoolTexture[];
  /** Slot grid of the pool. */
  readonly poolShape: PoolShape;
  /** Pool texture size, in texels. */
  readonly poolWidth: number;
  /** Pool texture size (of one array layer), in texels. */
  readonly poolHeight: number;
  /** Filtering mode baked into sampling nodes. */
  readonly filtering: VirtualTextureFiltering;
  /** Largest anisotropy ratio resolved (1 = isotropic), also used by the feedback mip. */
  readonly maxAnisotropy: number;
  /** Screen pixels per feedback pixel along each axis. */
  readonly feedbackScale: number;
  /** Residency mip bias added to the feedback mip, in mip levels. */
  readonly mipBias: UniformNode<'float', number>;
  /** Called when a node material using `vt` is compiled, so the feedback pass can mirror it. */
  registerMaterial(material: Material, vtId: number, uvNode: unknown): void;
}
