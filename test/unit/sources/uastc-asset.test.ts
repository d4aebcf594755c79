import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';
import { decodeUastcToRgba, normalAngleError, rgbPsnr } from '../../support/basis-transcoder';

const ASSETS = join(import.meta.dirname, '../../../assets');

describe('the committed UASTC asset', { timeout: 60_000 }, () => {
  it('is the seed-7 world in UASTC + zstd, close to the procedural source it was baked from', async () => {
    const bytes = new Uint8Array(readFileSync(join(ASSETS, 'world-seed7-16p-uastc.tsva')));
    const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    expect(source.header).toMatchObject({
      widthPages: 16,
      heightPages: 16,
      tileSize: 128,
      border: 4,
      mipCount: 5,
    });
    expect(source.header.layers.map((l) => [l.encoding, l.usage, l.normalChannels])).toEqual([
      ['uastc-zstd', 'color', undefined],
      ['uastc-zstd', 'normal', 'red-alpha'],
    ]);
    const world = new ProceduralWorld({ seed: 7, widthPages: 16 });
    const albedo = new Uint8Array(128 * 128 * 4);
    const normal = new Uint8Array(128 * 128 * 4);
    for (const [mip, x, y] of [
      [0, 5, 9],
      [0, 12, 3],
      [2, 1, 2],
      [4, 0, 0],
    ]) {
      world.generateTile(mip, x, y, albedo, normal);
      const tile = await source.load(mip, x, y, new AbortController().signal);
      expect(rgbPsnr(albedo, await decodeUastcToRgba(tile.layers[0], 128))).toBeGreaterThan(38);
      // The normal map is stored as Basis lays them out: x in red, y in alpha.
      const decoded = await decodeUastcToRgba(tile.layers[1], 128);
      for (let i = 0; i < decoded.length; i += 4) decoded[i + 1] = decoded[i + 3];
      expect(normalAngleError(normal, decoded, true).mean).toBeLessThan(1.5);
    }
  });

  it('keeps the repository assets within 10 MB', () => {
    const total = readdirSync(ASSETS).reduce((sum, file) => sum + statSync(join(ASSETS, file)).size, 0);
    expect(total).toBeLessThanOrEqual(10_000_000);
  });
});
