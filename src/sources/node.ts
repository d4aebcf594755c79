/** Node-only tile tooling: baking archives and decoding images with native codecs (sharp, jpeg-js). */

export { parseShardSpec, type ShardSpec, shardRows } from './archive/archive-shard';
export { type BakeLayer, type BakeOptions, bakeImages, bakeProcedural } from './bake/bake-archive';
export { type BakeGltfFileOptions, type BakeGltfFileResult, bakeGltfFile } from './bake/bake-gltf-file';
export { type BakeFileLayer, bakeImageFiles } from './bake/bake-out-of-core';
export {
  GltfBakeError,
  type GltfBakeErrorCode,
  type GltfTextureReport,
  type TesseraTexturesOptions,
  tesseraTextures,
} from './bake/gltf-textures';
export {
  DEFAULT_KTX2_ZSTD_LEVEL,
  encodeKtx2Texture,
  type Ktx2TextureEncodeOptions,
  type TextureContent,
} from './bake/ktx2-texture-encoder';
export { mergeShards } from './bake/merge-shards';
export { TesseraTexturePrefix } from './bake/texture-prefix-extension';
export { checkWorkerCount, TileEncodePool, type TileEncodePoolOptions } from './bake/tile-encode-pool';
export { encodeTile, type TileEncoderOptions } from './bake/tile-encoder';
export { encodeUastcTile, type UastcEncodeOptions } from './bake/uastc-encoder';
export { zstdCompress } from './bake/zstd-compressor';
export { createNodeImageCodecs } from './io/node-image-codecs';
