import { describe, expect, it } from 'vitest';
import type { CompressionSupport } from '../../../src/core/vt/residency/pool-format';
import type { BackendBridge } from '../../../src/three/backend-bridge';
import { CompressingTileWriter } from '../../../src/three/rendered/compressing-tile-writer';
import {
  checkNoRenderedLayer,
  checkRenderedLayerOptions,
  renderedPoolFormat,
} from '../../../src/three/rendered/rendered-pool-format';

const webgpu = { device: {}, gl: null } as unknown as BackendBridge;
const webgl = { device: null, gl: {} } as unknown as BackendBridge;
const bc: CompressionSupport = new Set(['bc7', 'bc5', 'astc', 'etc2']);
const mobile: CompressionSupport = new Set(['astc', 'etc2', 'eac-rg11']);

describe('rendered layers in block-compressed pools', () => {
  it('chooses BC7 (sRGB as the layer) or BC5 on WebGPU with BC, else keeps the ordinary choice', () => {
    expect(renderedPoolFormat(webgpu, 'compressed', 'rgba8unorm-srgb', bc)?.format).toBe(
      'bc7-rgba-unorm-srgb',
    );
    expect(renderedPoolFormat(webgpu, 'compressed', 'rgba8unorm', bc)?.format).toBe('bc7-rgba-unorm');
    expect(renderedPoolFormat(webgpu, 'compressed-rg', 'rgba8unorm', bc)?.format).toBe('bc5-rg-unorm');
    // WebGL2 has no compute: rgba8 even where it samples BC; ASTC/ETC2-only devices: rgba8.
    expect(renderedPoolFormat(webgl, 'compressed', 'rgba8unorm-srgb', bc)).toBeNull();
    expect(renderedPoolFormat(webgpu, 'compressed', 'rgba8unorm-srgb', mobile)).toBeNull();
    expect(renderedPoolFormat(webgpu, 'rgba8', 'rgba8unorm-srgb', bc)).toBeNull();
    expect(renderedPoolFormat(webgpu, undefined, 'rgba8unorm-srgb', bc)).toBeNull();
  });

  it('rejects bad rendered options with typed errors', () => {
    const code = (f: () => void) => {
      try {
        f();
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return 'none';
    };
    expect(code(() => checkRenderedLayerOptions({ format: 'rgba8unorm', rendered: 'bc7' }, 128, 4))).toBe(
      'invalid-layers',
    );
    expect(
      code(() =>
        checkRenderedLayerOptions(
          { format: 'rgba8unorm', rendered: 'compressed', renderedBc7Modes: 'mode2' },
          128,
          4,
        ),
      ),
    ).toBe('invalid-layers');
    expect(
      code(() => checkRenderedLayerOptions({ format: 'uastc-4x4', rendered: 'compressed' }, 128, 4)),
    ).toBe('invalid-layers');
    expect(
      code(() => checkRenderedLayerOptions({ format: 'rgba8unorm', rendered: 'compressed' }, 130, 5)),
    ).toBe('invalid-tile');
    expect(code(() => checkRenderedLayerOptions({ format: 'rgba8unorm', rendered: 'rgba8' }, 130, 5))).toBe(
      'none',
    );
  });

  it('keeps byte sources off rendered-only layers', () => {
    const layers = [{ name: 'albedo', rendered: 'compressed' as const }, { name: 'extra' }];
    expect(() => checkNoRenderedLayer('cpu', new Int8Array([0, -1]), layers)).toThrow(
      expect.objectContaining({ code: 'invalid-layers' }),
    );
    expect(() => checkNoRenderedLayer('cpu', new Int8Array([-1, 0]), layers)).not.toThrow();
  });

  it('plans the compressors of BC layers only (one padded tile of blocks and one parameter stride each)', () => {
    const writer = new CompressingTileWriter(['bc7-rgba-unorm-srgb', 'rgba8unorm', 'bc5-rg-unorm'], [], 128);
    expect(writer.plannedBytes).toBe(2 * (32 * 512 + 256));
    expect(writer.compresses(0)).toBe(true);
    expect(writer.compresses(1)).toBe(false);
    expect(writer.allocatedBytes).toBe(0);
    // No GPU device: a BC layer is refused for rendered pages, an rgba8 one accepted.
    expect(() => writer.checkLayer(webgl, 0)).toThrow(expect.objectContaining({ code: 'invalid-layers' }));
    expect(() => writer.checkLayer(webgl, 1)).not.toThrow();
  });
});
