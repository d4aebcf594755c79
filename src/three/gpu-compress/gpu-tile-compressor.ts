import type { Texture } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { TesseraConfigError, TesseraError } from '../../core/errors';
import { gpuTextureOf, type WebGPUBackendInternals, webgpuBackendOf } from '../three-internals';
import { compressionKernelSource, KERNEL_WORKGROUP_SIDE } from './block-kernel-wgsl';
import {
  GPU_BLOCK_FORMATS,
  type GpuBlockFormat,
  type TileBlockLayout,
  tileBlockLayout,
} from './block-layout';
import {
  type BlockSlotOrigin,
  checkBlockSlot,
  checkSourceTile,
  type SourceTileOrigin,
} from './compress-arguments';

/** Options of {@link GpuTileCompressor.create}. */
export interface GpuTileCompressorOptions {
  /** Block format written; must be the pool texture's format. */
  format: GpuBlockFormat;
  /** Tile side including border, in texels (a multiple of 4; e.g. 128, or 136 = 128 + 2 x 4). */
  tileSize: number;
  /**
   * Tiles compressed per submit (default 16): `compress` queues, and the batch is submitted when
   * full or on `flush()`. Also the size of the output buffer, in tiles (1 to 256).
   */
  batchTiles?: number;
  /**
   * BC7 modes tried (BC7 formats only; default `mode6+mode1`): `mode6+mode1` also fits mode 1 (two
   * subsets) on opaque blocks mode 6 holds badly, better on detailed terrain and photographs;
   * `mode6` skips it: several times faster, a little worse (figures in docs/gpu-compression.md).
   */
  bc7Modes?: 'mode6' | 'mode6+mode1';
}

const DEFAULT_BATCH_TILES = 16;
const PARAMS_WORDS = 4;
const ORIGIN = { x: 0, y: 0 } as const;

/**
 * Compresses rendered rgba8 tiles into block-compressed pool slots on the GPU (WebGPU only): a
 * compute kernel writes each tile's BC7 (mode 6), BC1 or BC5 blocks into a storage buffer (rows
 * padded to 256 bytes), then `copyBufferToTexture` puts them into the slot. BC textures cannot be
 * render or storage targets, so this is the only way to fill them from the GPU without a readback.
 *
 * Where it is unsupported ({@link GpuTileCompressor.isSupported}: the WebGL2 backend, or no
 * `texture-compression-bc`), the caller keeps an rgba8 pool for rendered tiles.
 *
 * Ordering: `compress` only records the tile; the kernel reads the source when the batch is
 * submitted (`flush()`, or when `batchTiles` are queued). A source must therefore hold its tile
 * until then: render a batch into distinct targets (or distinct regions of one atlas, see
 * `sourceOrigin`) before flushing, or flush after each tile when one target is reused. Renders
 * submitted after `flush()` see the slot written.
 *
 * Steady state allocates nothing per tile: pipeline, layouts, buffers and descriptors are made
 * once; one bind group per distinct source texture is made on first use and kept (weakly).
 */
export class GpuTileCompressor {
  /** Block format written. */
  readonly format: GpuBlockFormat;
  /** Tile side including border, in texels. */
  readonly tileSize: number;
  /** Tiles per submit. */
  readonly batchTiles: number;
  /** Where a tile's blocks sit in the output buffer. */
  readonly layout: TileBlockLayout;
  /** GPU bytes this compressor holds (output buffer and parameters), in bytes. */
  readonly gpuBytes: number;
  private readonly device: GPUDevice;
  private readonly backend: WebGPUBackendInternals;
  private readonly pipeline: GPUComputePipeline;
  private readonly sourceLayout: GPUBindGroupLayout;
  private readonly outputGroup: GPUBindGroup;
  private readonly blockBuffer: GPUBuffer;
  private readonly paramsBuffer: GPUBuffer;
  private readonly paramsStride: number;
  private readonly paramsData: Uint32Array<ArrayBuffer>;
  private readonly sourceGroups = new WeakMap<GPUTexture, GPUBindGroup>();
  private readonly pendingGroups: (GPUBindGroup | null)[];
  private readonly pendingTargets: (GPUTexture | null)[];
  private readonly pendingSlots: Int32Array;
  private readonly dynamicOffsets = new Uint32Array(2);
  private readonly workgroups: number;
  private readonly submitList: GPUCommandBuffer[] = [];
  private readonly copySource: GPUTexelCopyBufferInfo;
  private readonly copyTarget: {
    texture: GPUTexture;
    mipLevel: number;
    origin: { x: number; y: number; z: number };
  };
  private readonly copySize: { width: number; height: number; depthOrArrayLayers: number };
  private pending = 0;
  private compressedTiles = 0;
  private disposed = false;

