import {
  type DataTexture,
  LinearFilter,
  LinearMipmapLinearFilter,
  RGBAFormat,
  UnsignedByteType,
  type Wrapping,
} from 'three';
import { levelWidth, type StreamedTextureFormat } from '../../core/streaming/mip-pyramid-source';
import { createAllocatedTexture } from '../allocated-texture';
import type { BackendBridge } from '../backend-bridge';

/** Sampler settings every chain of one streamed texture shares. */
export interface ChainSampling {
  wrapS: Wrapping;
  wrapT: Wrapping;
  /** Anisotropy ratio (1 = off). */
  anisotropy: number;
}

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
 * old one.
 */
export class ChainTexture {
  /** The three texture to bind in materials. */
  readonly texture: DataTexture;
  /** Finest source level held. */
  readonly firstMip: number;
  /** Levels held. */
  readonly mipCount: number;
  private readonly bridge: BackendBridge;
  private readonly sourceWidth: number;
  private readonly sourceHeight: number;
  private disposed = false;

  /** Allocates the GPU texture (uninitialised texels) through three, labelled `tessera:streamed:<name>`. */
  constructor(
    bridge: BackendBridge,
    name: string,
    sourceWidth: number,
    sourceHeight: number,
    format: StreamedTextureFormat,
    firstMip: number,
    mipCount: number,
    sampling: ChainSampling,
  ) {
    this.bridge = bridge;
    this.sourceWidth = sourceWidth;
    this.sourceHeight = sourceHeight;
    this.firstMip = firstMip;
    this.mipCount = mipCount;
    this.texture = createAllocatedTexture({
      name: `${STREAMED_LABEL_PREFIX}${name}`,
      width: levelWidth(sourceWidth, firstMip),
      height: levelWidth(sourceHeight, firstMip),
      mipLevels: mipCount,
      format: RGBAFormat,
      type: UnsignedByteType,
      srgb: format === 'rgba8unorm-srgb',
      magFilter: LinearFilter,
      minFilter: mipCount > 1 ? LinearMipmapLinearFilter : LinearFilter,
    });
    this.texture.wrapS = sampling.wrapS;
    this.texture.wrapT = sampling.wrapT;
    this.texture.anisotropy = sampling.anisotropy;
    bridge.renderer.initTexture(this.texture);
  }

  /** True when this chain holds source level `level`. */
  holds(level: number): boolean {
    return level >= this.firstMip && level < this.firstMip + this.mipCount;
  }

  /** Writes the texels of source level `level` (RGBA8, rows from v = 0). */
  upload(level: number, data: Uint8Array): void {
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
    if (device === null) return false;
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
