/** The three.js WebGPURenderer binding: virtual textures, TSL sampling nodes, streamed textures. */
export type { VirtualTextureFiltering } from './sampling-context';
export * from './streamed/index';
export { VirtualTexture } from './virtual-texture';
export type { VirtualTextureDebugOptions } from './virtual-texture-debug';
export type { SampledVirtualTexture, VirtualTextureUvSpace } from './virtual-texture-graph';
export {
  VirtualTextureNode,
  type VirtualTextureSampleNode,
  type VirtualTextureSampleOptions,
  virtualTexture,
} from './virtual-texture-node';
export {
  type VirtualTextureGpuBytes,
  VirtualTextureSystem,
  type VirtualTextureSystemEvents,
  type VirtualTextureSystemOptions,
  type VirtualTextureSystemStats,
} from './virtual-texture-system';
