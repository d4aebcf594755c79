import { TesseraConfigError } from '../errors';
import { choosePoolShape, type PoolShape, poolSlotCount } from './residency/pool-shape';

/** Bytes per feedback pixel: an RGBA8 colour texel plus a 32-bit depth texel. */
export const FEEDBACK_BYTES_PER_PIXEL = 8;

/**
 * Where page requests are written: `'separate-pass'`, a low-resolution render of the scene into a
 * feedback target; `'main-pass'` (WebGPU), the user's own render, one request per screen tile into
 * a storage buffer, compacted on the GPU before readback.
 */
export type FeedbackMode = 'separate-pass' | 'main-pass';

/**
 * Main-pass bytes per screen tile: the tile (depth key, page id), two hash-table entries (key,
 * count) and one list entry (page, count).
 */
const MAIN_PASS_BYTES_PER_TILE = 8 + 16 + 8;
/** Main-pass fixed bytes: the list header and the compaction's parameters. */
const MAIN_PASS_FIXED_BYTES = 8 + 16;

/** What a virtual-texture system's budget arithmetic needs (all pure numbers). */
export interface VirtualTextureBudgetInput {
  /** This system's share of the budget, in bytes. */
  shareBytes: number;
  /** Most the budget could ever give this system (the share, less others' pinned bytes), in bytes. */
  capacityBytes: number;
  /** Tile side including border, in texels. */
  tileSize: number;
  /** Pool layers (each an rgba8 tile per slot, unless {@link slotBytes} says otherwise). */
  layerCount: number;
  /**
   * Bytes of one pool slot across all layers (block-compressed layers take whole blocks), in
   * bytes. Default: an rgba8 tile per layer, `tileSize² x 4 x layerCount`.
   */
  slotBytes?: number;
  /** Where requests are written. Default `'separate-pass'`. */
  feedbackMode?: FeedbackMode;
  /** Feedback target size (main pass: tile grid), in feedback pixels. */
  feedbackWidth: number;
  /** Feedback target height (main pass: tile grid), in feedback pixels. */
  feedbackHeight: number;
  /** Row alignment of readback buffers, in bytes (256 on WebGPU, 1 on WebGL2). */
  readbackRowAlignment: number;
  /** Readbacks in flight at once (ring buffers). */
  readbacksInFlight: number;
  /** Page-table reserve, in bytes. */
  pageTableBytes: number;
  /** Staging reserve (tiles loaded but not uploaded, and loads in flight), in bytes. */
  stagingBytes: number;
  /** Fewest pool slots accepted. */
  minPoolSlots: number;
  /** Largest side of one pool texture, in texels. */
  maxTextureSize: number;
  /** Most array layers of one pool texture. */
  maxArrayLayers: number;
}

/** The reservations a virtual-texture system makes, by category, and its pool's shape. */
export interface VirtualTextureBudgetPlan {
  /** Feedback colour + depth target, in bytes. */
  feedbackBytes: number;
  /** Readback ring, in bytes. */
  readbackBytes: number;
  /** Page-table reserve, in bytes. */
  pageTableBytes: number;
  /** Staging reserve, in bytes. */
  stagingBytes: number;
  /** One pool slot across all layers, in bytes. */
  slotBytes: number;
  /** Everything but the pool, in bytes. */
  fixedBytes: number;
  /** Fixed bytes plus the fewest pool slots accepted, in bytes. */
  minimumBytes: number;
  /** The pool that fills the rest of the share. */
  poolShape: PoolShape;
  /** Bytes of {@link poolShape}. */
  poolBytes: number;
}

/**
 * Bytes of a feedback target of `width x height` feedback pixels (colour + depth), or in main-pass
 * mode of the tile buffer, hash table and list of a `width x height` tile grid.
 */
export function feedbackTargetBytes(
  width: number,
  height: number,
  mode: FeedbackMode = 'separate-pass',
): number {
  if (mode === 'main-pass') return width * height * MAIN_PASS_BYTES_PER_TILE + MAIN_PASS_FIXED_BYTES;
  return width * height * FEEDBACK_BYTES_PER_PIXEL;
}

/**
 * Bytes of a ring of `count` readback buffers of a `width x height` RGBA8 target, rows aligned, or
 * in main-pass mode of `count` compacted lists with room for every tile of the grid (8 bytes a
 * tile), each with a tile image (8 bytes a tile) for debug views.
 */
export function readbackRingBytes(
  width: number,
  height: number,
  rowAlignment: number,
  count: number,
  mode: FeedbackMode = 'separate-pass',
): number {
  if (mode === 'main-pass') return (8 + width * height * 16) * count;
  return Math.ceil((width * 4) / rowAlignment) * rowAlignment * height * count;
}

