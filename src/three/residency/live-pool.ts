import { BudgetPriority } from '../../core/budget/budget-priority';
import type { BudgetShedder } from '../../core/budget/texture-budget-options';
import { TesseraConfigError } from '../../core/errors';
import { type PoolShape, poolSlotCount } from '../../core/vt/residency/pool-shape';
import { poolShapeFor, type VirtualTextureBudgetInput } from '../../core/vt/vt-budget-plan';
import type { BackendBridge } from '../backend-bridge';
import { PinnedTileCache } from '../uploads/pinned-tile-cache';
import {
  type PoolAllocation,
  type PoolResizeContext,
  type PoolResizeOutcome,
  resizePool,
  writePinnedTiles,
} from './pool-resize';
import { PoolTextures } from './pool-textures';

/** Frames between attempts to grow the pool back into free budget, in frames. */
const REGROW_INTERVAL_FRAMES = 16;

/** A pool resize's context, less what the {@link LivePool} owns itself. */
export type LivePoolContext = Omit<PoolResizeContext, 'pinnedTiles'>;

/** What the pool's owner tells a {@link LivePool}. */
export interface LivePoolOwner {
  /** Bytes of the owner's other reservations (page tables, feedback, readback), in bytes. */
  otherBytes(): number;
  /** Fewest slots the pool may have (the minimum, and every registered texture's pinned pages). */
  minSlots(): number;
  /** The pool was reallocated: re-point sampling nodes at the new textures, upload page tables. */
  resized(textures: PoolTextures, outcome: PoolResizeOutcome): void;
}

/**
 * The physical pool of a virtual-texture system as its budget changes, without a rebuild. Its
 * target size is the system's share less its other reservations. It shrinks at once when the
 * share is lowered, or when the shared budget is cut and lower-priority data could not cover the
 * cut (it is the budget's shedder at infrastructure priority, so streamed mips go first); it grows
 * back toward its share when the budget has room again (checked every 16 frames, and after a
 * budget change). Every resize goes through {@link resizePool}: never above the budget, pinned
 * mips kept.
 */
export class LivePool {
  /** CPU copies of the pinned tiles (see {@link PinnedTileCache}). */
  readonly pinnedTiles = new PinnedTileCache();
  private ctx: PoolResizeContext;
  private alloc: PoolAllocation;
  private readonly pinnedLayers: (Uint8Array | null)[];
  private share: number;
  private lastBudgetBytes: number;
  private nextRegrowFrame = 0;
  /** Registered with the budget: sheds pool slots on a cut, after the streamed textures. */
  readonly shedder: BudgetShedder = {
    priority: BudgetPriority.infrastructure,
    shed: (bytes) => this.shed(bytes),
  };

  constructor(
    context: LivePoolContext,
    allocation: PoolAllocation,
    private readonly input: VirtualTextureBudgetInput,
    shareBytes: number,
    private readonly owner: LivePoolOwner,
  ) {
    this.ctx = { ...context, pinnedTiles: this.pinnedTiles };
    this.alloc = allocation;
    this.pinnedLayers = context.formats.map(() => null);
    this.share = shareBytes;
    this.lastBudgetBytes = context.budget.budgetBytes;
    context.budget.addShedder(this.shedder);
  }

  /**
   * Writes a loaded page into `slot` of every pool layer: pool layer `l` gets
   * `layers[layerSource[l]]` (none where -1). A pinned page (the slot is pinned) keeps a CPU copy.
   */
  writePage(layerSource: Int8Array, slot: number, pageId: number, layers: readonly Uint8Array[]): void {
    const pool = this.alloc.textures;
    const pinned = this.pinnedLayers;
    for (let layer = 0; layer < layerSource.length; layer++) {
      const from = layerSource[layer];
      pinned[layer] = from >= 0 ? layers[from] : null;
      if (from >= 0) pool.writeTile(layer, slot, layers[from]);
    }
    if (this.ctx.streamer.pool.isPinned(slot)) this.pinnedTiles.put(pageId, pinned);
  }

  /** The pool textures now (replaced by each resize). */
  get textures(): PoolTextures {
    return this.alloc.textures;
  }

  /** Bytes reserved for the pool, in bytes. */
  get reservedBytes(): number {
    return this.ctx.budget.bytesOf(this.alloc.reservation);
  }

