import {
  ClampToEdgeWrapping,
  LinearFilter,
  LinearMipmapLinearFilter,
  MirroredRepeatWrapping,
  NearestFilter,
  NearestMipmapLinearFilter,
  NoColorSpace,
  RepeatWrapping,
  SRGBColorSpace,
  type Texture,
} from 'three';
import { describe, expect, it } from 'vitest';
import type { TesseraConfigError } from '../../../src/core/errors';
import type { StreamedTexture } from '../../../src/three/streamed/streamed-texture';
import { TextureStreamingSystem } from '../../../src/three/streamed/texture-streaming-system';
import { CountingSource, fakeWebGl2Renderer } from '../support/fake-webgl2-renderer';

const loads = { bytes: 0, levels: 0 };

/** The sampler state and uv set a material built from `texture` would use. */
function samplerOf(texture: Texture) {
  return {
    wrapS: texture.wrapS,
    wrapT: texture.wrapT,
    magFilter: texture.magFilter,
    minFilter: texture.minFilter,
    anisotropy: texture.anisotropy,
    channel: texture.channel,
  };
}

/** Lets the pinned chain's load (started as the texture is created) land. */
async function pinnedBound(texture: StreamedTexture): Promise<void> {
  await texture.pinnedSettled;
}

describe('streamed texture sampling', () => {
  it('the placeholder and every chain carry the texture’s sampling: default repeat + trilinear', async () => {
    const streaming = new TextureStreamingSystem(fakeWebGl2Renderer(), { budgetBytes: 64 << 20 });
    const texture = streaming.add(new CountingSource(256, 256, loads));
    const expected = {
      wrapS: RepeatWrapping,
      wrapT: RepeatWrapping,
      magFilter: LinearFilter,
      minFilter: LinearMipmapLinearFilter,
      anisotropy: 1,
      channel: 0,
    };
    expect(samplerOf(texture.texture)).toEqual(expected);
    const placeholder = texture.texture;
    await pinnedBound(texture);
    expect(texture.texture).not.toBe(placeholder);
    expect(samplerOf(texture.texture)).toEqual(expected);
    streaming.dispose();
  });

  it('glTF-style settings (nearest filters, clamp, uv set 1, a uv transform) reach the placeholder and the chains', async () => {
    const streaming = new TextureStreamingSystem(fakeWebGl2Renderer(), { budgetBytes: 64 << 20 });
    const options = {
      wrapS: ClampToEdgeWrapping,
      wrapT: MirroredRepeatWrapping,
      magFilter: NearestFilter,
      minFilter: NearestMipmapLinearFilter,
      anisotropy: 4,
      channel: 1,
      uvTransform: { offset: [0.25, 0] as const, repeat: [0.5, 2] as const, rotation: 0.5 },
    };
    const a = streaming.add(new CountingSource(256, 256, loads), options);
    const b = streaming.add(new CountingSource(128, 128, loads), options);
    const plain = streaming.add(new CountingSource(128, 128, loads));
    // Sampled alike: one placeholder; sampled otherwise: another (a material is built from it).
    expect(a.texture).toBe(b.texture);
    expect(plain.texture).not.toBe(a.texture);
    const expected = {
      wrapS: ClampToEdgeWrapping,
      wrapT: MirroredRepeatWrapping,
      magFilter: NearestFilter,
      minFilter: NearestMipmapLinearFilter,
      anisotropy: 4,
      channel: 1,
    };
    expect(samplerOf(a.texture)).toEqual(expected);
    await pinnedBound(a);
    expect(samplerOf(a.texture)).toEqual(expected);
    expect([a.texture.offset.x, a.texture.offset.y, a.texture.repeat.x, a.texture.repeat.y]).toEqual([
      0.25, 0, 0.5, 2,
    ]);
    expect(a.texture.rotation).toBe(0.5);
    // The need reads the texture's own repeat and uv set, not the shared placeholder's.
    expect([a.sampling.repeat.x, a.sampling.channel]).toEqual([0.5, 1]);
    streaming.dispose();
  });

  it('colorSpace reads the same bytes as sRGB colour or linear data, where the format has both', () => {
    const streaming = new TextureStreamingSystem(fakeWebGl2Renderer(), { budgetBytes: 64 << 20 });
    const colour = streaming.add(new CountingSource(64, 64, loads), { colorSpace: SRGBColorSpace });
    expect(colour.source.format).toBe('bc7-rgba-unorm-srgb');
    expect(colour.texture.colorSpace).toBe(SRGBColorSpace);
    const data = streaming.add(new CountingSource(64, 64, loads, 'bc7-rgba-unorm-srgb'), {
      colorSpace: NoColorSpace,
    });
    expect(data.source.format).toBe('bc7-rgba-unorm');
    const twoChannel = streaming.add(new CountingSource(64, 64, loads, 'bc5-rg-unorm'), {
      colorSpace: SRGBColorSpace,
    });
    expect(twoChannel.source.format).toBe('bc5-rg-unorm');
    streaming.dispose();
  });

  it('refuses an anisotropy outside 1..16 or a uv set outside 0..3 with a typed error, creating nothing', () => {
    const streaming = new TextureStreamingSystem(fakeWebGl2Renderer(), { budgetBytes: 64 << 20 });
    for (const options of [{ anisotropy: 0 }, { anisotropy: 17 }, { channel: 4 }, { channel: 0.5 }]) {
      let error: TesseraConfigError | undefined;
      try {
        streaming.add(new CountingSource(64, 64, loads), options);
      } catch (caught) {
        error = caught as TesseraConfigError;
      }
      expect(error?.code, JSON.stringify(options)).toBe('invalid-option');
    }
    expect(streaming.stats().textures).toBe(0);
    expect(streaming.budget.liveBytes).toBe(0);
    streaming.dispose();
  });
});
