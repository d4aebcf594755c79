import type { Texture } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { TesseraConfigError } from '../core/errors';
import { glBlockFormatOf, type PoolBlockFormat } from './residency/compressed-pool-texture';
import {
  disposeStorageAttribute,
  glTextureOf,
  gpuBufferOf,
  gpuTextureOf,
  type WebGLBackendInternals,
  type WebGPUBackendInternals,
  webglBackendOf,
  webgpuBackendOf,
} from './three-internals';

/** Texel layouts Tessera writes into textures. */
export type UploadFormat = 'rgba8' | 'r32uint' | 'rg32uint';

// Reused WebGPU copy descriptors: mutated per call, never reallocated (as three's own backend does).
const copyDestination = {
  texture: null as unknown as GPUTexture,
  mipLevel: 0,
  origin: { x: 0, y: 0, z: 0 },
  aspect: 'all' as GPUTextureAspect,
};
const copyLayout = { offset: 0, bytesPerRow: 0, rowsPerImage: 0 };
const copySize = { width: 0, height: 0, depthOrArrayLayers: 1 };

/** Bytes of one texel of `format`. */
function texelBytes(format: UploadFormat): number {
  return format === 'rg32uint' ? 8 : 4;
}

/**
 * Direct access to the GPU objects behind three textures on either backend of `WebGPURenderer`,
 * and sub-rectangle uploads into them. three's `needsUpdate` path re-uploads whole textures, so
 * every incremental write goes through here instead.
 */
export class BackendBridge {
  /** The renderer whose backend this bridge reaches into. */
  readonly renderer: WebGPURenderer;
  /** The WebGPU device, or null on the WebGL2 backend. */
  readonly device: GPUDevice | null;
  /** The WebGL2 context, or null on the WebGPU backend. */
  readonly gl: WebGL2RenderingContext | null;
  /** Largest 2D texture side the backend allows, in texels. */
  readonly maxTextureSize: number;
  /** Most array layers of one 2D array texture the backend allows, in layers. */
  readonly maxArrayLayers: number;
  private readonly gpuBackend: WebGPUBackendInternals | null;
  private readonly glBackend: WebGLBackendInternals | null;

  constructor(renderer: WebGPURenderer) {
    if (!renderer.initialized) {
      throw new TesseraConfigError(
        'invalid-option',
        'await renderer.init() before creating a VirtualTextureSystem',
      );
    }
    this.renderer = renderer;
    this.gpuBackend = webgpuBackendOf(renderer);
    this.glBackend = webglBackendOf(renderer);
    if (this.gpuBackend !== null) {
      this.device = this.gpuBackend.device;
      this.gl = null;
      this.maxTextureSize = this.device.limits.maxTextureDimension2D;
      this.maxArrayLayers = this.device.limits.maxTextureArrayLayers;
    } else if (this.glBackend !== null) {
      this.device = null;
      this.gl = this.glBackend.gl;
      this.maxTextureSize = this.gl.getParameter(this.gl.MAX_TEXTURE_SIZE) as number;
      this.maxArrayLayers = this.gl.getParameter(this.gl.MAX_ARRAY_TEXTURE_LAYERS) as number;
    } else {
      throw new TesseraConfigError('invalid-option', 'renderer backend is neither WebGPU nor WebGL2');
    }
  }

  /** True on the WebGPU backend. */
  get isWebGPU(): boolean {
    return this.device !== null;
  }

  /** The GPUTexture three created for `texture` (after `renderer.initTexture`), WebGPU only. */
  gpuTexture(texture: Texture): GPUTexture | undefined {
    return this.gpuBackend === null ? undefined : gpuTextureOf(this.gpuBackend, texture);
  }

  /** The GPUBuffer three made for storage `attribute`, WebGPU only; undefined before its first use. */
  gpuBuffer(attribute: object): GPUBuffer | undefined {
    return this.gpuBackend === null ? undefined : gpuBufferOf(this.gpuBackend, attribute);
  }

  /** Frees storage `attribute` and the GPUBuffer three made for it (WebGPU; on WebGL2 only the attribute). */
  disposeStorageAttribute(attribute: { dispose(): void }): void {
    if (this.gpuBackend === null) attribute.dispose();
    else disposeStorageAttribute(this.gpuBackend, attribute);
  }

  /** The WebGL texture three created for `texture`, WebGL2 only. */
  glTexture(texture: Texture): WebGLTexture | undefined {
    return this.glBackend === null ? undefined : glTextureOf(this.glBackend, texture);
  }

  /** Binds `framebuffer` as the WebGL2 read framebuffer through three's state cache (WebGL2 only). */
  bindReadFramebuffer(framebuffer: WebGLFramebuffer | null): void {
    const backend = this.glBackend!;
    backend.state.bindFramebuffer(backend.gl.READ_FRAMEBUFFER, framebuffer);
  }

  /** Binds `texture` to `target` through three's state cache (WebGL2 only). */
  bindTexture(target: number, texture: WebGLTexture | null): void {
    this.glBackend!.state.bindTexture(target, texture);
  }

  /** Sets the WebGL2 pack alignment through three's state cache (WebGL2 only). */
  setPackAlignment(bytes: number): void {
    const backend = this.glBackend!;
    backend.state.pixelStorei(backend.gl.PACK_ALIGNMENT, bytes);
  }

