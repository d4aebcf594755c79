import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import {
  checkStreamableSource,
  missingFormatSupport,
} from '../../../src/three/streamed/uploads/streamed-format-support';
import { webglWith, webgpuWith } from '../../support/described-bridges';
import { asStored, writeKtx2Fixture } from '../../support/ktx2-fixtures';

describe('block formats need the device feature', () => {
  it('rgba8 needs nothing; BC7 needs texture-compression-bc or EXT_texture_compression_bptc', () => {
    expect(missingFormatSupport(webgpuWith(), 'rgba8unorm-srgb')).toBeNull();
    expect(missingFormatSupport(webgpuWith(), 'bc7-rgba-unorm')).toBe('texture-compression-bc');
    expect(missingFormatSupport(webgpuWith('texture-compression-bc'), 'bc7-rgba-unorm')).toBeNull();
    expect(missingFormatSupport(webgpuWith('texture-compression-bc'), 'astc-4x4-unorm')).toBe(
      'texture-compression-astc',
    );
    expect(missingFormatSupport(webglWith('WEBGL_compressed_texture_s3tc'), 'bc7-rgba-unorm')).toBe(
      'EXT_texture_compression_bptc',
    );
    expect(missingFormatSupport(webglWith('EXT_texture_compression_bptc'), 'bc7-rgba-unorm-srgb')).toBeNull();
    expect(missingFormatSupport(webglWith('WEBGL_compressed_texture_etc'), 'eac-rg11unorm')).toBeNull();
  });

  it('createTexture refuses a BC7 KTX2 on a device without BC with a typed error', async () => {
    const source = new Ktx2Source(await writeKtx2Fixture({ width: 128, height: 128, payload: 'bc7' }));
    expect(() => checkStreamableSource(webgpuWith('texture-compression-etc2'), asStored(source))).toThrow(
      TesseraConfigError,
    );
    expect(() => checkStreamableSource(webgpuWith('texture-compression-etc2'), asStored(source))).toThrow(
      expect.objectContaining({ code: 'invalid-option' }),
    );
    expect(() => checkStreamableSource(webgpuWith('texture-compression-bc'), asStored(source))).not.toThrow();
  });

  it('block-format levels a chain may start at must be whole 4x4 blocks', () => {
    const source = { format: 'bc7-rgba-unorm', width: 2048, height: 8, mipLevelCount: 12 } as const;
    // Level 5 (64x1) is the pinned chain's first level: not whole blocks.
    expect(() =>
      checkStreamableSource(webgpuWith('texture-compression-bc'), {
        ...source,
        loadLevel: async () => new Uint8Array(),
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid-size' }));
  });
});

describe('Ktx2Source.open over any RangeReader', () => {
  it('reads the metadata and levels through the reader', async () => {
    const file = await writeKtx2Fixture({ width: 64, height: 32, payload: 'rgba8' });
    const source = await Ktx2Source.open(new MemoryRangeReader(file), {
      signal: new AbortController().signal,
    });
    expect([source.width, source.height, source.mipLevelCount]).toEqual([64, 32, 7]);
    const level = await source.loadLevel(6, new AbortController().signal);
    expect(Array.from(level)).toEqual([255, 255, 255, 255]);
  });
});
