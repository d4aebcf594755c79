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
import { MemoryRangeReader } from '../../../src/sources/archive/range-reader';
import { type BakeOptions, bakeProcedural } from '../../../src/sources/bake/bake-archive';
import { bakeImageFiles } from '../../../src/sources/bake/bake-out-of-core';
import { mergeShards } from '../../../src/sources/bake/merge-shards';
import { TileEncodePool } from '../../../src/sources/bake/tile-encode-pool';

const dir = mkdtempSync(join(tmpdir(), 'tessera-shards-'));
/** Two workers shared by every in-process bake: starting worker processes is most of a bake's time. */
const encodePool = new TileEncodePool({ workers: 2 });
afterAll(async () => {
  await encodePool.close();
  rmSync(dir, { recursive: true, force: true });
});
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['bin/tessera.mjs', ...args], { encoding: 'utf8' });

type Bake = (options: BakeOptions, sink: FileArchiveSink | MemoryArchiveSink) => Promise<unknown>;

const procedural: Bake = (options, sink) =>
  bakeProcedural(8, 8, { tileSize: 32, border: 4, encoding: 'webp', encodePool, ...options }, sink);

let imagePath = '';
const imageFiles: Bake = async (options, sink) => {
  if (imagePath === '') {
    const { default: sharp } = await import('sharp');
    imagePath = join(dir, 'photo.png');
    await sharp({
      create: {
        width: 150,
        height: 130,
        channels: 3,
        background: '#000000',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png()
      .toFile(imagePath);
  }
  return bakeImageFiles(
    [{ name: 'albedo', colorSpace: 'srgb', path: imagePath }],
    { tileSize: 32, border: 4, encoding: 'png', encodePool, ...options },
    sink,
  );
};

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

  it.each([
    ['the procedural world (coarsest mip first)', procedural, 'proc'],
    ['an image file (out of core, finest mip first)', imageFiles, 'img'],
  ] as const)('4 shards of %s merge into the direct bake, byte for byte', async (_, bake, name) => {
    const direct = new MemoryArchiveSink();
    await bake({}, direct);
    const paths = await bakeShards(bake, 4, name);
    const bytes = merged([paths[2], paths[0], paths[3], paths[1]]);
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
