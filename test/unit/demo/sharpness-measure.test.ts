/** The comparison inset's sharpness figure (demo/comparison/sharpness-measure.ts). */

import { describe, expect, it } from 'vitest';
import {
  encodeCapture,
  LINEAR_TO_SRGB_BYTE,
  meanLuminanceGradient,
} from '../../../demo/comparison/sharpness-measure';

/** A `size`² grey checkerboard whose squares are `cell` pixels wide, RGBA8. */
function checkerboard(size: number, cell: number): Uint8Array {
  const pixels = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const v = ((x / cell) ^ (y / cell)) & 1 ? 255 : 0;
      pixels.set([v, v, v, 255], (y * size + x) * 4);
    }
  return pixels;
}

describe('meanLuminanceGradient', () => {
  it('is zero on a flat image and falls as the same pattern is magnified', () => {
    expect(meanLuminanceGradient(new Uint8Array(8 * 8 * 4).fill(128), 8, 8)).toBe(0);
    const fine = meanLuminanceGradient(checkerboard(64, 1), 64, 64);
    const coarse = meanLuminanceGradient(checkerboard(64, 8), 64, 64);
    // One-pixel squares change at every step: the full 255 luminance units.
    expect(fine).toBeCloseTo(255, 6);
    // Eight-pixel squares change at 7 of each row's 63 steps (and of each column's).
    expect(coarse).toBeCloseTo((255 * 7) / 63, 6);
  });

  it('rejects an image smaller than its size says, or under 2x2', () => {
    expect(() => meanLuminanceGradient(new Uint8Array(10), 4, 4)).toThrow(RangeError);
    expect(() => meanLuminanceGradient(new Uint8Array(4), 1, 1)).toThrow(RangeError);
  });
});

describe('encodeCapture', () => {
  it('encodes linear bytes to sRGB and flips rows on request, leaving alpha', () => {
    expect(LINEAR_TO_SRGB_BYTE[0]).toBe(0);
    expect(LINEAR_TO_SRGB_BYTE[255]).toBe(255);
    // Linear 0.5 is sRGB ~0.735.
    expect(LINEAR_TO_SRGB_BYTE[128]).toBe(188);
    const pixels = new Uint8Array([128, 0, 0, 7, 255, 255, 255, 9]);
    encodeCapture(pixels, 1, 2, true);
    expect([...pixels]).toEqual([255, 255, 255, 9, 188, 0, 0, 7]);
  });
});
