import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textureBytes } from '../../../src/three/allocated-texture';
import { choosePoolShape } from '../../../src/three/pool-textures';

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

describe('textureBytes', () => {
  it('sums every mip level of a 4-byte texture', () => {
    expect(textureBytes(128, 128, 8)).toBe(
      4 * (128 * 128 + 64 * 64 + 32 * 32 + 16 * 16 + 8 * 8 + 16 + 4 + 1),
    );
    expect(textureBytes(4, 1, 3)).toBe(4 * (4 + 2 + 1));
  });
});
