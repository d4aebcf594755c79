import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { createNodeImageCodecs } from '../../../src/sources/io/node-image-codecs';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { InlineTileDecoder } from '../../../src/sources/io/tile-decoder';

const dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['packages/baker/bin/tessera.mjs', ...args], { encoding: 'utf8' });

describe('tessera bake CLI', { timeout: 60_000 }, () => {
  it('bakes the procedural world with a progress bar, deterministically', () => {
    const out = join(dir, 'p.tsva');
    const first = run(
      'bake',
      '--procedural',
      '4',
      '--size',
      '96',
      '--tile',
      '32',
      '--border',
      '4',
      '-o',
      out,
    );
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/tiles\/s ETA/);
    const bytes = readFileSync(out);
    expect(
      run('bake', '--procedural', '4', '--size', '96', '--tile', '32', '--border', '4', '-o', out).status,
    ).toBe(0);
    expect(readFileSync(out).equals(bytes)).toBe(true);
  });

  it('bakes an image with an extra layer as JPEG that reads back', async () => {
    const { default: sharp } = await import('sharp');
    const image = join(dir, 'in.png');
    await sharp({ create: { width: 70, height: 50, channels: 3, background: { r: 200, g: 100, b: 50 } } })
      .png()
      .toFile(image);
    const out = join(dir, 'i.tsva');
    const result = run(
      'bake',
      image,
      '-o',
      out,
      '--tile',
      '32',
      '--border',
      '2',
      '--layer',
      `normal=${image}`,
      '--encoding',
      'jpeg',
    );
    expect(result.status).toBe(0);
    const source = await ArchiveTileSource.open(new MemoryRangeReader(new Uint8Array(readFileSync(out))), {
      decoder: new InlineTileDecoder(createNodeImageCodecs()),
    });
    expect(source.info.layers.map((l) => l.name)).toEqual(['albedo', 'normal']);
    expect(source.header.contentWidth).toBe(70);
    const tile = await source.load(0, 1, 1, new AbortController().signal);
    expect(Math.abs(tile.layers[0][0] - 200)).toBeLessThanOrEqual(3);
  });

  it('exits 2 with usage on bad arguments', () => {
    const result = run('bake', '-o', join(dir, 'x.tsva'));
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/usage/);
    expect(run('bake', '--procedural', '1', '-o', join(dir, 'y.tsva'), '--encoding', 'gif').status).toBe(2);
  });

  it('bakes UASTC + zstd with RDO, byte-identical twice, and the source serves UASTC blocks', async () => {
    const out = join(dir, 'u.tsva');
    const args = ['bake', '--procedural', '2', '--size', '48', '--tile', '32', '--border', '4', '-o', out];
    const uastc = ['--encoding', 'uastc', '--rdo', '1', '--zstd', '12'];
    const first = run(...args, ...uastc);
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/tiles\/s ETA/);
    const bytes = readFileSync(out);
    expect(run(...args, ...uastc).status).toBe(0);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    const source = await ArchiveTileSource.open(new MemoryRangeReader(new Uint8Array(bytes)));
    expect(source.header.layers.map((l) => l.encoding)).toEqual(['uastc-zstd', 'uastc-zstd']);
    expect(source.info.layers.map((l) => l.format)).toEqual(['uastc-4x4-srgb', 'uastc-4x4']);
    const tile = await source.load(0, 1, 1, new AbortController().signal);
    expect(tile.layers.map((l) => l.length)).toEqual([1024, 1024]);
  });

  it('refuses UASTC options without --encoding uastc, and tiles that are not whole blocks', () => {
    const out = join(dir, 'bad.tsva');
    const base = ['bake', '--procedural', '2', '--size', '48', '--tile', '32', '-o', out];
    expect(run(...base, '--zstd', '9').status).toBe(2);
    expect(run(...base, '--encoding', 'webp', '--rdo', '1').status).toBe(2);
    const border = run(...base, '--border', '2', '--encoding', 'uastc');
    expect(border.status).toBe(2);
    expect(border.stderr).toMatch(/multiples of 4/);
    expect(run(...base, '--border', '4', '--encoding', 'uastc', '--zstd', '40').stderr).toMatch(
      /zstd level 40/,
    );
  });
});
