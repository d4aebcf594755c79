import { describe, expect, it } from 'vitest';
import { isAbortError, TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { ProceduralTileSource } from '../../../src/sources/procedural/procedural-tile-source';
import { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';
import { measureMipConsistency } from './procedural-helpers';

const T = 128;
const B = 4;
const P = T - 2 * B;

function tile(world: ProceduralWorld, mip: number, x: number, y: number) {
  const albedo = new Uint8Array(T * T * 4);
  const normal = new Uint8Array(T * T * 4);
  world.generateTile(mip, x, y, albedo, normal);
  return [albedo, normal];
}

describe('ProceduralWorld', { timeout: 30_000 }, () => {
  const world = new ProceduralWorld({ seed: 42, widthPages: 1024 });

  it('is deterministic in its seed', () => {
    const again = new ProceduralWorld({ seed: 42, widthPages: 1024 });
    const other = new ProceduralWorld({ seed: 43, widthPages: 1024 });
    expect(tile(again, 3, 10, 20)).toEqual(tile(world, 3, 10, 20));
    expect(tile(other, 3, 10, 20)[0]).not.toEqual(tile(world, 3, 10, 20)[0]);
  });

  it('fills borders with the neighbouring tile texels of the same mip, exactly', () => {
    for (const mip of [0, 4, 8]) {
      const x = 1;
      const y = 1;
      const [a] = tile(world, mip, x, y);
      const [right] = tile(world, mip, x + 1, y);
      const [below] = tile(world, mip, x, y + 1);
      for (let j = 0; j < T; j++) {
        for (let i = T - 2 * B; i < T; i++) {
          // Tile column i is global texel x*P - B + i; in the right neighbour it is column i - P.
          const o = (j * T + i) * 4;
          const n = (j * T + i - P) * 4;
          expect(a.subarray(o, o + 4)).toEqual(right.subarray(n, n + 4));
        }
      }
      for (let j = T - 2 * B; j < T; j++) {
        const o = j * T * 4;
        const n = (j - P) * T * 4;
        expect(a.subarray(o, o + T * 4)).toEqual(below.subarray(n, n + T * 4));
      }
    }
  });

  it('keeps seams exact between an edge tile (clamped columns) and its interior neighbour', () => {
    // Tile 0 clamps its left border to the texture edge, so its columns take the general
    // interpolation path while tile 1 takes the stride-2 one: shared texels must still agree.
    for (const mip of [0, 2, 6]) {
      const [left] = tile(world, mip, 0, 3);
      const [right] = tile(world, mip, 1, 3);
      for (let j = 0; j < T; j++) {
        for (let i = T - 2 * B; i < T; i++) {
          const o = (j * T + i) * 4;
          const n = (j * T + i - P) * 4;
          expect(left.subarray(o, o + 4)).toEqual(right.subarray(n, n + 4));
        }
      }
      const [top] = tile(world, mip, 3, 0);
      const [below] = tile(world, mip, 3, 1);
      for (let j = T - 2 * B; j < T; j++) {
        const o = j * T * 4;
        const n = (j - P) * T * 4;
        expect(top.subarray(o, o + T * 4)).toEqual(below.subarray(n, n + T * 4));
      }
    }
  });

  it('clamps borders at the texture edge to the edge texel', () => {
    const [a] = tile(world, 9, 0, 0);
    for (let j = B; j < T - B; j++) {
      for (let i = 0; i < B; i++) {
        expect(a.subarray((j * T + i) * 4, (j * T + i) * 4 + 4)).toEqual(
          a.subarray((j * T + B) * 4, (j * T + B) * 4 + 4),
        );
      }
    }
  });

  it('keeps mip N within tolerance of the linear-light 2x2 average of mip N-1', () => {
    // Stated tolerance (docs/FORMAT.md, procedural section): mean albedo error <= 3 sRGB steps,
    // 99th percentile <= 32 steps, mean normal angle <= 2 degrees.
    for (const mip of [1, 3, 5, 7, 9]) {
      const n = 1024 >> mip;
      const r = measureMipConsistency(world, mip, n >> 1, n >> 2);
      expect(r.albedoMeanError).toBeLessThanOrEqual(3);
      expect(r.albedoP99Error).toBeLessThanOrEqual(32);
      expect(r.normalMeanErrorDeg).toBeLessThanOrEqual(2);
    }
  });

  it('draws more than one biome and encodes unit normals', () => {
    const [albedo, normal] = tile(world, 10, 0, 0);
    const colours = new Set<number>();
    for (let i = 0; i < albedo.length; i += 4)
      colours.add((albedo[i] >> 5) * 64 + (albedo[i + 1] >> 5) * 8 + (albedo[i + 2] >> 5));
    expect(colours.size).toBeGreaterThan(6);
    for (let i = 0; i < normal.length; i += 4) {
      const v = [0, 1, 2].map((c) => normal[i + c] / 127.5 - 1);
      expect(Math.hypot(v[0], v[1], v[2])).toBeGreaterThan(0.97);
      expect(Math.hypot(v[0], v[1], v[2])).toBeLessThan(1.03);
      expect(v[2]).toBeGreaterThan(0);
    }
  });

  it('exposes a height function in [0, 1] that agrees with the normal layer slope direction', () => {
    const h = world.heightAt(0.3, 0.6);
    expect(h).toBeGreaterThanOrEqual(0);
    expect(h).toBeLessThanOrEqual(1);
    expect(world.heightAt(0.3, 0.6)).toBe(h);
    // The mip-N height averages its footprint: it stays near the mean of fine samples.
    let sum = 0;
    for (let k = 0; k < 16; k++) sum += world.heightAt(0.3 + (k % 4) * 1e-6, 0.6 + Math.floor(k / 4) * 1e-6);
    expect(Math.abs(sum / 16 - h)).toBeLessThan(0.05);
  });

  it('rejects bad sizes with typed config errors', () => {
    expect(() => new ProceduralWorld({ seed: 1, widthPages: 1000 })).toThrow(TesseraConfigError);
    expect(() => new ProceduralWorld({ seed: 1, tileSize: 8, border: 4 })).toThrow(TesseraConfigError);
  });
});

describe('ProceduralTileSource', { timeout: 30_000 }, () => {
  const source = new ProceduralTileSource({ seed: 5, widthPages: 16 });

  it('loads tiles as two tileSize² x 4 layers', async () => {
    const data = await source.load(2, 1, 3, new AbortController().signal);
    expect(source.info.layers.map((l) => l.name)).toEqual(['albedo', 'normal']);
    expect(data.layers.map((l) => l.length)).toEqual([T * T * 4, T * T * 4]);
  });

  it('rejects aborted loads and pages outside the pyramid', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(await source.load(0, 0, 0, controller.signal).catch((e) => e))).toBe(true);
    const error = await source.load(1, 8, 0, new AbortController().signal).catch((e) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect(await source.load(5, 0, 0, new AbortController().signal).catch((e) => e)).toBeInstanceOf(
      TileSourceError,
    );
  });
});

describe('valueNoise', () => {
  it('stays in [-1, 1] and its analytic gradient matches finite differences', async () => {
    const { valueNoise } = await import('../../../src/sources/procedural/value-noise');
    const s = { value: 0, dx: 0, dy: 0 };
    const t = { value: 0, dx: 0, dy: 0 };
    const h = 1e-6;
    for (let k = 0; k < 500; k++) {
      const x = (k * 7.31) % 97.3;
      const y = (k * 3.77) % 53.1;
      const v = valueNoise(x, y, 12345, s);
      expect(Math.abs(v)).toBeLessThanOrEqual(1);
      expect(s.dx).toBeCloseTo((valueNoise(x + h, y, 12345, t) - v) / h, 3);
      expect(s.dy).toBeCloseTo((valueNoise(x, y + h, 12345, t) - v) / h, 3);
    }
  });
});
