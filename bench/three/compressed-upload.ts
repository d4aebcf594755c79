import { WebGPURenderer } from 'three/webgpu';
import type { PoolTexelFormat } from '../../src/core/vt/residency/pool-format';
import { VirtualTextureSystem } from '../../src/three/virtual-texture-system';

/**
 * Benchmark page (WebGPU): 128² BC7 tiles (32 x 32 blocks, 16 KiB) per second through Tessera's
 * compressed upload path (the pool's writeTile: block-aligned `queue.writeTexture`) over a bare
 * `writeTexture` loop writing the same blocks into the same pool texture; interleaved batches,
 * medians. Results land in `globalThis.benchResult`, the title becomes 'done'.
 */
const params = new URLSearchParams(location.search);
const batches = Number(params.get('batches') ?? 12);
const tilesPerBatch = Number(params.get('tiles') ?? 256);

const renderer = new WebGPURenderer({ antialias: false });
renderer.setSize(256, 256);
document.body.appendChild(renderer.domElement);
await renderer.init();
const device = (renderer.backend as unknown as { device: GPUDevice }).device;

const system = new VirtualTextureSystem(renderer, {
  budgetBytes: 32 * 1024 * 1024,
  layers: [{ name: 'albedo', format: 'uastc-4x4-srgb', target: 'bc7' }],
});
const pool = (
  system as unknown as {
    pool: {
      textures: {
        writeTile(l: number, s: number, b: Uint8Array): void;
        textures: object[];
        formats: PoolTexelFormat[];
        slotCount: number;
        shape: { slotsPerRow: number; tileSize: number };
      };
    };
  }
).pool.textures;
if (pool.formats[0] !== 'bc7-rgba-unorm-srgb') throw new Error(`pool is ${pool.formats[0]}, not BC7`);
const gpuTexture = (renderer.backend as unknown as { get(o: object): { texture: GPUTexture } }).get(
  pool.textures[0],
).texture;
const { slotsPerRow, tileSize } = pool.shape;
const blocks = new Uint8Array((tileSize / 4) * (tileSize / 4) * 16);
for (let i = 0; i < blocks.length; i++) blocks[i] = (i * 7) & 255;
const slots = Math.min(pool.slotCount, tilesPerBatch);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function tesseraBatch(): Promise<number> {
  await device.queue.onSubmittedWorkDone();
  const start = performance.now();
  for (let i = 0; i < tilesPerBatch; i++) pool.writeTile(0, i % slots, blocks);
  await device.queue.onSubmittedWorkDone();
  return (performance.now() - start) / tilesPerBatch;
}

async function bareBatch(): Promise<number> {
  await device.queue.onSubmittedWorkDone();
  const start = performance.now();
  for (let i = 0; i < tilesPerBatch; i++) {
    const slot = i % slots;
    device.queue.writeTexture(
      {
        texture: gpuTexture,
        origin: { x: (slot % slotsPerRow) * tileSize, y: Math.floor(slot / slotsPerRow) * tileSize },
      },
      blocks,
      { bytesPerRow: (tileSize / 4) * 16, rowsPerImage: tileSize / 4 },
      { width: tileSize, height: tileSize },
    );
  }
  await device.queue.onSubmittedWorkDone();
  return (performance.now() - start) / tilesPerBatch;
}

await tesseraBatch();
await bareBatch();
const tessera: number[] = [];
const bare: number[] = [];
for (let b = 0; b < batches; b++) {
  if (b % 2 === 0) {
    tessera.push(await tesseraBatch());
    bare.push(await bareBatch());
  } else {
    bare.push(await bareBatch());
    tessera.push(await tesseraBatch());
  }
}
const tesseraRate = 1000 / median(tessera);
const bareRate = 1000 / median(bare);
system.dispose();
Object.assign(globalThis, {
  benchResult: {
    tesseraTilesPerSecond: tesseraRate,
    bareTilesPerSecond: bareRate,
    uploadRatio: tesseraRate / bareRate,
  },
});
document.title = 'done';
