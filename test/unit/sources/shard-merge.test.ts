/**
 * Sharded bakes: n shard files merged are byte for byte the direct bake, for both bakers (they
 * write mips in opposite orders); a set of shards that is not one bake's is refused; the CLI
 * refuses bad --workers / --shard values and leaves no output file when a bake or merge fails.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileArchiveSink } from '../../../src/cli/file-archive-sink';
import { mipLayout } from '../../../src/sources/archive/archive-format';
import { parseShardSpec, shardRows } from '../../../src/sources/archive/archive-shard';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import { type BakeOptions, bakeProcedural } from '../../../src/sources/bake/bake-archive';
import { bakeImageFiles } from '../../../src/sources/bake/bake-out-of-core';
import { mergeShards } from '../../../src/sources/bake/merge-shards';
import { shardTexelRows } from '../../../src/sources/bake/shard-texel-rows';
import { TileEncodePool } from '../../../src/sources/bake/tile-encode-pool';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';

const dir = mkdtempSync(join(tmpdir(), 'tessera-shards-'));
/** Two workers shared by every in-process bake: starting worker processes is most of a bake's time. */
const encodePool = new TileEncodePool({ workers: 2 });
afterAll(async () => {
  await encodePool.close();
  rmSync(dir, { recursive: true, force: true });
});
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['packages/baker/bin/tessera.mjs', ...args], { encoding: 'utf8' });

type Bake = (options: BakeOptions, sink: FileArchiveSink | MemoryArchiveSink) => Promise<unknown>;

const procedural: Bake = (options, sink) =>
  bakeProcedural(8, 8, { tileSize: 32, border: 4, encoding: 'webp', encodePool, ...options }, sink);

/** Bakes a noise image of `width` x `height` from a file (made on first use) out of core. */
function imageFileBake(width: number, height: number): Bake {
  const path = join(dir, `photo-${width}x${height}.png`);
  let made: Promise<unknown> | null = null;
  return async (options, sink) => {
    made ??= import('sharp').then(({ default: sharp }) =>
      sharp({
        create: {
          width,
          height,
          channels: 3,
          background: '#000000',
          noise: { type: 'gaussian', mean: 128, sigma: 40 },
        },
      })
        .png()
        .toFile(path),
    );
    await made;
    return bakeImageFiles(
      [{ name: 'albedo', colorSpace: 'srgb', path }],
      { tileSize: 32, border: 4, encoding: 'png', encodePool, ...options },
      sink,
    );
  };
}
/** 8 x 8 pages of 24 payload texels. */
const imageFiles = imageFileBake(150, 130);
const imagePath = join(dir, 'photo-150x130.png');

async function bakeShards(bake: Bake, count: number, name: string): Promise<string[]> {
  const paths: string[] = [];
  for (let index = 0; index < count; index++) {
    const sink = new FileArchiveSink(join(dir, `${name}-${index}.tsvs`));
    await bake({ shard: { index, count } }, sink);
    sink.commit();
    paths.push(sink.path);
  }
  return paths;
}

function merged(paths: string[]): Uint8Array {
  const sink = new MemoryArchiveSink();
  mergeShards(paths, sink);
  return sink.toBytes();
}

