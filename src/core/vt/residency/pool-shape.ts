import { MAX_SLOTS } from '../page-table/page-table-entry';

/**
 * Shape of the physical pool: slots in a grid of tiles inside one texture per layer. When one 2D
 * texture of the backend's largest size cannot hold the slots, each layer is a 2D array texture of
 * `arrayLayers` grids (slot = (arrayLayer * slotRows + row) * slotsPerRow + column).
 */
export interface PoolShape {
  /** Slots per row of the pool texture. */
  slotsPerRow: number;
  /** Rows of slots (per array layer). */
  slotRows: number;
  /**
   * Array layers of each pool texture: 1 = a plain 2D texture (the grid fits in one), more = a 2D
   * array texture with one slot grid per array layer.
   */
  arrayLayers: number;
  /** Tile side including border, in texels. */
  tileSize: number;
}

/** Slots (tiles) a pool of `shape` holds, in slots. */
export function poolSlotCount(shape: PoolShape): number {
  return shape.slotsPerRow * shape.slotRows * shape.arrayLayers;
}

/**
 * Chooses the largest slot grid whose textures (one per layer) fit in `bytes` and in the
 * backend's texture limits: one 2D texture when it can hold the slots, else a 2D array texture of
 * full-size grids (each array layer holds `slotsPerRow x slotRows` slots; rows are trimmed evenly
 * so the last array layer is not wasted).
 * @param bytes budget for all pool layers together, in bytes.
 * @param tileSize tile side including border, in texels.
 * @param layerCount pool layers (each a `tileSize²` rgba8 tile per slot).
 * @param maxTextureSize largest texture side, in texels.
 * @param maxArrayLayers most array layers of one texture (1 = never an array texture).
 * @param slotBytes bytes of one slot across all layers (default an rgba8 tile per layer; less for
 *   block-compressed layers).
 */
export function choosePoolShape(
  bytes: number,
  tileSize: number,
  layerCount: number,
  maxTextureSize: number,
  maxArrayLayers = 1,
  slotBytes = tileSize * tileSize * 4 * layerCount,
): PoolShape {
  const maxPerSide = Math.max(0, Math.floor(maxTextureSize / tileSize));
  const perGrid = maxPerSide * maxPerSide;
  const wanted = Math.min(Math.floor(bytes / slotBytes), MAX_SLOTS);
  if (wanted <= perGrid || maxArrayLayers < 2 || perGrid === 0) {
    // One 2D texture (exactly the historical shape).
    const slots = Math.min(wanted, perGrid);
    const slotsPerRow = Math.max(1, Math.min(maxPerSide, Math.ceil(Math.sqrt(slots))));
    const slotRows = Math.min(maxPerSide, Math.floor(slots / slotsPerRow));
    return { slotsPerRow, slotRows, arrayLayers: 1, tileSize };
  }
  const slots = Math.min(wanted, perGrid * Math.floor(maxArrayLayers));
  const arrayLayers = Math.ceil(slots / perGrid);
  const slotsPerRow = maxPerSide;
  const slotRows = Math.min(maxPerSide, Math.floor(slots / (arrayLayers * slotsPerRow)));
  return { slotsPerRow, slotRows, arrayLayers, tileSize };
}
