/**
 * `@tessera-vt/tessera`: what an application needs. Virtual textures and their sampling node, streamed
 * ordinary textures and glTF scenes, the one budget, the sources a browser application streams
 * from, the contracts a custom source implements, and the errors.
 *
 * Everything else has an entry of its own: `@tessera-vt/tessera/three` (the whole three.js binding: rendered
 * tiles, decals, GPU compression, transcoding), `@tessera-vt/tessera/sources` (every tile and mip source with
 * its readers, decoders and archive writer), `@tessera-vt/tessera/core` (the renderer-agnostic core, for a
 * custom binding or tool) and `@tessera-vt/tessera/sim` (pool sizing for a camera path). The baker
 * is a package of its own, `@tessera-vt/baker`.
 */
export { TextureBudget } from './core/budget/texture-budget';
export type { TextureBudgetOptions, TextureBudgetStats } from './core/budget/texture-budget-options';
export {
  isAbortError,
  TesseraConfigError,
  type TesseraConfigErrorCode,
  TesseraError,
  type TesseraErrorCode,
  TileSourceError,
  type TileSourceErrorCode,
} from './core/errors';
export type {
  EncodedPyramidSource,
  MipPyramidSource,
  StreamedTextureFormat,
} from './core/streaming/mip-pyramid-source';
export type { LifetimePolicy } from './core/streaming/sweep/stale-sweep';
export type {
  TileData,
  TileSource,
  TileSourceInfo,
  TileSourceRequestCounters,
} from './core/vt/tile-source';
export { ArchiveTileSource, type ArchiveTileSourceOptions } from './sources/archive/archive-tile-source';
export { HttpClient, type HttpClientCounters, type HttpClientOptions } from './sources/io/http/http-client';
export { Ktx2Source } from './sources/mips/ktx2-source';
export { LevelListSource, type MipLevelInput } from './sources/mips/level-list-source';
export { ProceduralWorld, type ProceduralWorldOptions } from './sources/procedural/procedural-world';
export { WorkerProceduralTileSource } from './sources/procedural/worker-procedural-tile-source';
/** Sea level of the procedural world, in its normalised height units (heights below are water). */
export { SEA_LEVEL as PROCEDURAL_SEA_LEVEL } from './sources/procedural/world-shading';
export {
  GltfTextureStreaming,
  type GltfTextureStreamingOptions,
  registerGltfTextureStreaming,
} from './three/gltf/gltf-texture-streaming';
export type { VirtualTextureFiltering } from './three/sampling/sampling-context';
export {
  type VirtualTextureSampleNode,
  type VirtualTextureSampleOptions,
  virtualTexture,
} from './three/sampling/virtual-texture-node';
export { WEB_MERCATOR_MAX_LATITUDE, webMercatorUv } from './three/sampling/web-mercator-uv';
export { StreamedTexture, type StreamedTextureOptions } from './three/streamed/streamed-texture';
export {
  type TextureStreamingEvents,
  type TextureStreamingStats,
  TextureStreamingSystem,
  type TextureStreamingSystemOptions,
} from './three/streamed/texture-streaming-system';
export type {
  StreamingTransitionOptions,
  TransitionResult,
} from './three/streamed/transitions/streaming-transition';
export { VirtualTexture, type VirtualTexturePoolLayer } from './three/virtual-texture';
export { VirtualTextureSystem } from './three/virtual-texture-system';
export type { VirtualTextureSystemOptions } from './three/virtual-texture-system-options';
export type {
  VirtualTextureAddOptions,
  VirtualTextureSystemEvents,
  VirtualTextureSystemStats,
} from './three/virtual-texture-system-types';
