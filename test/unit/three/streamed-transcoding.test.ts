import { describe, expect, it } from 'vitest';
import type { EncodedPyramidSource } from '../../../src/core/streaming/mip-pyramid-source';
import type { BackendBridge } from '../../../src/three/backend-bridge';
import { StreamedTranscoding } from '../../../src/three/streamed/uploads/streamed-transcoding';
import type { BasisTranscoderPool } from '../../../src/three/transcode/basis-transcoder-pool';
import { TranscodedPyramidSource } from '../../../src/three/transcode/transcoded-pyramid-source';

/** The choice reads only `device.features` (see streamed-format-support.test.ts for why). */
function webgpuWith(...features: string[]): BackendBridge {
  return { device: { features: new Set(features) }, gl: null } as unknown as BackendBridge;
}

function pyramid(format: EncodedPyramidSource['format']): EncodedPyramidSource {
  return {
    width: 256,
    height: 256,
    mipLevelCount: 9,
    format,
    loadLevel: async () => new Uint8Array(0),
  };
}

/** The choice starts no worker: a pool that fails the test if asked for. */
const noPool = (): BasisTranscoderPool => {
  throw new Error('no transcoder worker is started by the format choice');
};

describe('UASTC streamed textures take the VT pool colour choice', () => {
  it('BC7 > ASTC > ETC2 > rgba8 by device, sRGB kept; stored formats pass through untouched', () => {
    const cases: [string[], string][] = [
      [
        ['texture-compression-bc', 'texture-compression-astc', 'texture-compression-etc2'],
        'bc7-rgba-unorm-srgb',
      ],
      [['texture-compression-astc', 'texture-compression-etc2'], 'astc-4x4-unorm-srgb'],
      [['texture-compression-etc2'], 'etc2-rgba8unorm-srgb'],
      [[], 'rgba8unorm-srgb'],
    ];
    for (const [features, format] of cases) {
      const prepared = new StreamedTranscoding(webgpuWith(...features), {}, noPool).prepare(
        pyramid('uastc-4x4-srgb'),
      );
      expect(prepared).toBeInstanceOf(TranscodedPyramidSource);
      expect(prepared.format).toBe(format);
    }
    const linear = new StreamedTranscoding(webgpuWith('texture-compression-bc'), {}, noPool).prepare(
      pyramid('uastc-4x4'),
    );
    expect(linear.format).toBe('bc7-rgba-unorm');
    const stored = pyramid('bc7-rgba-unorm');
    expect(new StreamedTranscoding(webgpuWith('texture-compression-bc'), {}, noPool).prepare(stored)).toBe(
      stored,
    );
  });

  it('uastcTargets keeps the choice off a format the device has', () => {
    const transcoding = new StreamedTranscoding(
      webgpuWith('texture-compression-bc', 'texture-compression-astc'),
      {
        uastcTargets: ['astc'],
      },
      noPool,
    );
    expect(transcoding.prepare(pyramid('uastc-4x4-srgb')).format).toBe('astc-4x4-unorm-srgb');
  });
});
