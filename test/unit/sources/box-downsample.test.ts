import { describe, expect, it } from 'vitest';
import { buildRgba8MipChain, downsampleRgba8 } from '../../../src/sources/mips/box-downsample';

describe('box downsampling of images without stored mips', () => {
  it('averages 2x2 blocks: linear data as stored, sRGB colour in linear light, alpha linear', () => {
    // One 2x2 block: black and white texels, alpha 0 and 255.
    const src = new Uint8Array([0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
    expect(Array.from(downsampleRgba8(src, 2, 2, false))).toEqual([128, 128, 128, 128]);
    // Half white in linear light is sRGB 188, not 128.
    expect(Array.from(downsampleRgba8(src, 2, 2, true))).toEqual([188, 188, 188, 128]);
  });

  it('builds the full chain down to 1x1 with odd and non-square edges (last row or column clamped)', () => {
    const w = 5;
    const h = 3;
    const level0 = new Uint8Array(w * h * 4).fill(77);
    const chain = buildRgba8MipChain(level0, w, h, true);
    expect(chain.map((l) => l.byteLength / 4)).toEqual([15, 2, 1]);
    // A uniform image stays uniform at every level (no darkening at clamped edges).
    for (const level of chain) expect(level.every((v) => v === 77)).toBe(true);
  });
});