  /**
   * Writes a `width x height` texel rectangle at (`x`, `y`) of mip `mipLevel` of `texture`.
   * @param data source texels; `Uint8Array` for rgba8, `Uint32Array` for r32uint and rg32uint.
   * @param offsetTexels index of the rectangle's first texel in `data`, in texels.
   * @param rowTexels distance between rows in `data`, in texels.
   * @param arrayLayer array layer written when `texture` is a 2D array texture (0 for a 2D texture).
   */
  writeRect(
    texture: Texture,
    format: UploadFormat,
    mipLevel: number,
    x: number,
    y: number,
    width: number,
    height: number,
    data: Uint8Array | Uint32Array,
    offsetTexels: number,
    rowTexels: number,
    arrayLayer = 0,
  ): void {
    if (this.device !== null) {
      this.writeGpu(
        texture,
        mipLevel,
        x,
        y,
        arrayLayer,
        width,
        height,
        data,
        offsetTexels * texelBytes(format),
        rowTexels * texelBytes(format),
        height,
      );
      return;
    }
    const backend = this.glBackend!;
    const gl = backend.gl;
    const glTexture = glTextureOf(backend, texture);
    if (glTexture === undefined) return;
    const state = backend.state;
    const isArray = (texture as { isDataArrayTexture?: boolean }).isDataArrayTexture === true;
    // Through three's state cache, so three's view of bindings and unpack state stays true.
    state.bindTexture(isArray ? gl.TEXTURE_2D_ARRAY : gl.TEXTURE_2D, glTexture);
    state.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    state.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    state.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    state.pixelStorei(gl.UNPACK_ROW_LENGTH, rowTexels);
    if (isArray) {
      // Pool array textures are rgba8 only; one image of depth 1 at z = arrayLayer.
      gl.texSubImage3D(
        gl.TEXTURE_2D_ARRAY,
        mipLevel,
        x,
        y,
        arrayLayer,
        width,
        height,
        1,
        gl.RGBA,
        gl.UNSIGNED_BYTE,
        data,
        offsetTexels * 4,
      );
    } else {
      // rgba8 data is bytes (offset in bytes), integer data is words (offset in words).
      const rgba = format === 'rgba8';
      const rg = format === 'rg32uint';
      gl.texSubImage2D(
        gl.TEXTURE_2D,
        mipLevel,
        x,
        y,
        width,
        height,
        rgba ? gl.RGBA : rg ? gl.RG_INTEGER : gl.RED_INTEGER,
        rgba ? gl.UNSIGNED_BYTE : gl.UNSIGNED_INT,
        data,
        rgba ? offsetTexels * 4 : rg ? offsetTexels * 2 : offsetTexels,
      );
    }
    state.pixelStorei(gl.UNPACK_ROW_LENGTH, 0);
  }

  /**
   * Writes a `width x height` texel rectangle of 4x4 blocks at (`x`, `y`) of level 0 of a
   * block-compressed `texture` (every coordinate a multiple of 4): `data` holds the rectangle's
   * blocks, block rows top to bottom, 16 bytes each (every pool block format has 16-byte blocks).
   * WebGPU `queue.writeTexture` (no 256-byte row rule), WebGL2 `compressedTexSubImage2D/3D`.
   * @param arrayLayer array layer written when `texture` is a 2D array texture (0 for a 2D texture).
   */
  writeBlocks(
    texture: Texture,
    format: PoolBlockFormat,
    x: number,
    y: number,
    width: number,
    height: number,
    data: Uint8Array,
    arrayLayer = 0,
  ): void {
    const blocksPerRow = width >> 2;
    const blockRows = height >> 2;
    if (this.device !== null) {
      this.writeGpu(texture, 0, x, y, arrayLayer, width, height, data, 0, blocksPerRow * 16, blockRows);
      return;
    }
    const backend = this.glBackend!;
    const gl = backend.gl;
    const glTexture = glTextureOf(backend, texture);
    if (glTexture === undefined) return;
    const isArray = (texture as { isCompressedArrayTexture?: boolean }).isCompressedArrayTexture === true;
    backend.state.bindTexture(isArray ? gl.TEXTURE_2D_ARRAY : gl.TEXTURE_2D, glTexture);
    const glFormat = glBlockFormatOf(format);
    const length = blocksPerRow * blockRows * 16;
    if (isArray) {
      gl.compressedTexSubImage3D(
        gl.TEXTURE_2D_ARRAY,
        0,
        x,
        y,
        arrayLayer,
        width,
        height,
        1,
        glFormat,
        data,
        0,
        length,
      );
    } else {
      gl.compressedTexSubImage2D(gl.TEXTURE_2D, 0, x, y, width, height, glFormat, data, 0, length);
    }
  }

  /**
   * `queue.writeTexture` of a `width x height` texel rectangle from `data` (reused descriptors):
   * `offset`, `bytesPerRow` in bytes, `rowsPerImage` in rows (texel rows, or block rows).
   */
  private writeGpu(
    texture: Texture,
    mipLevel: number,
    x: number,
    y: number,
    arrayLayer: number,
    width: number,
    height: number,
    data: Uint8Array | Uint32Array,
    offset: number,
    bytesPerRow: number,
    rowsPerImage: number,
  ): void {
    const gpuTexture = gpuTextureOf(this.gpuBackend!, texture);
    if (gpuTexture === undefined) return;
    copyDestination.texture = gpuTexture;
    copyDestination.mipLevel = mipLevel;
    copyDestination.origin.x = x;
    copyDestination.origin.y = y;
    copyDestination.origin.z = arrayLayer;
    copyLayout.offset = offset;
    copyLayout.bytesPerRow = bytesPerRow;
    copyLayout.rowsPerImage = rowsPerImage;
    copySize.width = width;
    copySize.height = height;
    (this.device as GPUDevice).queue.writeTexture(
      copyDestination,
      data as Uint8Array<ArrayBuffer>,
      copyLayout,
      copySize,
    );
    copyDestination.texture = null as unknown as GPUTexture;
  }
}
