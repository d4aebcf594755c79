/**
 * The baker on worker threads: the archive's bytes do not depend on the worker count, a crashed
 * worker or a failing tile is a typed error, and the pool keeps serving after a tile fails.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TesseraError } from '../../../src/core/errors';
import { MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import { type BakeOptions, bakeImages, bakeProcedural } from '../../../src/sources/bake/bake-archive';
import { bakeImageFiles } from '../../../src/sources/bake/bake-out-of-core';
import { TileEncodePool } from '../../../src/sources/bake/tile-encode-pool';
import type { PayloadEncodingName } from '../../../src/sources/io/payload-encoding';

const dir = mkdtempSync(join(tmpdir(), 'tessera-parallel-'));
/** One pool per worker count, shared by every case: starting worker processes is most of a bake's time here. */
const pools = new Map<number, TileEncodePool>();
function poolOf(workers: number): TileEncodePool {
  const pool = pools.get(workers) ?? new TileEncodePool({ workers });
  pools.set(workers, pool);
  return pool;
}
afterAll(async () => {
  for (const pool of pools.values()) await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A photograph-like test image: smooth gradients plus per-texel noise (so lossy codecs work). */
function noisyImage(width: number, height: number, seed: number) {
  const data = new Uint8Array(width * height * 4);
  let s = seed;
  for (let i = 0; i < width * height; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    const x = i % width;
    const y = Math.floor(i / width);
    data.set([(x * 3 + (s >>> 28)) & 0xff, (y * 4 + (s >>> 26)) & 0xff, ((x + y) * 2) & 0xff, 255], i * 4);
  }
  return { data, width, height };
}

async function procedural(options: BakeOptions): Promise<Uint8Array> {
  const sink = new MemoryArchiveSink();
  await bakeProcedural(5, 4, { tileSize: 32, border: 4, ...options }, sink);
  return sink.toBytes();
}

async function inMemory(options: BakeOptions): Promise<Uint8Array> {
  const sink = new MemoryArchiveSink();
  const image = noisyImage(90, 60, 3);
  await bakeImages(
    [{ name: 'albedo', colorSpace: 'srgb', image }],
    { tileSize: 32, border: 4, ...options },
    sink,
  );
  return sink.toBytes();
}

let imagePath: string | undefined;
async function imageFile(options: BakeOptions): Promise<Uint8Array> {
  if (imagePath === undefined) {
    const { default: sharp } = await import('sharp');
    const image = noisyImage(100, 70, 9);
    imagePath = join(dir, 'photo.png');
    await sharp(image.data, { raw: { width: 100, height: 70, channels: 4 } })
      .png()
      .toFile(imagePath);
  }
  const sink = new MemoryArchiveSink();
  await bakeImageFiles(
    [
      { name: 'albedo', colorSpace: 'srgb', path: imagePath },
      { name: 'normal', colorSpace: 'linear', usage: 'normal', path: imagePath },
    ],
    { tileSize: 32, border: 4, ...options },
    sink,
  );
  return sink.toBytes();
}

const CASES: {
  input: string;
  bake: (o: BakeOptions) => Promise<Uint8Array>;
  encoding: PayloadEncodingName;
}[] = [
  { input: 'procedural', bake: procedural, encoding: 'webp' },
  { input: 'procedural', bake: procedural, encoding: 'uastc' },
  { input: 'in-memory image', bake: inMemory, encoding: 'png' },
  { input: 'in-memory image', bake: inMemory, encoding: 'uastc-zstd' },
  { input: 'image file', bake: imageFile, encoding: 'webp' },
  { input: 'image file', bake: imageFile, encoding: 'png' },
  { input: 'image file', bake: imageFile, encoding: 'uastc' },
];

describe('baking on worker threads', { timeout: 120_000 }, () => {
  it.each(CASES)('$input as $encoding: the same bytes on 1, 2 and 3 workers', async ({ bake, encoding }) => {
    const one = await bake({ encoding, encodePool: poolOf(1) });
    const two = await bake({ encoding, encodePool: poolOf(2) });
    const three = await bake({ encoding, encodePool: poolOf(3) });
    expect(one.length).toBeGreaterThan(1000);
    expect(Buffer.from(two).equals(Buffer.from(one))).toBe(true);
    expect(Buffer.from(three).equals(Buffer.from(one))).toBe(true);
  });

  it('stops with worker-failed when a worker dies mid-bake, and writes no archive prefix', async () => {
    const pool = new TileEncodePool({ workers: 2 });
    const sink = new MemoryArchiveSink();
    let killed = false;
    try {
      const bake = bakeProcedural(
        5,
        8,
        {
          tileSize: 32,
          border: 4,
          encoding: 'uastc',
          encodePool: pool,
          onProgress: () => {
            if (killed) return;
            killed = true;
            pool.processes[1].kill();
          },
        },
        sink,
      );
      await expect(bake).rejects.toMatchObject({ name: 'TesseraError', code: 'worker-failed' });
      // The header is written last, so what reached the sink is no readable archive.
      expect(Array.from(sink.toBytes().subarray(0, 4))).not.toEqual([0x54, 0x53, 0x56, 0x41]);
      await expect(pool.encode('raw', new Uint8Array(16), 2, {})).rejects.toMatchObject({
        code: 'worker-failed',
      });
    } finally {
      await pool.close();
    }
  });

  it('fails one bad tile with tile-encode-failed and keeps encoding the others', async () => {
    const pool = new TileEncodePool({ workers: 2 });
    try {
      // 10 bytes are not a 32x32 rgba tile: sharp refuses the input.
      const bad = pool.encode('webp', new Uint8Array(10), 32, {});
      const good = pool.encode('webp', new Uint8Array(32 * 32 * 4).fill(128), 32, {});
      const error = await bad.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TesseraError);
      expect(error).toMatchObject({ code: 'tile-encode-failed' });
      expect((error as Error).message).toMatch(/webp/);
      const payload = await good;
      expect(String.fromCharCode(...payload.subarray(8, 12))).toBe('WEBP');
      // A config error raised inside the worker keeps its class and code.
      await expect(pool.encode('uastc', new Uint8Array(30 * 30 * 4), 30, {})).rejects.toMatchObject({
        name: 'TesseraConfigError',
        code: 'invalid-tile',
      });
    } finally {
      await pool.close();
    }
    await expect(pool.encode('raw', new Uint8Array(16), 2, {})).rejects.toMatchObject({ code: 'disposed' });
  });

  it('refuses a worker count outside 1..64 before any work', async () => {
    for (const workers of [0, 65, 1.5, Number.NaN]) {
      expect(() => new TileEncodePool({ workers })).toThrow(/workers/);
      await expect(procedural({ encoding: 'png', workers })).rejects.toMatchObject({
        code: 'invalid-option',
      });
    }
  });
});