  /**
   * True when `renderer` can compress tiles into `format` on the GPU: an initialised
   * WebGPURenderer on its WebGPU backend whose device has `texture-compression-bc`. False on the
   * WebGL2 backend (no compute, no buffer-to-texture copies).
   */
  static isSupported(renderer: WebGPURenderer, format: GpuBlockFormat = 'bc7-rgba-unorm'): boolean {
    if (!renderer.initialized || !GPU_BLOCK_FORMATS.includes(format)) return false;
    const backend = webgpuBackendOf(renderer);
    return backend?.device.features.has('texture-compression-bc') === true;
  }

  /**
   * Creates a compressor for `options.format` tiles of `options.tileSize` on `renderer`'s device.
   * @throws TesseraConfigError `invalid-option` when unsupported (see {@link isSupported}) or the
   *   format or batch size is invalid, `invalid-tile` for a tile size that is not a multiple of 4.
   */
  static create(renderer: WebGPURenderer, options: GpuTileCompressorOptions): GpuTileCompressor {
    if (!GPU_BLOCK_FORMATS.includes(options.format)) {
      throw new TesseraConfigError('invalid-option', `unknown block format ${String(options.format)}`);
    }
    const batchTiles = options.batchTiles ?? DEFAULT_BATCH_TILES;
    if (!Number.isInteger(batchTiles) || batchTiles < 1 || batchTiles > 256) {
      throw new TesseraConfigError('invalid-option', `batchTiles ${batchTiles} is not an integer in 1..256`);
    }
    const bc7Modes = options.bc7Modes ?? 'mode6+mode1';
    if (bc7Modes !== 'mode6' && bc7Modes !== 'mode6+mode1') {
      throw new TesseraConfigError(
        'invalid-option',
        `bc7Modes ${String(bc7Modes)} is not 'mode6' or 'mode6+mode1'`,
      );
    }
    const layout = tileBlockLayout(options.format, options.tileSize);
    if (!GpuTileCompressor.isSupported(renderer, options.format)) {
      throw new TesseraConfigError(
        'invalid-option',
        'GPU block compression needs an initialised WebGPU backend with texture-compression-bc; keep an rgba8 pool',
      );
    }
    return new GpuTileCompressor(
      webgpuBackendOf(renderer)!,
      options.format,
      options.tileSize,
      batchTiles,
      layout,
      bc7Modes === 'mode6+mode1',
    );
  }

