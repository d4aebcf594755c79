import { BudgetPriority } from '../../core/budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../../core/budget/texture-budget';
import type { PoolFormatChoice } from '../../core/vt/residency/pool-format';
import { type PoolShape, poolSlotCount } from '../../core/vt/residency/pool-shape';
import type { VirtualTextureStreamer } from '../../core/vt/virtual-texture-streamer';
import type { BackendBridge } from '../backend-bridge';
import type { PinnedTileCache } from '../uploads/pinned-tile-cache';
import { canCopyPoolSlots, copyPoolSlots } from './pool-copy';
import { PoolTextures } from './pool-textures';

/** The pool's GPU textures and the budget reservation holding them. */
export interface PoolAllocation {
  readonly textures: PoolTextures;
  /** Handle of the `vt-pool` reservation. */
  readonly reservation: number;
}

/** What a pool resize works with. */
export interface PoolResizeContext {
  readonly bridge: BackendBridge;
  readonly budget: TextureBudget;
  readonly streamer: VirtualTextureStreamer;
  /** The format of each pool layer (see `choosePoolFormat`). */
  readonly formats: readonly PoolFormatChoice[];
  readonly pinnedTiles: PinnedTileCache;
  /** Bytes of one slot across every layer, in bytes. */
  readonly slotBytes: number;
}

/** How a resize went. */
export type PoolResizeOutcome =
  /** Old and new textures fitted the budget together: every surviving page copied GPU-side. */
  | 'copied'
  /**
   * No room for both: the old textures went first, only the pinned pages survived (written back
   * from their CPU copies); the others stream in again.
   */
  | 'shed-first'
  /** A grow the budget has no room for (even without the old pool); nothing changed. */
  | 'refused'
  | 'unchanged';

/**
 * Reallocates the pool to `shape`. When the budget holds the old and the new textures at once,
 * the new ones are reserved and created, the survivors (pinned pages, then the most recently
 * used, as many as fit) copied GPU-side, and the old ones freed ('copied'). Otherwise it sheds
 * first: the reservation is lowered (or raised, if the budget has room for the new pool alone) in
 * place, the old textures freed, the new ones created and the pinned pages written back from
 * their CPU copies ('shed-first'), so GPU memory never exceeds the budget and the coarsest mips
 * never go missing; a grow with no room even for that changes nothing ('refused').
 * The caller re-points its sampling nodes at the new textures and uploads the page tables.
 * @throws TesseraConfigError('pool-too-small') when `shape` cannot hold the pinned pages;
 *   nothing changes then.
 */
export function resizePool(
  ctx: PoolResizeContext,
  current: PoolAllocation,
  shape: PoolShape,
): { allocation: PoolAllocation; outcome: PoolResizeOutcome } {
  const slots = poolSlotCount(shape);
  const old = current.textures;
  if (slots === old.slotCount && sameShape(shape, old.shape)) {
    return { allocation: current, outcome: 'unchanged' };
  }
  const bytes = slots * ctx.slotBytes;
  const transient = ctx.budget.tryReserve('vt-pool', bytes, undefined, BudgetPriority.infrastructure);
  if (transient !== NO_RESERVATION) {
    const copyable = canCopyPoolSlots(ctx.bridge, old);
    let newSlotOf: Int32Array;
    try {
      newSlotOf = ctx.streamer.resizePool(slots, copyable ? slots : 0);
    } catch (error) {
      ctx.budget.release(transient);
      throw error;
    }
    const textures = new PoolTextures(ctx.bridge, shape, ctx.formats);
    if (copyable) copyPoolSlots(ctx.bridge, old, textures, newSlotOf);
    else {
      writePinnedTiles(ctx, textures, newSlotOf);
    }
    old.dispose();
    ctx.budget.release(current.reservation);
    return { allocation: { textures, reservation: transient }, outcome: 'copied' };
  }
  // No room for both: free the old pool first (shrinking or growing the reservation in place).
  let newSlotOf: Int32Array;
  if (slots > old.slotCount) {
    if (!ctx.budget.tryGrow(current.reservation, bytes, BudgetPriority.infrastructure)) {
      return { allocation: current, outcome: 'refused' };
    }
    newSlotOf = ctx.streamer.resizePool(slots, 0);
  } else {
    newSlotOf = ctx.streamer.resizePool(slots, 0); // throws before anything changed
    ctx.budget.shrink(current.reservation, bytes);
  }
  old.dispose();
  const textures = new PoolTextures(ctx.bridge, shape, ctx.formats);
  writePinnedTiles(ctx, textures, newSlotOf);
  return { allocation: { textures, reservation: current.reservation }, outcome: 'shed-first' };
}

/** Writes the CPU copies of the pages now in the pool (the pinned ones) into `textures`. */
export function writePinnedTiles(
  ctx: PoolResizeContext,
  textures: PoolTextures,
  newSlotOf: Int32Array,
): void {
  const pool = ctx.streamer.pool;
  for (let s = 0; s < newSlotOf.length; s++) {
    const slot = newSlotOf[s];
    if (slot < 0) continue;
    const layers = ctx.pinnedTiles.get(pool.slotPages[slot]);
    if (layers === undefined) continue;
    for (let layer = 0; layer < layers.length; layer++) {
      const bytes = layers[layer];
      if (bytes !== null) textures.writeTile(layer, slot, bytes);
    }
  }
}

function sameShape(a: PoolShape, b: PoolShape): boolean {
  return a.slotsPerRow === b.slotsPerRow && a.slotRows === b.slotRows && a.arrayLayers === b.arrayLayers;
}
