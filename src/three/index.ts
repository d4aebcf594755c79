/**
 * `@tessera-vt/tessera/three`: the three.js WebGPURenderer binding: virtual textures with TSL sampling nodes,
 * and streamed ordinary textures, under one budget.
 */

export type { PageTableStorage } from '../core/vt/page-table/page-table-blocks';
export { TESSERA_TEXTURE_KTX2 } from './gltf/gltf-texture-sources';
export {
  GltfTextureStreaming,
  type GltfTextureStreamingOptions,
  registerGltfTextureStreaming,
} from './gltf/gltf-texture-streaming';
export {
  GPU_BLOCK_FORMATS,
  type GpuBlockFormat,
  type TileBlockLayout,
  tileBlockLayout,
} from './gpu-compress/block-layout';
export type { BlockSlotOrigin, SourceTileOrigin } from './gpu-compress/compress-arguments';
export { GpuTileCompressor, type GpuTileCompressorOptions } from './gpu-compress/gpu-tile-compressor';
export {
  ImageryGlobe,
  type ImageryGlobeCounters,
  type ImageryGlobeLevel,
  type ImageryGlobeOptions,
} from './imagery-globe';
export { type DecalChangeListener, DecalList, type DecalOptions } from './rendered/decal-list';
export type { RenderedBc7Modes, RenderedLayerStorage } from './rendered/rendered-pool-format';
export {
  type RenderedLayer,
  RenderedTileSource,
  type RenderedTileSourceOptions,
  type WorldRect,
} from './rendered/rendered-tile-source';
export { ribbonGeometry } from './rendered/ribbon-geometry';
export { type SplatAlbedoOptions, type SplatDetailLayer, splatAlbedo } from './rendered/splat-albedo';
export type { TileRenderCounters } from './rendered/tile-render-stage';
export {
  type GeographicExtent,
  type GeographicPlacement,
  geographicUv,
} from './sampling/geographic-uv';
export type { VirtualTextureFiltering, VirtualUv } from './sampling/sampling-context';
export type { VirtualTextureDebugOptions } from './sampling/virtual-texture-debug';
export type { SampledVirtualTexture, VirtualTextureUvSpace } from './sampling/virtual-texture-graph';
export {
  VirtualTextureNode,
  type VirtualTextureSampleNode,
  type VirtualTextureSampleOptions,
  virtualTexture,
} from './sampling/virtual-texture-node';
export { WEB_MERCATOR_MAX_LATITUDE, webMercatorUv } from './sampling/web-mercator-uv';
export type { TextureSampling } from './streamed/sampling/texture-sampling';
export { StreamedTexture, type StreamedTextureOptions } from './streamed/streamed-texture';
export {
  type TextureStreamingErrorEvent,
  type TextureStreamingEvents,
  type TextureStreamingStats,
  TextureStreamingSystem,
  type TextureStreamingSystemOptions,
} from './streamed/texture-streaming-system';
export type {
  SceneTextures,
  StreamingTransition,
  StreamingTransitionOptions,
  TransitionResult,
} from './streamed/transitions/streaming-transition';
export type { StreamedTranscodingOptions } from './streamed/uploads/streamed-transcoding';
export { TesseraRuntime, type TesseraRuntimeOptions } from './tessera-runtime';
export { Etc1sPyramidSource } from './transcode/etc1s-pyramid-source';
export { TranscodedPyramidSource } from './transcode/transcoded-pyramid-source';
export {
  mapSourceLayers,
  VirtualTexture,
  type VirtualTextureLayerMapping,
  type VirtualTexturePoolLayer,
} from './virtual-texture';
export { VirtualTextureSystem } from './virtual-texture-system';
export type { VirtualTextureSystemOptions } from './virtual-texture-system-options';
export type {
  VirtualTextureAddOptions,
  VirtualTextureErrorEvent,
  VirtualTextureGpuBytes,
  VirtualTextureReservedBytes,
  VirtualTextureStreamingState,
  VirtualTextureSystemEvents,
  VirtualTextureSystemStats,
} from './virtual-texture-system-types';