  private constructor(
    backend: WebGPUBackendInternals,
    format: GpuBlockFormat,
    tileSize: number,
    batchTiles: number,
    layout: TileBlockLayout,
    tryMode1: boolean,
  ) {
    const device = backend.device;
    this.backend = backend;
    this.device = device;
    this.format = format;
    this.tileSize = tileSize;
    this.batchTiles = batchTiles;
    this.layout = layout;
    if (layout.bufferBytes % device.limits.minStorageBufferOffsetAlignment !== 0) {
      // Padded rows are 256-byte multiples, so this holds on every adapter WebGPU allows.
      throw new TesseraConfigError(
        'invalid-tile',
        `tile buffer of ${layout.bufferBytes} bytes breaks offset alignment`,
      );
    }
    this.paramsStride = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    this.paramsData = new Uint32Array((this.paramsStride / 4) * batchTiles);
    this.blockBuffer = device.createBuffer({
      label: 'tessera:gpu-compress:blocks',
      size: layout.bufferBytes * batchTiles,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
    });
    this.paramsBuffer = device.createBuffer({
      label: 'tessera:gpu-compress:params',
      size: this.paramsStride * batchTiles,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.gpuBytes = this.blockBuffer.size + this.paramsBuffer.size;
    this.sourceLayout = device.createBindGroupLayout({
      label: 'tessera:gpu-compress:source-layout',
      entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, texture: { sampleType: 'float' } }],
    });
    const outputLayout = device.createBindGroupLayout({
      label: 'tessera:gpu-compress:output-layout',
      entries: [
        {
          binding: 0,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: 'storage', hasDynamicOffset: true },
        },
        {
          binding: 1,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: 'uniform', hasDynamicOffset: true },
        },
      ],
    });
    this.outputGroup = device.createBindGroup({
      label: 'tessera:gpu-compress:output',
      layout: outputLayout,
      entries: [
        { binding: 0, resource: { buffer: this.blockBuffer, size: layout.bufferBytes } },
        { binding: 1, resource: { buffer: this.paramsBuffer, size: PARAMS_WORDS * 4 } },
      ],
    });
    this.pipeline = device.createComputePipeline({
      label: `tessera:gpu-compress:${format}`,
      layout: device.createPipelineLayout({ bindGroupLayouts: [this.sourceLayout, outputLayout] }),
      compute: {
        module: device.createShaderModule({
          label: `tessera:gpu-compress:${format}`,
          code: compressionKernelSource(format),
        }),
        entryPoint: 'main',
        // Overrides may only name constants the module declares: TRY_MODE1 is BC7's alone.
        constants: format.startsWith('bc7') ? { TRY_MODE1: tryMode1 ? 1 : 0 } : {},
      },
    });
    // Per-tile parameters that never change: blocks per side and the padded row stride in words.
    for (let i = 0; i < batchTiles; i++) {
      const base = (i * this.paramsStride) / 4;
      this.paramsData[base + 2] = layout.blocksPerSide;
      this.paramsData[base + 3] = layout.paddedRowBytes / 4;
    }
    this.pendingGroups = new Array<GPUBindGroup | null>(batchTiles).fill(null);
    this.pendingTargets = new Array<GPUTexture | null>(batchTiles).fill(null);
    this.pendingSlots = new Int32Array(batchTiles * 3);
    this.workgroups = Math.ceil(layout.blocksPerSide / KERNEL_WORKGROUP_SIDE);
    this.copySource = {
      buffer: this.blockBuffer,
      offset: 0,
      bytesPerRow: layout.paddedRowBytes,
      rowsPerImage: layout.blocksPerSide,
    };
    this.copyTarget = { texture: null as unknown as GPUTexture, mipLevel: 0, origin: { x: 0, y: 0, z: 0 } };
    this.copySize = { width: tileSize, height: tileSize, depthOrArrayLayers: 1 };
  }

  /** Tiles queued and not yet submitted. */
  get pendingTiles(): number {
    return this.pending;
  }

  /** Tiles submitted since creation. */
  get submittedTiles(): number {
    return this.compressedTiles;
  }

  /**
   * Queues one tile: the `tileSize²` texels of `source` (an rgba8 or rgba8 sRGB 2D texture three
   * has created, e.g. a render target's) at `sourceOrigin`, compressed into the slot at `slot` of
   * `pool` (a three texture of this compressor's format, e.g. a compressed pool texture). sRGB
   * sources are read as linear and re-encoded for sRGB formats, so colour survives either way.
   * Submits the batch when it is full (see the class notes on ordering).
   * @throws TesseraError `disposed` after `dispose()`; TesseraConfigError `invalid-option` for a
   *   texture three has not created or of the wrong format or usage, `invalid-size` for an origin
   *   off the block grid or a tile that does not fit. Nothing is queued when it throws; tiles
   *   queued before are kept.
   */
  compress(
    source: Texture,
    pool: Texture,
    slot: BlockSlotOrigin,
    sourceOrigin: SourceTileOrigin = ORIGIN,
  ): void {
    if (this.disposed) throw new TesseraError('disposed', 'GpuTileCompressor was disposed');
    const sourceGpu = gpuTextureOf(this.backend, source);
    const poolGpu = gpuTextureOf(this.backend, pool);
    if (sourceGpu === undefined || poolGpu === undefined) {
      throw new TesseraConfigError(
        'invalid-option',
        `${sourceGpu === undefined ? 'source' : 'pool'} texture has no GPU texture yet (render it or renderer.initTexture it first)`,
      );
    }
    checkSourceTile(sourceGpu, sourceOrigin, this.tileSize);
    checkBlockSlot(poolGpu, this.format, slot, this.tileSize);
    const index = this.pending;
    this.pendingGroups[index] = this.sourceGroupOf(sourceGpu);
    this.pendingTargets[index] = poolGpu;
    this.pendingSlots[index * 3] = slot.x;
    this.pendingSlots[index * 3 + 1] = slot.y;
    this.pendingSlots[index * 3 + 2] = slot.arrayLayer ?? 0;
    const params = (index * this.paramsStride) / 4;
    this.paramsData[params] = sourceOrigin.x;
    this.paramsData[params + 1] = sourceOrigin.y;
    this.pending = index + 1;
    if (this.pending === this.batchTiles) this.flush();
  }

  /**
   * Submits the queued tiles: one compute pass (a dispatch per tile) and one buffer-to-texture
   * copy per tile, in one command buffer. Returns the number of tiles submitted.
   */
  flush(): number {
    const count = this.pending;
    if (count === 0 || this.disposed) return 0;
    const device = this.device;
    device.queue.writeBuffer(this.paramsBuffer, 0, this.paramsData, 0, (count * this.paramsStride) / 4);
    const encoder = device.createCommandEncoder({ label: 'tessera:gpu-compress' });
    const pass = encoder.beginComputePass();
    pass.setPipeline(this.pipeline);
    const offsets = this.dynamicOffsets;
    for (let i = 0; i < count; i++) {
      offsets[0] = i * this.layout.bufferBytes;
      offsets[1] = i * this.paramsStride;
      pass.setBindGroup(0, this.pendingGroups[i]!);
      pass.setBindGroup(1, this.outputGroup, offsets, 0, 2);
      pass.dispatchWorkgroups(this.workgroups, this.workgroups);
    }
    pass.end();
    const source = this.copySource;
    const target = this.copyTarget;
    for (let i = 0; i < count; i++) {
      source.offset = i * this.layout.bufferBytes;
      target.texture = this.pendingTargets[i]!;
      target.origin.x = this.pendingSlots[i * 3];
      target.origin.y = this.pendingSlots[i * 3 + 1];
      target.origin.z = this.pendingSlots[i * 3 + 2];
      encoder.copyBufferToTexture(source, target, this.copySize);
      this.pendingGroups[i] = null;
      this.pendingTargets[i] = null;
    }
    target.texture = null as unknown as GPUTexture;
    this.submitList[0] = encoder.finish();
    device.queue.submit(this.submitList);
    this.submitList.length = 0;
    this.pending = 0;
    this.compressedTiles += count;
    return count;
  }

  /**
   * Frees the buffers (queued tiles are dropped, not submitted). Later `compress` calls throw
   * `disposed`; calling `dispose` again does nothing.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.pending = 0;
    this.pendingGroups.fill(null);
    this.pendingTargets.fill(null);
    this.blockBuffer.destroy();
    this.paramsBuffer.destroy();
  }

  private sourceGroupOf(texture: GPUTexture): GPUBindGroup {
    let group = this.sourceGroups.get(texture);
    if (group === undefined) {
      group = this.device.createBindGroup({
        label: 'tessera:gpu-compress:source',
        layout: this.sourceLayout,
        entries: [{ binding: 0, resource: texture.createView({ dimension: '2d' }) }],
      });
      this.sourceGroups.set(texture, group);
    }
    return group;
  }
}
