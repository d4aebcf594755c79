import { BudgetPriority } from '../core/budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../core/budget/texture-budget';
import { TesseraConfigError } from '../core/errors';
import { type PoolShape, poolSlotCount } from '../core/vt/pool-shape';
import {
  poolShapeFor,
  type VirtualTextureBudgetInput,
  type VirtualTextureBudgetPlan,
} from '../core/vt/vt-budget-plan';

/** The budget reservations of one virtual-texture system (handles into its `TextureBudget`). */
export interface VirtualTextureReservations {
  feedback: number;
  readback: number;
  pageTable: number;
  /** Staging: tiles loaded but not uploaded, and loads in flight (see `stagingBytes`). */
  staging: number;
  pool: number;
  /** The pool the reservation holds (smaller than the plan's when others hold part of the share). */
  poolShape: PoolShape;
  /** Bytes of {@link poolShape}. */
  poolBytes: number;
}

/**
 * Reserves `plan` in `budget` at infrastructure priority: feedback, readback, page tables, staging,
 * then the planned pool, or the largest pool that still fits when others hold part of the share and would
 * not shed it.
 * @throws TesseraConfigError('budget-too-small'), with nothing left reserved, when even
 *   `minPoolSlots` slots do not fit.
 */
export function reserveVirtualTextureBudget(
  budget: TextureBudget,
  plan: VirtualTextureBudgetPlan,
  input: VirtualTextureBudgetInput,
): VirtualTextureReservations {
  const taken: number[] = [];
  const take = (
    category: 'page-table' | 'feedback' | 'readback' | 'staging' | 'vt-pool',
    bytes: number,
  ): number => {
    const handle = budget.tryReserve(category, bytes, undefined, BudgetPriority.infrastructure);
    if (handle !== NO_RESERVATION) taken.push(handle);
    return handle;
  };
  let shape = plan.poolShape;
  const feedback = take('feedback', plan.feedbackBytes);
  const readback = feedback === NO_RESERVATION ? NO_RESERVATION : take('readback', plan.readbackBytes);
  const pageTable = readback === NO_RESERVATION ? NO_RESERVATION : take('page-table', plan.pageTableBytes);
  const staging = pageTable === NO_RESERVATION ? NO_RESERVATION : take('staging', plan.stagingBytes);
  let pool = staging === NO_RESERVATION ? NO_RESERVATION : take('vt-pool', plan.poolBytes);
  if (staging !== NO_RESERVATION && pool === NO_RESERVATION) {
    shape = poolShapeFor(input, budget.freeBytes);
    if (poolSlotCount(shape) >= input.minPoolSlots) {
      pool = take('vt-pool', poolSlotCount(shape) * plan.slotBytes);
    }
  }
  if (pool === NO_RESERVATION) {
    for (const handle of taken) budget.release(handle);
    throw new TesseraConfigError(
      'budget-too-small',
      `budget has ${budget.freeBytes} bytes free; the virtual-texture minimum is ${plan.minimumBytes} bytes`,
    );
  }
  return {
    feedback,
    readback,
    pageTable,
    staging,
    pool,
    poolShape: shape,
    poolBytes: poolSlotCount(shape) * plan.slotBytes,
  };
}
