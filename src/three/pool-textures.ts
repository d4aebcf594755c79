import {
  type DataTexture,
  LinearFilter,
  NearestFilter,
  RedIntegerFormat,
  RGBAFormat,
  UnsignedByteType,
  UnsignedIntType,
} from 'three';
import type { TileEncoding } from '../core/tile-source';
import { createAllocatedTexture, textureBytes } from './allocated-texture';
import type { BackendBridge } from './backend-bridge';

/** Shape of the physical pool: slots in a grid of tiles inside one 2D texture per layer. */
export interface PoolShape {
  /** Slots per row of the pool texture. */
  slotsPerRow: number;
  /** Rows of slots. */
  slotRows: number;
  /** Tile side including border, in texels. */
  tileSize: number;
}

/**
 * Chooses the largest slot grid whose textures (one per layer) fit in `bytes` and in the
 * backend's texture size limit.
 * @param bytes budget for all pool layers together, in bytes.
 * @param layerCount pool layers (each a `tileSize²` rgba8 tile per slot).
 * @param maxTextureSize largest texture side, in texels.
 */
export function choosePoolShape(
  bytes: number,
  tileSize: number,
  layerCount: number,
  maxTextureSize: number,
): PoolShape {
  const slotBytes = tileSize * tileSize * 4 * layerCount;
  const maxPerSide = Math.floor(maxTextureSize / tileSize);
  const slots = Math.min(Math.floor(bytes / slotBytes), maxPerSide * maxPerSide, 0x10000);
  const slotsPerRow = Math.max(1, Math.min(maxPerSide, Math.ceil(Math.sqrt(slots))));
  const slotRows = Math.min(maxPerSide, Math.floor(slots / slotsPerRow));
  return { slotsPerRow, slotRows, tileSize };
}

/**
 * The physical pool on the GPU: one texture per layer, holding `slotsPerRow x slotRows` tiles.
 * Colour layers are sRGB (decoded by the sampler), data layers linear.
 */
export class PoolTextures {
  /** One texture per layer, in layer order. */
  readonly textures: DataTexture[];
  /** Slot grid. */
  readonly shape: PoolShape;
  /** Pool texture width, in texels. */
  readonly width: number;
  /** Pool texture height, in texels. */
  readonly height: number;
  /** Number of slots (tiles) the pool holds. */
  readonly slotCount: number;
  /** Bytes of each layer's texture. */
  readonly bytesPerLayer: number;
  private readonly bridge: BackendBridge;

  constructor(bridge: BackendBridge, shape: PoolShape, formats: readonly TileEncoding[]) {
    this.bridge = bridge;
    this.shape = shape;
    this.width = shape.slotsPerRow * shape.tileSize;
    this.height = shape.slotRows * shape.tileSize;
    this.slotCount = shape.slotsPerRow * shape.slotRows;
    this.bytesPerLayer = textureBytes(this.width, this.height, 1);
    this.textures = formats.map((format, layer) => {
      const texture = createAllocatedTexture({
        name: `tessera:pool:${layer}`,
        width: this.width,
        height: this.height,
        mipLevels: 1,
        format: RGBAFormat,
        type: UnsignedByteType,
        srgb: format === 'rgba8unorm-srgb',
        magFilter: LinearFilter,
        minFilter: LinearFilter,
      });
      bridge.renderer.initTexture(texture);
      return texture;
    });
  }

  /** Writes one layer's `tileSize² x 4` bytes into `slot`. */
  writeTile(layer: number, slot: number, bytes: Uint8Array): void {
    const { slotsPerRow, tileSize } = this.shape;
    const x = (slot % slotsPerRow) * tileSize;
    const y = Math.floor(slot / slotsPerRow) * tileSize;
    this.bridge.writeRect(this.textures[layer], 'rgba8', 0, x, y, tileSize, tileSize, bytes, 0, tileSize);
  }

  /** Frees every layer texture. */
  dispose(): void {
    for (const texture of this.textures) texture.dispose();
  }
}

/**
 * One virtual texture's page table on the GPU: an `r32uint` texture with one mip level per mip of
 * the virtual texture, read in shaders with `textureLoad`. Only dirty rectangles are uploaded.
 */
export class PageTableTexture {
  /** The three texture (label `tessera:page-table:<name>`). */
  readonly texture: DataTexture;
  /** Bytes of all levels. */
  readonly bytes: number;
  private readonly bridge: BackendBridge;

  constructor(
    bridge: BackendBridge,
    name: string,
    widthPages: number,
    heightPages: number,
    mipCount: number,
  ) {
    this.bridge = bridge;
    this.texture = createAllocatedTexture({
      name: `tessera:page-table:${name}`,
      width: widthPages,
      height: heightPages,
      mipLevels: mipCount,
      format: RedIntegerFormat,
      type: UnsignedIntType,
      srgb: false,
      magFilter: NearestFilter,
      minFilter: NearestFilter,
    });
    this.bytes = textureBytes(widthPages, heightPages, mipCount);
    bridge.renderer.initTexture(this.texture);
  }

  /**
   * Uploads a rectangle of one level from `entries` (that level's whole table, row-major).
   * @param levelWidth width of that level, in pages (the row stride of `entries`).
   */
  writeRect(
    mip: number,
    entries: Uint32Array,
    levelWidth: number,
    x: number,
    y: number,
    width: number,
    height: number,
  ): void {
    this.bridge.writeRect(
      this.texture,
      'r32uint',
      mip,
      x,
      y,
      width,
      height,
      entries,
      y * levelWidth + x,
      levelWidth,
    );
  }

  /** Frees the texture. */
  dispose(): void {
    this.texture.dispose();
  }
}
