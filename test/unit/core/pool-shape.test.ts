import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choosePoolShape, poolSlotCount } from '../../../src/core/vt/residency/pool-shape';
import { textureBytes } from '../../../src/three/residency/allocated-texture';

describe('choosePoolShape', () => {
  it('fills a 64 MiB single-layer budget with 128² tiles without exceeding it', () => {
    const shape = choosePoolShape(64 << 20, 128, 1, 8192);
    const bytes = shape.slotsPerRow * shape.slotRows * 128 * 128 * 4;
    expect(bytes).toBeLessThanOrEqual(64 << 20);
    expect(shape.slotsPerRow * shape.slotRows).toBeGreaterThanOrEqual(1000);
  });

  it('never exceeds the budget or the texture size limit (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1 << 16, max: 1 << 30 }),
        fc.constantFrom(64, 128, 256),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(2048, 4096, 8192, 16384),
        (budget, tile, layers, maxSize) => {
          const shape = choosePoolShape(budget, tile, layers, maxSize);
          const slots = shape.slotsPerRow * shape.slotRows;
          if (slots === 0) return budget < tile * tile * 4 * layers * 1;
          expect(slots * tile * tile * 4 * layers).toBeLessThanOrEqual(budget);
          expect(shape.slotsPerRow * tile).toBeLessThanOrEqual(maxSize);
          expect(shape.slotRows * tile).toBeLessThanOrEqual(maxSize);
          expect(slots).toBeLessThanOrEqual(65536);
          return true;
        },
      ),
    );
  });
});

describe('choosePoolShape with array textures', () => {
  it('keeps the 2D shape whenever one texture holds the slots', () => {
    for (const budget of [1 << 20, 64 << 20, 256 << 20]) {
      const flat = choosePoolShape(budget, 128, 1, 8192);
      const withArrays = choosePoolShape(budget, 128, 1, 8192, 256);
      expect(withArrays).toEqual(flat);
      expect(withArrays.arrayLayers).toBe(1);
    }
  });

  it('turns a 1 GiB pool of 128² tiles into an array of 8192² grids (64 x 64 slots each)', () => {
    const shape = choosePoolShape(1 << 30, 128, 1, 8192, 256);
    expect(shape.slotsPerRow).toBe(64);
    expect(shape.arrayLayers).toBe(4);
    expect(shape.slotRows).toBe(64);
    expect(poolSlotCount(shape)).toBe(16384);
  });

  it('caps at 65536 slots (the 16-bit slot field), the array-layer limit and the budget', () => {
    const huge = choosePoolShape(2 ** 40, 128, 1, 8192, 256);
    expect(poolSlotCount(huge)).toBe(65536);
    expect(huge.arrayLayers).toBe(16);
    const fewLayers = choosePoolShape(2 ** 40, 128, 1, 512, 3);
    expect(fewLayers).toEqual({ slotsPerRow: 4, slotRows: 4, arrayLayers: 3, tileSize: 128 });
  });

  it('trims rows evenly so a partial last array layer is not lost', () => {
    // 40 slots of 64 KiB in grids of at most 16: 3 array layers of 4 x 3 = 36 slots (not 32).
    const shape = choosePoolShape(40 * 128 * 128 * 4, 128, 1, 512, 256);
    expect(shape).toEqual({ slotsPerRow: 4, slotRows: 3, arrayLayers: 3, tileSize: 128 });
  });

  it('never exceeds the budget or any texture limit, and wastes under one row per array layer (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1 << 16, max: 2 ** 36 }),
        fc.constantFrom(64, 128, 256),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(256, 512, 2048, 8192),
        fc.integer({ min: 1, max: 256 }),
        (budget, tile, layers, maxSize, maxArrayLayers) => {
          const shape = choosePoolShape(budget, tile, layers, maxSize, maxArrayLayers);
          const slots = poolSlotCount(shape);
          const slotBytes = tile * tile * 4 * layers;
          const perSide = Math.floor(maxSize / tile);
          expect(slots * slotBytes).toBeLessThanOrEqual(budget);
          expect(slots).toBeLessThanOrEqual(65536);
          expect(shape.slotsPerRow * tile).toBeLessThanOrEqual(maxSize);
          expect(shape.slotRows * tile).toBeLessThanOrEqual(maxSize);
          expect(shape.arrayLayers).toBeGreaterThanOrEqual(1);
          expect(shape.arrayLayers).toBeLessThanOrEqual(Math.max(1, maxArrayLayers));
          if (shape.arrayLayers > 1) {
            // Only when one grid cannot hold the slots, and every array layer is a full-width grid.
            expect(Math.floor(budget / slotBytes)).toBeGreaterThan(perSide * perSide);
            expect(shape.slotsPerRow).toBe(perSide);
            const wanted = Math.min(
              Math.floor(budget / slotBytes),
              65536,
              perSide * perSide * maxArrayLayers,
            );
            expect(wanted - slots).toBeLessThan(shape.arrayLayers * shape.slotsPerRow);
          }
          return true;
        },
      ),
    );
  });
});

describe('textureBytes', () => {
  it('sums every mip level of a 4-byte texture', () => {
    expect(textureBytes(128, 128, 8)).toBe(
      4 * (128 * 128 + 64 * 64 + 32 * 32 + 16 * 16 + 8 * 8 + 16 + 4 + 1),
    );
    expect(textureBytes(4, 1, 3)).toBe(4 * (4 + 2 + 1));
  });
});
