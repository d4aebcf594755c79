import type { Texture } from 'three';
import { TesseraConfigError } from '../../core/errors';
import type { PoolTexelFormat } from '../../core/vt/residency/pool-format';
import type { BackendBridge } from '../backend-bridge';
import { type GpuBlockFormat, tileBlockLayout } from '../gpu-compress/block-layout';
import { GpuTileCompressor } from '../gpu-compress/gpu-tile-compressor';
import { type SlotOrigin, slotOrigin } from '../residency/pool-copy';
import type { PoolTextures } from '../residency/pool-textures';
import { DEFAULT_RENDERED_BC7_MODES, type RenderedBc7Modes } from './rendered-pool-format';

/**
 * Parameter bytes per tile of a compressor of one tile per batch: one uniform-offset stride
 * (`max(256, minUniformBufferOffsetAlignment)`; WebGPU caps that limit at 256).
 */
const PARAMS_BYTES_PER_TILE = 256;

/** The compressor format of a block-compressed pool layer, or null for a format it cannot write. */
export function gpuBlockFormatOf(format: PoolTexelFormat): GpuBlockFormat | null {
  return format === 'bc7-rgba-unorm' || format === 'bc7-rgba-unorm-srgb' || format === 'bc5-rg-unorm'
    ? format
    : null;
}

/** True for the rgba8 pool formats a render target is copied into as is. */
export function isRgba8PoolFormat(format: PoolTexelFormat): boolean {
  return format === 'rgba8unorm' || format === 'rgba8unorm-srgb';
}

const to: SlotOrigin = { x: 0, y: 0, layer: 0 };
const slot = { x: 0, y: 0, arrayLayer: 0 };

/**
 * The second way a rendered tile reaches its slot (beside `writeRenderedTile`'s copy): a pool
 * layer in BC7 or BC5 cannot be a copy target of an rgba8 render target, so the tile is compressed
 * on the GPU (`GpuTileCompressor`, WebGPU only) straight into the slot, no readback. One
 * compressor per compressed layer, of one tile per batch, created at the first write: the render
 * target is reused for the next page, so each tile is compressed and submitted before it is
 * rendered over (queue order keeps the render, the kernel and the copy in sequence).
 *
 * Its buffers are part of the render stage's `staging` reservation ({@link plannedBytes}).
 */
export class CompressingTileWriter {
  private compressors: (GpuTileCompressor | null)[];
  private tiles = 0;

  /**
   * @param formats each pool layer's format; BC7 and BC5 layers are compressed here.
   * @param bc7Modes the BC7 modes of each layer (ignored for others; default `DEFAULT_RENDERED_BC7_MODES`).
   * @throws TesseraConfigError `invalid-tile` when `tileSize` is not a multiple of 4 and a layer is compressed.
   */
  constructor(
    private readonly formats: readonly PoolTexelFormat[],
    private readonly bc7Modes: readonly (RenderedBc7Modes | undefined)[],
    private readonly tileSize: number,
  ) {
    this.compressors = formats.map(() => null);
    this.plannedBytes = 0;
    for (const format of formats) {
      const block = gpuBlockFormatOf(format);
      if (block !== null) {
        this.plannedBytes += tileBlockLayout(block, tileSize).bufferBytes + PARAMS_BYTES_PER_TILE;
      }
    }
  }

  /** GPU bytes the compressors of every compressed layer take once created, in bytes. */
  readonly plannedBytes: number;

  /** GPU bytes of the compressors created now, in bytes. */
  get allocatedBytes(): number {
    let bytes = 0;
    for (const compressor of this.compressors) if (compressor !== null) bytes += compressor.gpuBytes;
    return bytes;
  }

  /** Tiles compressed since creation. */
  get compressedTiles(): number {
    return this.tiles;
  }

  /** True when pool layer `layer` is written through the compressor. */
  compresses(layer: number): boolean {
    return gpuBlockFormatOf(this.formats[layer]) !== null;
  }

  /**
   * Checks that a rendered texture can write pool layer `layer`: rgba8, or BC7 / BC5 with a
   * device that compresses on the GPU.
   * @throws TesseraConfigError('invalid-layers') otherwise.
   */
  checkLayer(bridge: BackendBridge, layer: number): void {
    const format = this.formats[layer];
    if (isRgba8PoolFormat(format)) return;
    const block = gpuBlockFormatOf(format);
    if (block === null || bridge.device == null || !GpuTileCompressor.isSupported(bridge.renderer, block)) {
      throw new TesseraConfigError(
        'invalid-layers',
        `pool layer ${layer} is ${format}: rendered pages need an rgba8 pool layer, or BC7 / BC5 on a WebGPU device with texture-compression-bc`,
      );
    }
  }

  /**
   * Compresses `target` (the layer's tile-sized render target, rows in the pool's orientation)
   * into `slotIndex` of pool layer `layer` and submits it. Returns false when either texture has
   * no GPU object yet (nothing written).
   */
  write(
    bridge: BackendBridge,
    target: Texture,
    pool: PoolTextures,
    layer: number,
    slotIndex: number,
  ): boolean {
    if (bridge.gpuTexture(target) === undefined || bridge.gpuTexture(pool.textures[layer]) === undefined) {
      return false;
    }
    const compressor = this.compressorOf(bridge, layer);
    slotOrigin(pool.shape, slotIndex, to);
    slot.x = to.x;
    slot.y = to.y;
    slot.arrayLayer = to.layer;
    compressor.compress(target, pool.textures[layer], slot);
    compressor.flush();
    this.tiles++;
    return true;
  }

  /** Frees every compressor (recreated at the next write, e.g. on a new renderer after a loss). */
  dispose(): void {
    for (const compressor of this.compressors) compressor?.dispose();
    this.compressors = this.formats.map(() => null);
  }

  private compressorOf(bridge: BackendBridge, layer: number): GpuTileCompressor {
    let compressor = this.compressors[layer];
    if (compressor === null) {
      compressor = GpuTileCompressor.create(bridge.renderer, {
        format: gpuBlockFormatOf(this.formats[layer]) as GpuBlockFormat,
        tileSize: this.tileSize,
        batchTiles: 1,
        bc7Modes: this.bc7Modes[layer] ?? DEFAULT_RENDERED_BC7_MODES,
      });
      this.compressors[layer] = compressor;
    }
    return compressor;
  }
}
