import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../../src/core/errors';
import { compressionKernelSource } from '../../../../src/three/gpu-compress/block-kernel-wgsl';
import { GPU_BLOCK_FORMATS, tileBlockLayout } from '../../../../src/three/gpu-compress/block-layout';

describe('tileBlockLayout', () => {
  it('pads block rows to 256 bytes only where a tile row is not already a multiple', () => {
    expect(tileBlockLayout('bc7-rgba-unorm', 128)).toEqual({
      blocksPerSide: 32,
      blockBytes: 16,
      rowBytes: 512,
      paddedRowBytes: 512,
      bufferBytes: 512 * 32,
      textureBytes: 512 * 32,
    });
    expect(tileBlockLayout('bc7-rgba-unorm-srgb', 136)).toMatchObject({
      rowBytes: 544,
      paddedRowBytes: 768,
      bufferBytes: 768 * 34,
      textureBytes: 544 * 34,
    });
    expect(tileBlockLayout('bc1-rgba-unorm', 128)).toMatchObject({
      blockBytes: 8,
      rowBytes: 256,
      paddedRowBytes: 256,
    });
    expect(tileBlockLayout('bc1-rgba-unorm-srgb', 136)).toMatchObject({ rowBytes: 272, paddedRowBytes: 512 });
    expect(tileBlockLayout('bc5-rg-unorm', 264)).toMatchObject({
      blocksPerSide: 66,
      rowBytes: 1056,
      paddedRowBytes: 1280,
    });
  });

  it('refuses tile sizes that are not whole blocks with a typed error', () => {
    for (const size of [0, -4, 130, 4.5, Number.NaN]) {
      expect(() => tileBlockLayout('bc7-rgba-unorm', size)).toThrow(TesseraConfigError);
      try {
        tileBlockLayout('bc7-rgba-unorm', size);
      } catch (error) {
        expect((error as TesseraConfigError).code).toBe('invalid-tile');
      }
    }
  });
});

describe('compressionKernelSource', () => {
  it('builds one kernel per format, re-encoding to sRGB only for sRGB formats', () => {
    for (const format of GPU_BLOCK_FORMATS) {
      const source = compressionKernelSource(format);
      expect(source).toContain('fn main(');
      expect(source).toContain(`const SRGB_TARGET: bool = ${format.endsWith('-srgb')};`);
      expect(source).toContain(`const WORDS_PER_BLOCK: u32 = ${format.startsWith('bc1') ? 2 : 4}u;`);
    }
    expect(compressionKernelSource('bc7-rgba-unorm')).toContain('encodeBc7()');
    expect(compressionKernelSource('bc1-rgba-unorm')).toContain('encodeBc1()');
    expect(compressionKernelSource('bc5-rg-unorm')).toContain('encodeBc5()');
  });
});
