import { DataTexture, NearestFilter, RGBAFormat, SRGBColorSpace, UnsignedByteType } from 'three';
import { WebGPURenderer } from 'three/webgpu';
import type { GpuBlockFormat } from '../../src/three/gpu-compress/block-layout';
import { GpuTileCompressor } from '../../src/three/gpu-compress/gpu-tile-compressor';
import { createAllocatedTexture } from '../../src/three/residency/allocated-texture';
import { createCompressedPoolTexture } from '../../src/three/residency/compressed-pool-texture';
import { type DetailContent, detailTile } from '../../test/browser/gpu-compress/pages/terrain-detail-content';

/**
 * Benchmark page (WebGPU): 128² rendered-tile-like sources (terrain detail, sRGB rgba8 textures)
 * compressed by the GpuTileCompressor into a BC7 / BC1 / BC5 pool, one batch of `tiles` per
 * submit, against the plain path an rgba8 pool takes for the same tiles (`copyTextureToTexture`
 * into an rgba8 pool slot, one submit per batch). Interleaved batches, medians; each batch waits
 * for `onSubmittedWorkDone`, so its time is the GPU's (SwiftShader's) work. Results land in
 * `globalThis.benchResult`, the title becomes 'done'.
 */
const params = new URLSearchParams(location.search);
const batches = Number(params.get('batches') ?? 9);
const tilesPerBatch = Number(params.get('tiles') ?? 16);
const tileSize = 128;

const renderer = new WebGPURenderer({ antialias: false });
renderer.setSize(64, 64);
document.body.appendChild(renderer.domElement);
await renderer.init();
const device = (renderer.backend as unknown as { device: GPUDevice }).device;
const gpu = (texture: object) =>
  (renderer.backend as unknown as { get(o: object): { texture: GPUTexture } }).get(texture).texture;

const kinds: DetailContent[] = ['grass', 'pebbles', 'road', 'normals'];
const sources = Array.from({ length: tilesPerBatch }, (_, i) => {
  const texture = new DataTexture(
    detailTile(kinds[i % 4], tileSize, 3000 + i),
    tileSize,
    tileSize,
    RGBAFormat,
    UnsignedByteType,
  );
  texture.colorSpace = SRGBColorSpace;
  texture.magFilter = NearestFilter;
  texture.minFilter = NearestFilter;
  texture.needsUpdate = true;
  renderer.initTexture(texture);
  return texture;
});
const slotsPerRow = 4;
const poolWidth = slotsPerRow * tileSize;
const poolHeight = Math.ceil(tilesPerBatch / slotsPerRow) * tileSize;
const slotX = (i: number) => (i % slotsPerRow) * tileSize;
const slotY = (i: number) => Math.floor(i / slotsPerRow) * tileSize;

const rgbaPool = createAllocatedTexture({
  name: 'bench:pool:rgba8',
  width: poolWidth,
  height: poolHeight,
  mipLevels: 1,
  format: RGBAFormat,
  type: UnsignedByteType,
  srgb: true,
  magFilter: NearestFilter,
  minFilter: NearestFilter,
});
renderer.initTexture(rgbaPool);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Milliseconds per tile of one batch of rgba8 tile copies into the rgba8 pool. */
async function copyBatch(): Promise<number> {
  await device.queue.onSubmittedWorkDone();
  const start = performance.now();
  const encoder = device.createCommandEncoder();
  for (let i = 0; i < tilesPerBatch; i++) {
    encoder.copyTextureToTexture(
      { texture: gpu(sources[i]) },
      { texture: gpu(rgbaPool), origin: { x: slotX(i), y: slotY(i) } },
      { width: tileSize, height: tileSize },
    );
  }
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
  return (performance.now() - start) / tilesPerBatch;
}

/** Milliseconds per tile of one batch compressed into `pool`. */
async function compressBatch(compressor: GpuTileCompressor, pool: object): Promise<number> {
  await device.queue.onSubmittedWorkDone();
  const start = performance.now();
  for (let i = 0; i < tilesPerBatch; i++)
    compressor.compress(sources[i], pool as never, { x: slotX(i), y: slotY(i) });
  compressor.flush();
  await device.queue.onSubmittedWorkDone();
  return (performance.now() - start) / tilesPerBatch;
}

const formats: [string, GpuBlockFormat, 'mode6' | 'mode6+mode1'][] = [
  ['bc7', 'bc7-rgba-unorm-srgb', 'mode6+mode1'],
  ['bc7Mode6', 'bc7-rgba-unorm-srgb', 'mode6'],
  ['bc5', 'bc5-rg-unorm', 'mode6+mode1'],
];
const result: Record<string, number> = {};
const copyTimes: number[] = [];
await copyBatch();
for (const [name, format, bc7Modes] of formats) {
  const pool = createCompressedPoolTexture(`bench:pool:${name}`, poolWidth, poolHeight, 1, format as never);
  renderer.initTexture(pool);
  const compressor = GpuTileCompressor.create(renderer, {
    format,
    tileSize,
    batchTiles: tilesPerBatch,
    bc7Modes,
  });
  await compressBatch(compressor, pool); // compiles the pipeline
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    times.push(await compressBatch(compressor, pool));
    copyTimes.push(await copyBatch());
  }
  result[`${name}MsPerTile`] = median(times);
  compressor.dispose();
  pool.dispose();
}
// BC1 has no VT pool format: a three CompressedTexture of its own, allocated the same way.
{
  const { CompressedTexture, RGBA_S3TC_DXT1_Format } = await import('three');
  const pool = new CompressedTexture([], poolWidth, poolHeight, RGBA_S3TC_DXT1_Format, UnsignedByteType);
  pool.colorSpace = SRGBColorSpace;
  pool.generateMipmaps = false;
  pool.source.dataReady = false;
  pool.needsUpdate = true;
  renderer.initTexture(pool);
  const compressor = GpuTileCompressor.create(renderer, {
    format: 'bc1-rgba-unorm-srgb',
    tileSize,
    batchTiles: tilesPerBatch,
  });
  await compressBatch(compressor, pool);
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    times.push(await compressBatch(compressor, pool));
    copyTimes.push(await copyBatch());
  }
  result.bc1MsPerTile = median(times);
  compressor.dispose();
  pool.dispose();
}
result.copyMsPerTile = median(copyTimes);
Object.assign(globalThis, { benchResult: result });
document.title = 'done';
