/** The comparison mode's plain three.js figure (demo/comparison/plain-three-estimate.ts). */

import { describe, expect, it } from 'vitest';
import { plainThreeEstimate, rgba8ChainBytes } from '../../../demo/comparison/plain-three-estimate';

describe('plainThreeEstimate', () => {
  it('counts each terrain layer as the largest rgba8 texture with its mips, plus the props fully resident', () => {
    expect(rgba8ChainBytes(1)).toBe(4);
    expect(rgba8ChainBytes(4)).toBe((16 + 4 + 1) * 4);
    const estimate = plainThreeEstimate(8192, 2, 1000);
    // 8192² rgba8 is 256 MiB; the chain adds a third (to within the 1x1 level's rounding).
    expect(estimate.terrainBytes).toBe(2 * rgba8ChainBytes(8192));
    expect(estimate.terrainBytes / (2 * 256 * 1024 * 1024)).toBeCloseTo(4 / 3, 5);
    expect(estimate.totalBytes).toBe(estimate.terrainBytes + 1000);
    expect(estimate.maxTextureDimension).toBe(8192);
  });
});
