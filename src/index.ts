/**
 * `@tessera-vt/tessera`: what an application needs. Virtual textures and their sampling node, streamed
 * ordinary textures and glTF scenes, the one budget, the sources a browser application streams
 * from, the contracts a custom source implements, and the errors.
 *
 * Everything else has an entry of its own: `@tessera-vt/tessera/three` (the whole three.js binding: rendered
 * tiles, decals, GPU compression, transcoding), `@tessera-vt/tessera/sources` (every tile and mip source with
 * its readers, decoders and archive writer), `@tessera-vt/tessera/core` (the renderer-agnostic core, for a
 * custom binding or tool), `@tessera-vt/tessera/imagery` (COG, PMTiles, XYZ, IIIF, Deep Zoom) and
 * `@tessera-vt/tessera/sim` (pool sizing for a camera path). The baker is a package of its own,
 * `@tessera-vt/baker`. Each entry's names are listed in `api/*.api.md` (`npm run api:check`).
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
export type { StreamingProgress } from './core/streaming/streaming-progress';
export type { TileData, TileSource, TileSourceInfo } from './core/vt/tile-source';
export { ArchiveTileSource, type ArchiveTileSourceOptions } from './sources/archive/archive-tile-source';
export { HttpClient, type HttpClientOptions } from './sources/io/http/http-client';
export { Ktx2Source } from './sources/mips/ktx2-source';
export { LevelListSource } from './sources/mips/level-list-source';
export { WorkerProceduralTileSource } from './sources/procedural/worker-procedural-tile-source';
export {
  type GltfTextureStreamingOptions,
  registerGltfTextureStreaming,
} from './three/gltf/gltf-texture-streaming';
export type { VirtualTextureFiltering } from './three/sampling/sampling-context';
export {
  type VirtualTextureSampleNode,
  type VirtualTextureSampleOptions,
  virtualTexture,
} from './three/sampling/virtual-texture-node';
export { StreamedTexture, type StreamedTextureOptions } from './three/streamed/streamed-texture';
export {
  type TextureStreamingEvents,
  type TextureStreamingStats,
  TextureStreamingSystem,
  type TextureStreamingSystemOptions,
} from './three/streamed/texture-streaming-system';
export { TesseraRuntime, type TesseraRuntimeOptions } from './three/tessera-runtime';
export { VirtualTexture } from './three/virtual-texture';
export { VirtualTextureSystem } from './three/virtual-texture-system';
export type { VirtualTextureSystemOptions } from './three/virtual-texture-system-options';
export type {
  VirtualTextureAddOptions,
  VirtualTextureSystemEvents,
  VirtualTextureSystemStats,
} from './three/virtual-texture-system-types';
