import {
  CompressedTexture,
  type CompressedTexture as CompressedTextureType,
  type DataTexture,
  NoColorSpace,
  RGBAFormat,
  SRGBColorSpace,
  UnsignedByteType,
} from 'three';
import {
  isSrgbFormat,
  levelWidth,
  type StreamedTextureFormat,
} from '../../../core/streaming/mip-pyramid-source';
import type { BackendBridge } from '../../backend-bridge';
import { createAllocatedTexture } from '../../residency/allocated-texture';
import { applySampling, type TextureSampling } from '../sampling/texture-sampling';
import { isBlockFormat, threeBlockFormatOf } from './streamed-format-support';

/** GPU label prefix of every streamed chain (the GPU tracker counts `tessera:` labels). */
export const STREAMED_LABEL_PREFIX = 'tessera:streamed:';

// Reused copy descriptors (WebGPU): mutated per level, never reallocated.
const copySource = { texture: null as unknown as GPUTexture, mipLevel: 0 };
const copyDestination = { texture: null as unknown as GPUTexture, mipLevel: 0 };
const copySize = { width: 0, height: 0, depthOrArrayLayers: 1 };

/**
 * One GPU texture holding levels `firstMip .. firstMip + mipCount - 1` of a source pyramid, as a
 * three texture (level `k` of the GPU texture is source level `firstMip + k`). WebGPU textures
 * cannot change their mip count, so a change of resident mips creates a new chain and destroys the
 * old one. An rgba8 chain is allocated empty and filled level by level ({@link upload}, GPU copies);
 * a block-format chain is a three `CompressedTexture` given all its levels at construction (three
 * uploads compressed levels itself on both backends; it has no sub-rectangle path for them).
 */
export class ChainTexture {
  /** The three texture to bind in materials. */
  readonly texture: DataTexture | CompressedTextureType;
  /** Finest source level held. */
  readonly firstMip: number;
  /** Levels held. */
  readonly mipCount: number;
  private readonly bridge: BackendBridge;
  private readonly sourceWidth: number;
  private readonly sourceHeight: number;
  private disposed = false;

  /**
   * Allocates the GPU texture through three, labelled `tessera:streamed:<name>`: uninitialised
   * texels for rgba8, or the given `blockLevels` (source levels `firstMip ..`, in order) for a block format.
   * @throws Error when a block-format chain is not given all its levels.
   */
  constructor(
    bridge: BackendBridge,
    name: string,
    sourceWidth: number,
    sourceHeight: number,
    format: StreamedTextureFormat,
    firstMip: number,
    mipCount: number,
    sampling: TextureSampling,
    blockLevels?: readonly Uint8Array[],
  ) {
    this.bridge = bridge;
    this.sourceWidth = sourceWidth;
    this.sourceHeight = sourceHeight;
    this.firstMip = firstMip;
    this.mipCount = mipCount;
    this.texture = isBlockFormat(format)
      ? compressedChain(name, sourceWidth, sourceHeight, format, firstMip, mipCount, blockLevels)
      : this.allocatedChain(name, format, sampling);
    applySampling(this.texture, sampling);
    bridge.renderer.initTexture(this.texture);
  }

  private allocatedChain(
    name: string,
    format: StreamedTextureFormat,
    sampling: TextureSampling,
  ): DataTexture {
    const mipCount = this.mipCount;
    return createAllocatedTexture({
      name: `${STREAMED_LABEL_PREFIX}${name}`,
      width: levelWidth(this.sourceWidth, this.firstMip),
      height: levelWidth(this.sourceHeight, this.firstMip),
      mipLevels: mipCount,
      format: RGBAFormat,
      type: UnsignedByteType,
      srgb: format === 'rgba8unorm-srgb',
      magFilter: sampling.magFilter,
      minFilter: sampling.minFilter,
    });
  }

  /** True when this chain holds source level `level`. */
  holds(level: number): boolean {
    return level >= this.firstMip && level < this.firstMip + this.mipCount;
  }

  /** Writes the texels of source level `level` (RGBA8, rows from v = 0; rgba8 chains only). */
  upload(level: number, data: Uint8Array): void {
    if ((this.texture as CompressedTextureType).isCompressedTexture) {
      throw new Error('A block-format chain is filled at construction.');
    }
    const w = levelWidth(this.sourceWidth, level);
    const h = levelWidth(this.sourceHeight, level);
    this.bridge.writeRect(this.texture, 'rgba8', level - this.firstMip, 0, 0, w, h, data, 0, w);
  }

  /**
   * Copies source levels `from .. to - 1` from `other` GPU-to-GPU (WebGPU only; both chains must
   * hold them). Returns false on WebGL2, where the caller re-uploads from its CPU cache instead.
   */
  copyLevelsFrom(other: ChainTexture, from: number, to: number): boolean {
    const device = this.bridge.device;
    if (device === null || (this.texture as CompressedTextureType).isCompressedTexture) return false;
    const source = this.bridge.gpuTexture(other.texture);
    const destination = this.bridge.gpuTexture(this.texture);
    if (source === undefined || destination === undefined) return false;
    const encoder = device.createCommandEncoder({ label: 'tessera:streamed:copy' });
    copySource.texture = source;
    copyDestination.texture = destination;
    for (let level = from; level < to; level++) {
      copySource.mipLevel = level - other.firstMip;
      copyDestination.mipLevel = level - this.firstMip;
      copySize.width = levelWidth(this.sourceWidth, level);
      copySize.height = levelWidth(this.sourceHeight, level);
      encoder.copyTextureToTexture(copySource, copyDestination, copySize);
    }
    device.queue.submit([encoder.finish()]);
    copySource.texture = null as unknown as GPUTexture;
    copyDestination.texture = null as unknown as GPUTexture;
    return true;
  }

  /** Destroys the GPU texture (three's 'dispose' event). Call only once no material binds it. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.texture.dispose();
  }
}

/** A three `CompressedTexture` of source levels `firstMip ..` in a block format, data given. */
function compressedChain(
  name: string,
  sourceWidth: number,
  sourceHeight: number,
  format: StreamedTextureFormat,
  firstMip: number,
  mipCount: number,
  levels: readonly Uint8Array[] | undefined,
): CompressedTexture {
  if (levels === undefined || levels.length !== mipCount) {
    throw new Error(`A '${format}' chain needs its ${mipCount} levels at construction.`);
  }
  const mipmaps = [];
  for (let k = 0; k < mipCount; k++) {
    mipmaps.push({
      data: levels[k],
      width: levelWidth(sourceWidth, firstMip + k),
      height: levelWidth(sourceHeight, firstMip + k),
    });
  }
  const texture = new CompressedTexture(
    mipmaps as unknown as ImageData[],
    levelWidth(sourceWidth, firstMip),
    levelWidth(sourceHeight, firstMip),
    threeBlockFormatOf(format),
  );
  texture.name = `${STREAMED_LABEL_PREFIX}${name}`;
  texture.colorSpace = isSrgbFormat(format) ? SRGBColorSpace : NoColorSpace;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.needsUpdate = true;
  return texture;
}
