import type { WebGPURenderer } from 'three/webgpu';
import {
  levelByteLength,
  type MipPyramidSource,
  type StreamedTextureFormat,
} from '../../../src/core/streaming/mip-pyramid-source';

/**
 * Just enough of a WebGL2 `WebGPURenderer` for the system to run in Node: block-format chains are
 * three `CompressedTexture`s built on the CPU, and `initTexture` is where a real renderer uploads.
 */
export function fakeWebGl2Renderer(): WebGPURenderer {
  const gl = {
    MAX_TEXTURE_SIZE: 1,
    MAX_ARRAY_TEXTURE_LAYERS: 2,
    getParameter: () => 8192,
    getExtension: () => ({}),
  };
  return {
    initialized: true,
    backend: { isWebGLBackend: true, gl },
    domElement: { width: 1280, height: 720 },
    initTexture: () => {},
  } as unknown as WebGPURenderer;
}

/** A pyramid (BC7 unless told) whose loads are counted, as a network source's bytes would be. */
export class CountingSource implements MipPyramidSource {
  readonly mipLevelCount: number;
  constructor(
    readonly width: number,
    readonly height: number,
    private readonly loads: { bytes: number; levels: number },
    readonly format: StreamedTextureFormat = 'bc7-rgba-unorm',
  ) {
    this.mipLevelCount = 32 - Math.clz32(Math.max(width, height));
  }
  async loadLevel(level: number): Promise<Uint8Array> {
    const data = new Uint8Array(levelByteLength(this.format, this.width, this.height, level));
    this.loads.bytes += data.byteLength;
    this.loads.levels++;
    return data;
  }
}