/**
 * Splits a virtual-texture system's share: feedback target, readback ring, page-table and staging
 * reserves first, the rest to the largest pool that fits (see `choosePoolShape`).
 * @throws TesseraConfigError('budget-too-small') when the capacity cannot hold the fixed bytes and
 *   `minPoolSlots` slots.
 */
export function planVirtualTextureBudget(input: VirtualTextureBudgetInput): VirtualTextureBudgetPlan {
  const mode = input.feedbackMode ?? 'separate-pass';
  const feedbackBytes = feedbackTargetBytes(input.feedbackWidth, input.feedbackHeight, mode);
  const readbackBytes = readbackRingBytes(
    input.feedbackWidth,
    input.feedbackHeight,
    input.readbackRowAlignment,
    input.readbacksInFlight,
    mode,
  );
  const slotBytes = slotBytesOf(input);
  const fixedBytes = feedbackBytes + readbackBytes + input.pageTableBytes + input.stagingBytes;
  const minimumBytes = fixedBytes + input.minPoolSlots * slotBytes;
  if (minimumBytes > input.capacityBytes) {
    throw new TesseraConfigError(
      'budget-too-small',
      `budget of ${input.capacityBytes} bytes is below the virtual-texture minimum of ${minimumBytes} bytes: feedback ${feedbackBytes}, readback ${readbackBytes}, page tables ${input.pageTableBytes}, staging ${input.stagingBytes}, ${input.minPoolSlots} pool slots of ${slotBytes}`,
    );
  }
  const poolShape = poolShapeFor(input, input.shareBytes - fixedBytes);
  if (poolSlotCount(poolShape) < input.minPoolSlots) {
    // The slot grid rounds the slot count down (whole rows): the bytes fit, the grid does not.
    throw new TesseraConfigError(
      'budget-too-small',
      `a pool of ${input.shareBytes - fixedBytes} bytes holds a grid of only ${poolSlotCount(poolShape)} slots, below the minimum of ${input.minPoolSlots}`,
    );
  }
  return {
    feedbackBytes,
    readbackBytes,
    pageTableBytes: input.pageTableBytes,
    stagingBytes: input.stagingBytes,
    slotBytes,
    fixedBytes,
    minimumBytes,
    poolShape,
    poolBytes: poolSlotCount(poolShape) * slotBytes,
  };
}

/** Bytes of one pool slot across all of `input`'s layers, in bytes. */
export function slotBytesOf(input: VirtualTextureBudgetInput): number {
  return input.slotBytes ?? input.tileSize * input.tileSize * 4 * input.layerCount;
}

/** The largest pool of `input`'s tiles and limits that fits in `bytes`. */
export function poolShapeFor(input: VirtualTextureBudgetInput, bytes: number): PoolShape {
  return choosePoolShape(
    bytes,
    input.tileSize,
    input.layerCount,
    input.maxTextureSize,
    input.maxArrayLayers,
    slotBytesOf(input),
  );
}

/**
 * Largest feedback target of about the aspect of `width x height` whose target fits in
 * `maxTargetBytes` and whose readback ring fits in `maxRingBytes`, in feedback pixels (at least
 * 1 x 1): what a resize gets when the budget refuses more room.
 */
export function fitFeedbackSize(
  width: number,
  height: number,
  maxTargetBytes: number,
  maxRingBytes: number,
  rowAlignment: number,
  readbacksInFlight: number,
  out: { width: number; height: number },
  mode: FeedbackMode = 'separate-pass',
): { width: number; height: number } {
  const fits = (w: number, h: number) =>
    feedbackTargetBytes(w, h, mode) <= maxTargetBytes &&
    readbackRingBytes(w, h, rowAlignment, readbacksInFlight, mode) <= maxRingBytes;
  let w = width;
  let h = height;
  if (!fits(w, h)) {
    const shrink = Math.sqrt(maxTargetBytes / feedbackTargetBytes(w, h, mode));
    w = Math.max(1, Math.min(w, Math.floor(w * shrink)));
    h = Math.max(1, Math.min(h, Math.floor(h * shrink)));
    // Row padding can still overflow the ring: shave the longer side until both fit.
    while ((w > 1 || h > 1) && !fits(w, h)) {
      // Shave the side longer than the wanted aspect; never below one pixel.
      if (h === 1 || (w > 1 && w * height >= h * width)) w--;
      else {
        h--;
      }
    }
  }
  out.width = w;
  out.height = h;
  return out;
}
