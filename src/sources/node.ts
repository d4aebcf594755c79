/** Node-only tile tooling: baking archives and decoding images with native codecs (sharp, jpeg-js). */

export { parseShardSpec, type ShardSpec, shardRows } from './archive/archive-shard';
export { type BakeLayer, type BakeOptions, bakeImages, bakeProcedural } from './bake/bake-archive';
export { type BakeFileLayer, bakeImageFiles } from './bake/bake-out-of-core';
export { mergeShards } from './bake/merge-shards';
export { checkWorkerCount, TileEncodePool, type TileEncodePoolOptions } from './bake/tile-encode-pool';
export { encodeTile, type TileEncoderOptions } from './bake/tile-encoder';
export { encodeUastcTile, type UastcEncodeOptions } from './bake/uastc-encoder';
export { zstdCompress } from './bake/zstd-compressor';
export { createNodeImageCodecs } from './io/node-image-codecs';