  /** The system's share of the budget, in bytes. */
  get shareBytes(): number {
    return this.share;
  }

  /** Bytes the pool may take under the share, in bytes. */
  get targetBytes(): number {
    return this.share - this.owner.otherBytes();
  }

  /**
   * Changes the share and resizes the pool now (a shrink never exceeds the budget; a grow takes
   * what the budget can give, shedding lower-priority data).
   * @throws TesseraConfigError('budget-too-small') below the other reservations plus the fewest
   *   slots; nothing changes then.
   */
  setShare(bytes: number): PoolResizeOutcome {
    const minimum = this.owner.otherBytes() + this.owner.minSlots() * this.ctx.slotBytes;
    if (!Number.isFinite(bytes) || bytes < minimum) {
      throw new TesseraConfigError(
        'budget-too-small',
        `a share of ${bytes} bytes is below this system's minimum of ${minimum} bytes`,
      );
    }
    this.share = Math.floor(bytes);
    return this.resizeTo(this.shapeFor(this.targetBytes));
  }

  /** Per-frame check: grows back toward the share when the budget has room. */
  update(frame: number): void {
    const budget = this.ctx.budget;
    const changed = budget.budgetBytes !== this.lastBudgetBytes;
    if (!changed && frame < this.nextRegrowFrame) return;
    this.nextRegrowFrame = frame + REGROW_INTERVAL_FRAMES;
    this.lastBudgetBytes = budget.budgetBytes;
    if (budget.liveBytes > budget.budgetBytes) return; // a cut is still being shed
    const current = this.alloc.textures.slotCount;
    const target = this.shapeFor(this.targetBytes);
    if (poolSlotCount(target) <= current) return;
    // After a budget change, claim the whole target (lower-priority data sheds for it); otherwise
    // take only free room, so the pool never sheds others again and again.
    if (changed && this.resizeTo(target) !== 'refused') return;
    const fits = this.shapeFor(Math.min(this.targetBytes, budget.freeBytes));
    if (poolSlotCount(fits) > current) this.resizeTo(fits);
  }

  /**
   * Recreates the pool textures on `bridge` (a new renderer after a device loss), same shape and
   * reservation: every page but the pinned ones becomes non-resident, the pinned ones are written
   * back from their CPU copies at once, the rest streams in again.
   */
  recover(bridge: BackendBridge): void {
    this.ctx = { ...this.ctx, bridge };
    const old = this.alloc.textures;
    const newSlotOf = this.ctx.streamer.resizePool(old.slotCount, 0);
    old.dispose();
    const textures = new PoolTextures(bridge, old.shape, this.ctx.formats);
    writePinnedTiles(this.ctx, textures, newSlotOf);
    this.alloc = { textures, reservation: this.alloc.reservation };
    this.owner.resized(textures, 'shed-first');
  }

  /** Releases the pool's textures, reservation and shedder. */
  dispose(): void {
    this.ctx.budget.removeShedder(this.shedder);
    this.pinnedTiles.clear();
    this.alloc.textures.dispose();
    this.ctx.budget.release(this.alloc.reservation);
  }

  private shed(bytes: number): void {
    const shape = this.shapeFor(this.reservedBytes - bytes);
    if (poolSlotCount(shape) < this.alloc.textures.slotCount) this.resizeTo(shape);
  }

  private resizeTo(shape: PoolShape): PoolResizeOutcome {
    const { allocation, outcome } = resizePool(this.ctx, this.alloc, shape);
    this.alloc = allocation;
    if (outcome === 'copied' || outcome === 'shed-first') this.owner.resized(allocation.textures, outcome);
    return outcome;
  }

  /** The largest pool shape within `bytes`, but never below the fewest slots. */
  private shapeFor(bytes: number): PoolShape {
    const min = this.owner.minSlots();
    let shape = poolShapeFor(this.input, Math.max(bytes, min * this.ctx.slotBytes));
    // Whole rows round the slot count down: add a row's worth until the minimum fits.
    for (let extra = 1; poolSlotCount(shape) < min; extra++) {
      shape = poolShapeFor(this.input, (min + extra * shape.slotsPerRow) * this.ctx.slotBytes);
    }
    return shape;
  }
}
