import { describe, expect, it } from 'vitest';
import { textureLevelRangeBytes } from '../../../src/core/budget/texture-bytes';
import { levelByteLength } from '../../../src/core/streaming/mip-pyramid-source';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import { TextureStreamingSystem } from '../../../src/three/streamed/texture-streaming-system';
import { asStored, writeKtx2Fixture } from '../../support/ktx2-fixtures';

/** Bytes of a BC7 level counted by hand: whole 4x4 blocks of 16 bytes. */
const bc7Level = (w: number, h: number) => Math.ceil(w / 4) * Math.ceil(h / 4) * 16;

describe('KTX2 budget accounting is exact, block padding included', () => {
  it('BC7 256x128: each level, the pinned chain and the full chain by hand', async () => {
    const source = new Ktx2Source(await writeKtx2Fixture({ width: 256, height: 128, payload: 'bc7' }));
    expect(source.format).toBe('bc7-rgba-unorm-srgb');
    let full = 0;
    let pinned = 0;
    for (let level = 0; level < source.mipLevelCount; level++) {
      const w = Math.max(1, 256 >> level);
      const h = Math.max(1, 128 >> level);
      // 2x1 and 1x1 levels still take a whole 16-byte block, not 2 or 1 bytes.
      expect(levelByteLength(asStored(source).format, 256, 128, level)).toBe(bc7Level(w, h));
      expect(source.layout.levelBytes[level]).toBe(bc7Level(w, h));
      full += bc7Level(w, h);
      if (Math.max(w, h) <= 64) pinned += bc7Level(w, h);
    }
    expect(TextureStreamingSystem.pinnedBytesOf(asStored(source))).toBe(pinned);
    expect(pinned).toBe(2048 + 512 + 128 + 32 + 16 + 16 + 16);
    expect(
      textureLevelRangeBytes(
        { format: asStored(source).format, width: 256, height: 128, mipLevelCount: source.mipLevelCount },
        0,
        source.mipLevelCount,
      ),
    ).toBe(full);
  });

  it('rgba8 counts 4 bytes a texel, a quarter of BC7 only where no padding applies', async () => {
    const rgba = new Ktx2Source(await writeKtx2Fixture({ width: 128, height: 128, payload: 'rgba8' }));
    const bc7 = new Ktx2Source(await writeKtx2Fixture({ width: 128, height: 128, payload: 'bc7' }));
    expect(TextureStreamingSystem.pinnedBytesOf(asStored(rgba))).toBe(
      (64 * 64 + 32 * 32 + 16 * 16 + 8 * 8 + 16 + 4 + 1) * 4,
    );
    expect(TextureStreamingSystem.pinnedBytesOf(asStored(bc7))).toBe(
      bc7Level(64, 64) + bc7Level(32, 32) + bc7Level(16, 16) + bc7Level(8, 8) + 16 + 16 + 16,
    );
  });
});

describe('KTX2 DFD with an unspecified colour model', () => {
  it('is accepted when its transfer function matches, refused when it does not', async () => {
    const file = await writeKtx2Fixture({ width: 64, height: 64, payload: 'bc7' });
    const dfd = new DataView(file.buffer).getUint32(48, true);
    const unspecified = file.slice();
    unspecified[dfd + 12] = 0;
    unspecified[dfd + 16] = 0;
    unspecified[dfd + 17] = 0;
    expect(new Ktx2Source(unspecified).format).toBe('bc7-rgba-unorm-srgb');
    unspecified[dfd + 14] = 1;
    expect(() => new Ktx2Source(unspecified)).toThrow(expect.objectContaining({ code: 'corrupt' }));
  });
});
