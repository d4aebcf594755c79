/**
 * The committed prop textures (assets/props/) are what the demo's generator makes (so
 * `npm run bake:props` remakes them), and a region's set is tens of MiB when fully resident.
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROP_TEXTURE_SEED, propTextureFile } from '../../../demo/props/prop-texture-files';
import {
  generatePropLevels,
  motifsAcross,
  PROP_MOTIF_SIZE,
  PROP_SURFACES,
  PROP_TEXTURE_SIZES,
} from '../../../demo/props/prop-textures';
import { findRegion, REGIONS } from '../../../demo/regions';
import { fullyResidentBytes } from '../../../demo/scenes/fully-resident-bytes';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';

const assets = resolve(import.meta.dirname, '../../../assets');
const MIB = 1024 * 1024;

function open(region: string, surface: (typeof PROP_SURFACES)[number]): Ktx2Source {
  return new Ktx2Source(
    new Uint8Array(readFileSync(resolve(assets, propTextureFile(region as never, surface)))),
  );
}

describe('prop textures', () => {
  it('repeat one motif across the texture and box-filter every level down to 1x1', () => {
    const levels = generatePropLevels(findRegion('desert')!, 'wall', 3);
    const size = PROP_TEXTURE_SIZES.wall;
    expect(levels).toHaveLength(Math.log2(size) + 1);
    expect(levels[0].byteLength).toBe(size * size * 4);
    expect(levels[levels.length - 1].byteLength).toBe(4);
    expect(motifsAcross('wall')).toBe(size / PROP_MOTIF_SIZE);
    // Texel (x, y) equals texel (x + motif, y + motif): the repeat that keeps the file small.
    const texel = (x: number, y: number) => levels[0].subarray((y * size + x) * 4, (y * size + x) * 4 + 4);
    expect([...texel(17 + PROP_MOTIF_SIZE, 5 + PROP_MOTIF_SIZE)]).toEqual([...texel(17, 5)]);
  });

  it('committed files hold the generated levels, and each region is tens of MiB fully resident', async () => {
    const wall = open('valley', 'wall');
    expect(wall.format).toBe('rgba8unorm-srgb');
    const expected = generatePropLevels(REGIONS[0], 'wall', PROP_TEXTURE_SEED);
    const coarse = wall.mipLevelCount - 3;
    // Buffer.compare: a deep toEqual over 16 MiB takes minutes.
    const same = (a: Uint8Array, b: Uint8Array) =>
      a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
    expect(same(await wall.loadLevel(coarse, new AbortController().signal), expected[coarse])).toBe(true);
    expect(same(await wall.loadLevel(0, new AbortController().signal), expected[0])).toBe(true);
    expect(same(await wall.loadLevel(1, new AbortController().signal), expected[0].subarray(0, 16))).toBe(
      false,
    );
    for (const region of REGIONS) {
      let bytes = 0;
      for (const surface of PROP_SURFACES) bytes += fullyResidentBytes(open(region.name, surface) as never);
      expect(bytes / MIB).toBeCloseTo(58.67, 1);
    }
  });
});
