import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import {
  bufferBytes,
  fullMipCount,
  TEXTURE_FORMAT_NAMES,
  type TextureFormatName,
  textureBytes,
  textureFormatInfo,
  textureLevelRangeBytes,
} from '../../../src/core/index';

describe('texture byte accounting', () => {
  it('matches the reference figures', () => {
    expect(textureBytes({ format: 'rgba8unorm', width: 256, height: 256, mipLevelCount: 9 })).toBe(349_524);
    expect(textureBytes({ format: 'bc7-rgba-unorm', width: 256, height: 256 })).toBe(65_536);
  });

  it('sizes every format: one level of 12x12 texels', () => {
    expect(TEXTURE_FORMAT_NAMES.length).toBe(101);
    const expected: Record<string, number> = {
      r8unorm: 144,
      rg8unorm: 288,
      rgba8unorm: 576,
      rgba16float: 1152,
      rgba32float: 2304,
      depth16unorm: 288,
      depth24plus: 576,
      'depth24plus-stencil8': 1152,
      stencil8: 144,
      'bc1-rgba-unorm': 9 * 8,
      'bc7-rgba-unorm-srgb': 9 * 16,
      'etc2-rgb8unorm': 9 * 8,
      'eac-rg11snorm': 9 * 16,
      'astc-4x4-unorm': 9 * 16,
      'astc-5x5-unorm': 9 * 16, // ceil(12/5)=3
      'astc-8x8-unorm-srgb': 4 * 16,
      'astc-10x6-unorm': 2 * 2 * 16,
      'astc-12x12-unorm': 16,
    };
    for (const format of TEXTURE_FORMAT_NAMES) {
      const info = textureFormatInfo(format);
      const bytes = textureBytes({ format, width: 12, height: 12 });
      const blocks = Math.ceil(12 / info.blockWidth) * Math.ceil(12 / info.blockHeight);
      expect(bytes).toBe(blocks * info.bytesPerBlock);
      if (format in expected) expect(bytes, format).toBe(expected[format]);
    }
  });

  it('rounds partial blocks up at every level of a compressed chain', () => {
    // 130x130 bc1: 33x33 blocks, then 65 -> 17x17, 32 -> 8x8, 16 -> 4x4, 8 -> 2x2, 4,2,1 -> 1 block each
    const levels = [33 * 33, 17 * 17, 8 * 8, 4 * 4, 2 * 2, 1, 1, 1];
    const total = levels.reduce((a, b) => a + b, 0) * 8;
    expect(fullMipCount(130, 130)).toBe(8);
    expect(textureBytes({ format: 'bc1-rgba-unorm', width: 130, height: 130, mipLevelCount: 8 })).toBe(total);
  });

  it('multiplies array layers, halves 3d depth, multiplies samples', () => {
    const one = textureBytes({ format: 'rgba8unorm', width: 64, height: 64, mipLevelCount: 7 });
    expect(
      textureBytes({ format: 'rgba8unorm', width: 64, height: 64, mipLevelCount: 7, depthOrArrayLayers: 6 }),
    ).toBe(one * 6);
    // 3d 4x4x4 r8: 64 + 8 + 1
    expect(
      textureBytes({
        format: 'r8unorm',
        width: 4,
        height: 4,
        depthOrArrayLayers: 4,
        dimension: '3d',
        mipLevelCount: 3,
      }),
    ).toBe(73);
    expect(textureBytes({ format: 'rgba8unorm', width: 100, height: 50, sampleCount: 4 })).toBe(
      100 * 50 * 4 * 4,
    );
  });

  it('sizes a level range (a streamed chain)', () => {
    const desc = { format: 'rgba8unorm' as TextureFormatName, width: 256, height: 256, mipLevelCount: 9 };
    expect(textureLevelRangeBytes(desc, 2, 7)).toBe(349_524 - 262_144 - 65_536);
  });

  it('rejects bad descriptors with typed errors', () => {
    const bad: [object, string][] = [
      [{ format: 'rgba9unorm', width: 4, height: 4 }, 'invalid-option'],
      [{ format: 'rgba8unorm', width: 0, height: 4 }, 'invalid-size'],
      [{ format: 'rgba8unorm', width: 4.5, height: 4 }, 'invalid-size'],
      [{ format: 'rgba8unorm', width: 4, height: 4, mipLevelCount: 4 }, 'invalid-option'],
      [{ format: 'rgba8unorm', width: 4, height: 4, depthOrArrayLayers: 0 }, 'invalid-layers'],
      [{ format: 'rgba8unorm', width: 4, height: 4, sampleCount: 2 }, 'invalid-option'],
      [{ format: 'rgba8unorm', width: 4, height: 4, sampleCount: 4, mipLevelCount: 2 }, 'invalid-option'],
    ];
    for (const [desc, code] of bad) {
      expect(() => textureBytes(desc as never)).toThrow(TesseraConfigError);
      try {
        textureBytes(desc as never);
      } catch (error) {
        expect((error as TesseraConfigError).code).toBe(code);
      }
    }
  });

  it('rounds buffers up to 4 bytes and rejects negatives', () => {
    expect(bufferBytes(0)).toBe(0);
    expect(bufferBytes(5)).toBe(8);
    expect(bufferBytes(65536)).toBe(65536);
    expect(() => bufferBytes(-1)).toThrow(TesseraConfigError);
  });
});