describe('sharded bakes', { timeout: 120_000 }, () => {
  it('splits every mip into row ranges that cover each page row exactly once', () => {
    const layout = mipLayout(64, 16, 7);
    for (const count of [1, 3, 4, 7, 64]) {
      const covered = layout.pagesHigh.map((h) => new Uint8Array(h));
      for (let index = 0; index < count; index++) {
        const rows = shardRows(layout, { index, count });
        for (let m = 0; m < 7; m++) for (let y = rows.start[m]; y < rows.end[m]; y++) covered[m][y]++;
      }
      expect(covered.every((mip) => mip.every((c) => c === 1))).toBe(true);
    }
    expect(parseShardSpec('3/4')).toEqual({ index: 3, count: 4 });
    for (const bad of ['4/4', '1/0', '-1/4', 'a/b', '1/4/2', '1/5000'])
      expect(() => parseShardSpec(bad)).toThrow(/shard/);
  });

  it('has each out-of-core shard read only the rows its pages depend on', () => {
    const layout = mipLayout(64, 64, 7);
    const payload = 120;
    const border = 4;
    for (const count of [2, 4, 7]) {
      for (let index = 0; index < count; index++) {
        const own = shardRows(layout, { index, count });
        const rows = shardTexelRows(layout, own, payload, border);
        for (let m = 0; m < 7; m++) {
          // The rows its own tiles cut, and the rows the next mip's needed rows average from.
          if (own.end[m] > own.start[m]) {
            expect(rows.start[m]).toBeLessThanOrEqual(Math.max(0, own.start[m] * payload - border));
            expect(rows.end[m]).toBeGreaterThanOrEqual(
              Math.min((64 * payload) >> m, own.end[m] * payload + border),
            );
          }
          if (m + 1 < 7 && rows.end[m + 1] > rows.start[m + 1]) {
            expect(rows.start[m]).toBeLessThanOrEqual(2 * rows.start[m + 1]);
            expect(rows.end[m]).toBeGreaterThanOrEqual(2 * rows.end[m + 1]);
          }
        }
      }
    }
    // Shard 0 of 4 owns mip 4's row 0, a quarter of the image: it reads mip 0's rows 0 to 1984
    // (a quarter and 64 border rows) and none of mip 6. The last shard owns the coarsest page,
    // which depends on every texel.
    const first = shardTexelRows(layout, shardRows(layout, { index: 0, count: 4 }), payload, border);
    expect([first.start[0], first.end[0], first.start[6], first.end[6]]).toEqual([0, 1984, 0, 0]);
    const last = shardTexelRows(layout, shardRows(layout, { index: 3, count: 4 }), payload, border);
    expect([last.start[0], last.end[0]]).toEqual([0, 64 * payload]);
  });

  it.each([
    ['the procedural world (coarsest mip first)', procedural, 'proc', 4],
    ['an image file (out of core, finest mip first)', imageFiles, 'img', 4],
    ['a wide image file in more shards than it has page rows', imageFileBake(300, 60), 'wide', 5],
  ] as const)('shards of %s merge into the direct bake, byte for byte', async (_, bake, name, count) => {
    const direct = new MemoryArchiveSink();
    await bake({}, direct);
    const paths = await bakeShards(bake, count, name);
    const bytes = merged([...paths.slice(2), ...paths.slice(0, 2)]);
    expect(Buffer.from(bytes).equals(Buffer.from(direct.toBytes()))).toBe(true);
    const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes as Uint8Array<ArrayBuffer>));
    expect(source.header.tileSize).toBe(32);
  });

  it('refuses a missing, repeated, foreign or damaged shard', async () => {
    const paths = await bakeShards(procedural, 3, 'three');
    expect(() => merged(paths.slice(0, 2))).toThrow(/shard 2\/3 is missing/);
    expect(() => merged([paths[0], paths[0], paths[1], paths[2]])).toThrow(/given twice/);
    const other = await bakeShards((o, s) => procedural({ ...o, encoding: 'png' }, s), 3, 'other');
    expect(() => merged([paths[0], other[1], paths[2]])).toThrow(/same bake/);
    const damaged = readFileSync(paths[1]);
    damaged[16 + 48 + 2 * 40 + 5] ^= 0xff; // inside the index: the checksum no longer holds
    writeFileSync(join(dir, 'damaged.tsvs'), damaged);
    expect(() => merged([paths[0], join(dir, 'damaged.tsvs'), paths[2]])).toThrow(/checksum/);
    expect(() => merged([paths[0], imagePath, paths[2]])).toThrow(/not a shard file/);
  });
});

describe('tessera bake --workers / --shard and tessera merge (CLI)', { timeout: 120_000 }, () => {
  const base = ['bake', '--procedural', '2', '--size', '96', '--tile', '32', '--border', '4'];

  it('refuses bad --workers and --shard values before creating any file', () => {
    const out = join(dir, 'refused.tsva');
    for (const flags of [
      ['--workers', '0'],
      ['--workers', '65'],
      ['--workers', 'two'],
      ['--shard', '4/4'],
      ['--shard', 'x'],
    ]) {
      const result = run(...base, '-o', out, ...flags);
      expect(result.status, flags.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/workers|shard/);
    }
    expect(run('merge', join(dir, 'a.tsvs')).status).toBe(2);
    expect(readdirSync(dir).filter((f) => f.includes('refused'))).toEqual([]);
  });

  it('bakes and merges shards from the command line; a failed bake or merge leaves no file', async () => {
    const shards = [0, 1].map((i) => join(dir, `cli-${i}.tsvs`));
    for (const [i, path] of shards.entries())
      expect(run(...base, '--shard', `${i}/2`, '--workers', '1', '-o', path).status).toBe(0);
    const out = join(dir, 'cli.tsva');
    const merge = run('merge', shards[1], shards[0], '-o', out);
    expect(merge.status).toBe(0);
    expect(run(...base, '-o', join(dir, 'cli-direct.tsva')).status).toBe(0);
    expect(readFileSync(out).equals(readFileSync(join(dir, 'cli-direct.tsva')))).toBe(true);

    // A merge missing a shard fails and leaves neither the output nor a temporary file.
    const failedMerge = join(dir, 'failed-merge.tsva');
    expect(run('merge', shards[0], '-o', failedMerge).status).toBe(1);
    expect(existsSync(failedMerge)).toBe(false);

    // A layer of the wrong size fails the bake: no file, and an older archive there is kept.
    const { default: sharp } = await import('sharp');
    const a = join(dir, 'a.png');
    const b = join(dir, 'b.png');
    await sharp({ create: { width: 40, height: 40, channels: 3, background: '#808080' } })
      .png()
      .toFile(a);
    await sharp({ create: { width: 41, height: 40, channels: 3, background: '#808080' } })
      .png()
      .toFile(b);
    const failed = join(dir, 'failed.tsva');
    const wrongSize = run('bake', a, '--layer', `normal=${b}`, '--tile', '32', '-o', failed);
    expect(wrongSize.status).toBe(1);
    expect(wrongSize.stderr).toMatch(/is not 40x40/);
    expect(existsSync(failed)).toBe(false);
    writeFileSync(failed, 'older archive');
    expect(run('bake', a, '--layer', `normal=${b}`, '--tile', '32', '-o', failed).status).toBe(1);
    expect(readFileSync(failed, 'utf8')).toBe('older archive');
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });
});
