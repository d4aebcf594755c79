/**
 * Parallel baking: the same in-memory bake on 1 and on 2 encoding workers, for WebP and UASTC,
 * in one run (`bake.parallel_speedup.*` = time on 1 / time on 2). Pools are started and their
 * encoders loaded before timing (a one-off cost per bake, not per tile). The input is a
 * photograph-like image generated here (gradients plus noise), not one anything was tuned on.
 * The machine may be shared: the 1-minute load average is reported beside the figures, and the
 * main process's CPU time over wall time, per worker (`*_cpu_per_worker`; the workers are child
 * processes, not counted: what the bake's own work takes from them).
 * `*.pool_speedup` times the pools alone on the same image's tiles (no bake around them): the
 * ceiling a bake's speedup can reach here, since two encodes at once each run slower than one.
 */

import { loadavg } from 'node:os';
import { MemoryArchiveSink } from '../src/sources/archive/archive-writer';
import { bakeImages } from '../src/sources/bake/bake-archive';
import { extractTile } from '../src/sources/bake/mip-chain';
import { TileEncodePool } from '../src/sources/bake/tile-encode-pool';
import type { PayloadEncodingName } from '../src/sources/io/payload-encoding';

function photoLike(size: number, seed: number) {
  const data = new Uint8Array(size * size * 4);
  let s = seed;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const n = (s >>> 24) - 128;
      const o = (y * size + x) * 4;
      data[o] = Math.max(0, Math.min(255, 128 + 100 * Math.sin(x / 37) + n / 4));
      data[o + 1] = Math.max(0, Math.min(255, 128 + 90 * Math.cos(y / 23 + x / 91) + n / 5));
      data[o + 2] = Math.max(0, Math.min(255, ((x ^ y) & 0xff) / 2 + 64 + n / 6));
      data[o + 3] = 255;
    }
  }
  return { data, width: size, height: size };
}

interface Timed {
  seconds: number;
  cpuPerWorker: number;
  bytes: Uint8Array;
}

async function timedBake(
  image: ReturnType<typeof photoLike>,
  encoding: PayloadEncodingName,
  pool: TileEncodePool,
): Promise<Timed> {
  const sink = new MemoryArchiveSink();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await bakeImages(
    [{ name: 'albedo', colorSpace: 'srgb', image }],
    { encoding, quality: 80, encodePool: pool },
    sink,
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    seconds,
    cpuPerWorker: (used.user + used.system) / 1e6 / seconds / pool.size,
    bytes: sink.toBytes(),
  };
}

async function warmPool(workers: number, encoding: PayloadEncodingName): Promise<TileEncodePool> {
  const pool = new TileEncodePool({ workers });
  // One job per idle worker: each loads its encoder (sharp, the Basis wasm) before timing starts.
  await Promise.all(
    Array.from({ length: workers }, () =>
      pool.encode(encoding, new Uint8Array(128 * 128 * 4).fill(100), 128, { colorSpace: 'srgb' }),
    ),
  );
  return pool;
}

/**
 * Seconds `pool` takes to encode the 128² tiles of `image`'s first rows, `count` of them, with no
 * bake around them: the pool's own throughput, the ceiling of the bake's speedup on this machine.
 */
async function timedEncodes(
  image: ReturnType<typeof photoLike>,
  encoding: PayloadEncodingName,
  pool: TileEncodePool,
  count: number,
) {
  const perRow = Math.floor(image.width / 128);
  const tiles = Array.from({ length: count }, (_, i) => {
    const tile = new Uint8Array(128 * 128 * 4);
    extractTile(image, i % perRow, Math.floor(i / perRow), 128, 0, tile);
    return tile;
  });
  const started = performance.now();
  await Promise.all(
    tiles.map((tile) => pool.encode(encoding, tile, 128, { colorSpace: 'srgb', quality: 80 })),
  );
  return (performance.now() - started) / 1000;
}

async function speedup(encoding: PayloadEncodingName, imageSize: number, reps: number, poolTiles: number) {
  const image = photoLike(imageSize, 17);
  const pools = [await warmPool(1, encoding), await warmPool(2, encoding)];
  const best: Timed[] = [];
  const encodes = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const [k, pool] of pools.entries())
        encodes[k] = Math.min(encodes[k], await timedEncodes(image, encoding, pool, poolTiles));
    }
    // Alternate 1 and 2 workers so a change in the machine's load hits both alike; keep the best of each.
    for (let rep = 0; rep < reps; rep++) {
      for (const [k, pool] of pools.entries()) {
        const run = await timedBake(image, encoding, pool);
        if (best[k] === undefined || run.seconds < best[k].seconds) best[k] = run;
      }
    }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  if (!Buffer.from(best[0].bytes).equals(Buffer.from(best[1].bytes)))
    throw new Error(`${encoding}: 1 and 2 workers baked different bytes`);
  const key = `bake.parallel.${encoding}`;
  return {
    [`bake.parallel_speedup.${encoding}`]: best[0].seconds / best[1].seconds,
    [`${key}.pool_speedup`]: encodes[0] / encodes[1],
    [`${key}.workers1_s`]: best[0].seconds,
    [`${key}.workers2_s`]: best[1].seconds,
    [`${key}.workers1_cpu_per_worker`]: best[0].cpuPerWorker,
    [`${key}.workers2_cpu_per_worker`]: best[1].cpuPerWorker,
  };
}

export default {
  name: 'bake-parallel',
  async run() {
    const loadBefore = loadavg()[0];
    // 1920² texels = 16x16 pages of 120 payload texels (341 tiles over all mips); UASTC on 960² (85 tiles).
    const webp = await speedup('webp', 1920, 3, 150);
    const uastc = await speedup('uastc', 960, 2, 36);
    return {
      'bake.parallel_speedup': Math.min(
        webp['bake.parallel_speedup.webp'],
        uastc['bake.parallel_speedup.uastc'],
      ),
      ...webp,
      ...uastc,
      'bake.parallel.loadavg_1m_before': loadBefore,
      'bake.parallel.loadavg_1m_after': loadavg()[0],
    };
  },
};
