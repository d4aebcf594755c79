import {
  ClampToEdgeWrapping,
  type CompressedArrayTexture,
  type CompressedTexture,
  DataArrayTexture,
  type DataTexture,
  LinearFilter,
  NoColorSpace,
  RGBAFormat,
  SRGBColorSpace,
  UnsignedByteType,
} from 'three';
import type { PoolFormatChoice, PoolTexelFormat } from '../../core/vt/residency/pool-format';
import { type PoolShape, poolSlotCount } from '../../core/vt/residency/pool-shape';
import { tileLayerBytes } from '../../core/vt/tile-bytes';
import type { BackendBridge } from '../backend-bridge';
import { createAllocatedTexture } from './allocated-texture';
import { createCompressedPoolTexture } from './compressed-pool-texture';

/** A pool layer's texture: 2D, or a 2D array when the shape has several array layers. */
export type PoolTexture = DataTexture | DataArrayTexture | CompressedTexture | CompressedArrayTexture;

/**
 * Creates one pool layer's texture, allocated by three but never filled by it (every texel is
 * written through sub-rectangle uploads; see `createAllocatedTexture`).
 */
function createPoolTexture(name: string, width: number, height: number, shape: PoolShape, srgb: boolean) {
  if (shape.arrayLayers === 1) {
    return createAllocatedTexture({
      name,
      width,
      height,
      mipLevels: 1,
      format: RGBAFormat,
      type: UnsignedByteType,
      srgb,
      magFilter: LinearFilter,
      minFilter: LinearFilter,
    });
  }
  const texture = new DataArrayTexture(null, width, height, shape.arrayLayers);
  texture.name = name;
  texture.format = RGBAFormat;
  texture.type = UnsignedByteType;
  texture.colorSpace = srgb ? SRGBColorSpace : NoColorSpace;
  texture.magFilter = LinearFilter;
  texture.minFilter = LinearFilter;
  texture.wrapS = ClampToEdgeWrapping;
  texture.wrapT = ClampToEdgeWrapping;
  texture.flipY = false;
  texture.generateMipmaps = false;
  texture.unpackAlignment = 4;
  // No CPU copy: three allocates the storage and skips its whole-texture upload.
  texture.source.dataReady = false;
  texture.needsUpdate = true;
  return texture;
}

/**
 * The physical pool on the GPU: one texture per layer, holding `slotsPerRow x slotRows` tiles (per
 * array layer, when the shape needs a 2D array texture), each layer in its own texel format (rgba8
 * or a 4x4 block format; see `choosePoolFormat`). sRGB formats are decoded by the sampler.
 */
export class PoolTextures {
  /** One texture per layer, in layer order (2D array textures when `shape.arrayLayers > 1`). */
  readonly textures: PoolTexture[];
  /** Slot grid. */
  readonly shape: PoolShape;
  /** Pool texture width, in texels. */
  readonly width: number;
  /** Pool texture height (of one array layer), in texels. */
  readonly height: number;
  /** Number of slots (tiles) the pool holds. */
  readonly slotCount: number;
  /** Texel format of each layer's texture. */
  readonly formats: readonly PoolTexelFormat[];
  /** Bytes of each layer's texture (every array layer; whole blocks for block formats), in bytes. */
  readonly bytesPerLayer: readonly number[];
  private readonly bridge: BackendBridge;
  private readonly slotsPerGrid: number;

  /** @param choices the format of each layer (see `choosePoolFormat`). */
  constructor(bridge: BackendBridge, shape: PoolShape, choices: readonly PoolFormatChoice[]) {
    const formats = choices.map((choice) => choice.format);
    this.bridge = bridge;
    this.shape = shape;
    this.formats = formats;
    this.width = shape.slotsPerRow * shape.tileSize;
    this.height = shape.slotRows * shape.tileSize;
    this.slotsPerGrid = shape.slotsPerRow * shape.slotRows;
    this.slotCount = poolSlotCount(shape);
    // Exactly what the GPU holds: slots x tile bytes (the texture is the slot grid, nothing more).
    this.bytesPerLayer = formats.map((format) => this.slotCount * tileLayerBytes(format, shape.tileSize));
    this.textures = formats.map((format, layer) => {
      const name = `tessera:pool:${layer}`;
      const texture =
        format === 'rgba8unorm' || format === 'rgba8unorm-srgb'
          ? createPoolTexture(name, this.width, this.height, shape, format === 'rgba8unorm-srgb')
          : createCompressedPoolTexture(name, this.width, this.height, shape.arrayLayers, format);
      bridge.renderer.initTexture(texture);
      return texture;
    });
  }

  /**
   * Writes one layer's tile into `slot`: `tileSize² x 4` bytes for rgba8 layers, `(tileSize / 4)²`
   * blocks (block rows top to bottom) for block-compressed ones.
   */
  writeTile(layer: number, slot: number, bytes: Uint8Array): void {
    const { slotsPerRow, tileSize } = this.shape;
    const arrayLayer = Math.floor(slot / this.slotsPerGrid);
    const inGrid = slot - arrayLayer * this.slotsPerGrid;
    const x = (inGrid % slotsPerRow) * tileSize;
    const y = Math.floor(inGrid / slotsPerRow) * tileSize;
    const format = this.formats[layer];
    if (format !== 'rgba8unorm' && format !== 'rgba8unorm-srgb') {
      this.bridge.writeBlocks(this.textures[layer], format, x, y, tileSize, tileSize, bytes, arrayLayer);
      return;
    }
    this.bridge.writeRect(
      this.textures[layer],
      'rgba8',
      0,
      x,
      y,
      tileSize,
      tileSize,
      bytes,
      0,
      tileSize,
      arrayLayer,
    );
  }

  /**
   * Writes a loaded tile into `slot`: pool layer `p` receives `layers[poolLayerSource[p]]` (none
   * when that is -1).
   */
  writeTiles(poolLayerSource: Int8Array, slot: number, layers: readonly Uint8Array[]): void {
    for (let layer = 0; layer < poolLayerSource.length; layer++) {
      const from = poolLayerSource[layer];
      if (from >= 0) this.writeTile(layer, slot, layers[from]);
    }
  }

  /** Frees every layer texture. */
  dispose(): void {
    for (const texture of this.textures) texture.dispose();
  }
}
