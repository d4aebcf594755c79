/** Tile sources that run in the browser (and in Node): procedural world, archive over HTTP, decoding. */
export {
  ARCHIVE_VERSION,
  type ArchiveHeader,
  type ArchiveLayer,
  type ArchiveLayerUsage,
  type LayerColorSpace,
  type MipLayout,
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
} from './io/default-tile-decoder';
export {
  DEFAULT_RANGE_CACHE_BYTES,
  HttpClient,
  type HttpClientCounters,
  type HttpClientOptions,
} from './io/http/http-client';
export { type RangeAnswer, RangeCache } from './io/http/range-cache';
export { HttpRangeReader, type HttpRangeReaderOptions } from './io/http-range-reader';
export {
  isUastcEncoding,
  PayloadEncoding,
  type PayloadEncodingName,
  uastcTileBytes,
} from './io/payload-encoding';
export { MemoryRangeReader, type RangeReader } from './io/range-reader';
export { defaultHttpClient, type SourceIoOptions, type SourceRuntime } from './io/source-runtime';
export {
  type ImageDecoder,
  InlineImageDecoder,
  InlineTileDecoder,
  type TileDecoder,
} from './io/tile-decoder';
export type { ImageCodecs } from './io/tile-payload-decoder';
export { createBrowserImageCodecs } from './io/worker/browser-image-codecs';
export type {
  CancelRequest,
  DecodeImageRequest,
  DecodeReply,
  DecodeRequest,
} from './io/worker/decode-protocol';
export {
  WorkerDecoderPool,
  type WorkerDecoderPoolOptions,
  type WorkerLike,
} from './io/worker/worker-decoder-pool';
export {
  type GeneratedPyramid,
  ImagePyramidGenerator,
  type ImagePyramidGeneratorOptions,
  type ImagePyramidWorker,
} from './mips/image-pyramid-generator';
export type { ImagePyramidRequest, ImagePyramidResponse } from './mips/image-pyramid-messages';
export type { Ktx2Layout, Ktx2Supercompression } from './mips/ktx2-layout';
export {
  KTX2_OPEN_BYTES,
  type Ktx2HeldPrefix,
  type Ktx2Opened,
  type Ktx2OpenOptions,
  Ktx2Source,
  type Ktx2UrlOptions,
} from './mips/ktx2-source';
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
