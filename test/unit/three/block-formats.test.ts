import {
  RED_GREEN_RGTC2_Format,
  RG11_EAC_Format,
  RGBA_ASTC_4x4_Format,
  RGBA_BPTC_Format,
  RGBA_ETC2_EAC_Format,
} from 'three';
import { describe, expect, it } from 'vitest';
import { poolTexelFormatOf, UASTC_TARGETS } from '../../../src/core/vt/residency/pool-format';
import { blockFormatEntry, threeBlockFormatOf } from '../../../src/three/residency/block-formats';
import { compressionSupportOf } from '../../../src/three/residency/compression-support';
import { webglWith, webgpuWith } from '../../support/described-bridges';

describe('the shared block-format table', () => {
  it('gives three constants for every pool block format, sRGB variants included', () => {
    const expected = {
      bc7: RGBA_BPTC_Format,
      astc: RGBA_ASTC_4x4_Format,
      etc2: RGBA_ETC2_EAC_Format,
      bc5: RED_GREEN_RGTC2_Format,
      'eac-rg11': RG11_EAC_Format,
    };
    for (const [target, three] of Object.entries(expected)) {
      expect(threeBlockFormatOf(poolTexelFormatOf(target as 'bc7', false))).toBe(three);
      expect(threeBlockFormatOf(poolTexelFormatOf(target as 'bc7', true))).toBe(three);
    }
    expect(blockFormatEntry('rgba8unorm')).toBeUndefined();
    expect(blockFormatEntry('toString')).toBeUndefined();
    expect(() => threeBlockFormatOf('rgba8unorm-srgb')).toThrow(/not a block format/);
  });
});

describe('compressionSupportOf', () => {
  it('reads WebGPU features: bc gives BC7 and BC5, etc2 gives ETC2 and EAC RG11', () => {
    expect([...compressionSupportOf(webgpuWith())]).toEqual([]);
    expect(new Set(compressionSupportOf(webgpuWith('texture-compression-bc')))).toEqual(
      new Set(['bc7', 'bc5']),
    );
    expect(new Set(compressionSupportOf(webgpuWith('texture-compression-astc')))).toEqual(new Set(['astc']));
    expect(new Set(compressionSupportOf(webgpuWith('texture-compression-etc2')))).toEqual(
      new Set(['etc2', 'eac-rg11']),
    );
  });

  it('reads WebGL2 extensions: BPTC and RGTC separately, ETC for both ETC2 targets', () => {
    expect(new Set(compressionSupportOf(webglWith('EXT_texture_compression_bptc')))).toEqual(
      new Set(['bc7']),
    );
    expect(new Set(compressionSupportOf(webglWith('EXT_texture_compression_rgtc')))).toEqual(
      new Set(['bc5']),
    );
    expect(new Set(compressionSupportOf(webglWith('WEBGL_compressed_texture_astc')))).toEqual(
      new Set(['astc']),
    );
    expect(new Set(compressionSupportOf(webglWith('WEBGL_compressed_texture_etc')))).toEqual(
      new Set(['etc2', 'eac-rg11']),
    );
    // S3TC (BC1/BC3) is no UASTC target.
    expect([...compressionSupportOf(webglWith('WEBGL_compressed_texture_s3tc'))]).toEqual([]);
  });

  it('keeps only the allowed targets', () => {
    const all = webgpuWith('texture-compression-bc', 'texture-compression-astc', 'texture-compression-etc2');
    expect(new Set(compressionSupportOf(all))).toEqual(new Set(UASTC_TARGETS.filter((t) => t !== 'rgba8')));
    expect(new Set(compressionSupportOf(all, ['etc2', 'rgba8']))).toEqual(new Set(['etc2']));
  });
});
