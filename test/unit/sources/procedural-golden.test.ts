import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';

// The baked demo asset (assets/world-seed7-64p.tsva) and every saved reference assume the world
// never changes: a speed-up that moves one bit of one texel must fail here, not silently change
// the demo. The digest was taken before the generator's performance work (interior and edge
// tiles, fine and coarse mips, both layers).
const GOLDEN = '5cf4f0753198f015ab5b67b0a6ca3ad3dcc6b8baeefcb875881b3a1afc0a0c5e';
const TILES: readonly (readonly [mip: number, x: number, y: number])[] = [
  [0, 0, 0],
  [0, 37, 21],
  [0, 63, 63],
  [2, 15, 0],
  [3, 5, 7],
  [5, 1, 1],
  [6, 0, 0],
];

describe('ProceduralWorld output', () => {
  it('is bit-identical to the reference world (seed 7, 64 pages)', () => {
    const world = new ProceduralWorld({ seed: 7, widthPages: 64 });
    const albedo = new Uint8Array(128 * 128 * 4);
    const normal = new Uint8Array(128 * 128 * 4);
    const hash = createHash('sha256');
    for (const [mip, x, y] of TILES) {
      world.generateTile(mip, x, y, albedo, normal);
      hash.update(albedo);
      hash.update(normal);
    }
    expect(hash.digest('hex')).toBe(GOLDEN);
  });
});
