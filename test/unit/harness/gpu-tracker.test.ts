import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

// The tracker is a plain script injected into pages; in Node it only defines its arithmetic.
const source = readFileSync(new URL('../../support/gpu-tracker.js', import.meta.url), 'utf8');
const sandbox: {
  __tesseraGpuBytes?: {
    textureBytes(d: object): number;
    labelPrefixes(l: string): string[];
    glImageBytes(internalformat: number, type: number, width: number, height: number, depth: number): number;
  };
} = {};
runInNewContext(source, sandbox);
const { textureBytes, labelPrefixes, glImageBytes } = sandbox.__tesseraGpuBytes!;

describe('gpu tracker arithmetic', () => {
  it('sizes a full rgba8 mip chain exactly', () => {
    expect(textureBytes({ size: [256, 256], format: 'rgba8unorm', mipLevelCount: 9 })).toBe(349_524);
    expect(
      textureBytes({ size: { width: 256, height: 256 }, format: 'rgba8unorm-srgb', mipLevelCount: 9 }),
    ).toBe(349_524);
  });

  it('sizes block-compressed formats by 4x4 blocks, rounding partial blocks up', () => {
    expect(textureBytes({ size: [256, 256], format: 'bc7-rgba-unorm' })).toBe(65_536);
    expect(textureBytes({ size: [256, 256], format: 'bc1-rgba-unorm' })).toBe(32_768);
    // 5x5 texels = 2x2 blocks of 16 bytes; mips 2x2 and 1x1 are one block each.
    expect(textureBytes({ size: [5, 5], format: 'bc3-rgba-unorm', mipLevelCount: 3 })).toBe(64 + 16 + 16);
    expect(textureBytes({ size: [12, 12], format: 'astc-6x6-unorm' })).toBe(4 * 16);
    expect(textureBytes({ size: [256, 256], format: 'etc2-rgb8unorm' })).toBe(32_768);
  });

  it('multiplies array layers and samples, and halves 3D depth per level', () => {
    expect(textureBytes({ size: [128, 128, 6], format: 'r32uint' })).toBe(393_216);
    expect(textureBytes({ size: [64, 64, 4], format: 'rgba8unorm', mipLevelCount: 2 })).toBe(
      (16_384 + 4096) * 4,
    );
    expect(textureBytes({ size: [8, 8, 8], format: 'r8unorm', mipLevelCount: 2, dimension: '3d' })).toBe(
      512 + 64,
    );
    expect(textureBytes({ size: [100, 50], format: 'depth24plus', sampleCount: 4 })).toBe(100 * 50 * 4 * 4);
    expect(textureBytes({ size: [7, 3], format: 'rgba16float', mipLevelCount: 3 })).toBe((21 + 3 + 1) * 8);
  });

  it('refuses a format it does not know instead of guessing', () => {
    expect(() => textureBytes({ size: [4, 4], format: 'rgba1000' })).toThrow(/unknown texture format/);
  });

  it('counts a label under each colon-terminated prefix and itself', () => {
    expect(labelPrefixes('tessera:pool:albedo')).toEqual([
      'tessera:',
      'tessera:pool:',
      'tessera:pool:albedo',
    ]);
    expect(labelPrefixes('plain')).toEqual(['plain']);
    expect(labelPrefixes('tessera:')).toEqual(['tessera:']);
  });

  it('sizes WebGL2 images from sized and unsized formats', () => {
    const RGBA8 = 0x8058;
    const R32UI = 0x8236;
    const RGBA = 0x1908;
    const RGB = 0x1907;
    const UNSIGNED_BYTE = 0x1401;
    const FLOAT = 0x1406;
    const UNSIGNED_SHORT_5_6_5 = 0x8363;
    expect(glImageBytes(RGBA8, 0, 256, 256, 1)).toBe(262_144);
    expect(glImageBytes(R32UI, 0, 128, 64, 2)).toBe(65_536);
    expect(glImageBytes(RGBA, UNSIGNED_BYTE, 10, 10, 1)).toBe(400);
    expect(glImageBytes(RGBA, FLOAT, 10, 10, 1)).toBe(1600);
    expect(glImageBytes(RGB, UNSIGNED_SHORT_5_6_5, 10, 10, 1)).toBe(200);
    expect(() => glImageBytes(0x1234, 0, 1, 1, 1)).toThrow(/unknown WebGL internal format/);
  });
});
