/** Tile sources that run in the browser (and in Node): procedural world, archive over HTTP, decoding. */
export {
  ARCHIVE_VERSION,
  type ArchiveHeader,
  type ArchiveLayer,
  type ArchiveLayerUsage,
  isUastcEncoding,
  type LayerColorSpace,
  type MipLayout,
  PayloadEncoding,
  type PayloadEncodingName,
  uastcTileBytes,
} from './archive/archive-format';
export type { MipOrder, ShardRows, ShardSpec } from './archive/archive-shard';
export { ArchiveTileSource, type ArchiveTileSourceOptions } from './archive/archive-tile-source';
export {
  type ArchiveShardTarget,
  type ArchiveSink,
  ArchiveWriter,
  MemoryArchiveSink,
} from './archive/archive-writer';
export { CompressedTileCache } from './archive/compressed-tile-cache';
export {
  createDefaultImageDecoder,
  createDefaultTileDecoder,
  defaultDecodeWorkerCount,
} from './archive/default-tile-decoder';
export { HttpRangeReader, type HttpRangeReaderOptions } from './archive/http-range-reader';
export { MemoryRangeReader, type RangeReader } from './archive/range-reader';
export {
  type ImageDecoder,
  InlineImageDecoder,
  InlineTileDecoder,
  type TileDecoder,
} from './archive/tile-decoder';
export type { ImageCodecs } from './archive/tile-payload-decoder';
export { createBrowserImageCodecs } from './archive/worker/browser-image-codecs';
export type {
  CancelRequest,
  DecodeImageRequest,
  DecodeReply,
  DecodeRequest,
} from './archive/worker/decode-protocol';
export {
  WorkerDecoderPool,
  type WorkerDecoderPoolOptions,
  type WorkerLike,
} from './archive/worker/worker-decoder-pool';
export {
  DEFAULT_RANGE_CACHE_BYTES,
  HttpClient,
  type HttpClientCounters,
  type HttpClientOptions,
} from './http/http-client';
export { type RangeAnswer, RangeCache } from './http/range-cache';
export {
  type GeneratedPyramid,
  ImagePyramidGenerator,
  type ImagePyramidGeneratorOptions,
  type ImagePyramidWorker,
} from './mips/image-pyramid-generator';
export type { ImagePyramidRequest, ImagePyramidResponse } from './mips/image-pyramid-messages';
export type { Ktx2Layout, Ktx2Supercompression } from './mips/ktx2-layout';
export { KTX2_OPEN_BYTES, type Ktx2Opened, Ktx2Source, type Ktx2UrlOptions } from './mips/ktx2-source';
export { LevelListSource, type MipLevelInput } from './mips/level-list-source';
export { ProceduralTileSource } from './procedural/procedural-tile-source';
export type { GenerateReply, GenerateRequest } from './procedural/procedural-worker-protocol';
export { ProceduralWorld, type ProceduralWorldOptions } from './procedural/procedural-world';
export {
  type GenerateWorkerLike,
  WorkerProceduralTileSource,
} from './procedural/worker-procedural-tile-source';
export type { TerrainStyle } from './procedural/world-shading';
/** Sea level of the procedural world, in its normalised height units (heights below are water). */
export { SEA_LEVEL as PROCEDURAL_SEA_LEVEL } from './procedural/world-shading';
