import { Vector2 } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { BudgetPriority } from '../core/budget/budget-priority';
import { NO_RESERVATION, type TextureBudget } from '../core/budget/texture-budget';
import { TesseraConfigError } from '../core/errors';
import { type PoolFormatChoice, slotBytesOfFormats } from '../core/vt/residency/pool-format';
import { type PoolShape, poolSlotCount } from '../core/vt/residency/pool-shape';
import {
  planVirtualTextureBudget,
  poolShapeFor,
  type VirtualTextureBudgetInput,
  type VirtualTextureBudgetPlan,
} from '../core/vt/vt-budget-plan';
import type { BackendBridge } from './backend-bridge';
import { feedbackSizeFor } from './feedback/feedback-collector';
import { MAX_READBACKS_IN_FLIGHT } from './feedback/feedback-readback';
import type { ResolvedSystemOptions } from './virtual-texture-system-options';

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
  // Page tables reserve exactly what they allocate, growing within plan.pageTableBytes (their share).
  const pageTable = readback === NO_RESERVATION ? NO_RESERVATION : take('page-table', 0);
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

/** A system's planned and reserved budget (see {@link planSystemReservations}). */
export interface SystemReservations {
  input: VirtualTextureBudgetInput;
  plan: VirtualTextureBudgetPlan;
  /** The shared budget, or the system's own runtime's (of the share). */
  budget: TextureBudget;
  reserved: VirtualTextureReservations;
  /** Initial feedback target size, in feedback pixels. */
  feedbackSize: Vector2;
}

/**
 * Plans a virtual-texture system's budget from its options and the renderer (drawing-buffer size,
 * texture limits) and the layers' chosen formats, and reserves it, before any GPU allocation.
 * @throws TesseraConfigError('invalid-option' | 'budget-too-small'), with nothing reserved.
 */
export function planSystemReservations(
  renderer: WebGPURenderer,
  bridge: BackendBridge,
  o: ResolvedSystemOptions,
  formats: readonly PoolFormatChoice[],
  ownBudget: TextureBudget,
): SystemReservations {
  const shared = o.sharedBudget;
  const poolTextureSize = Math.min(bridge.maxTextureSize, o.maxPoolTextureSize ?? bridge.maxTextureSize);
  if (poolTextureSize < o.tileSize) {
    throw new TesseraConfigError(
      'invalid-option',
      `maxPoolTextureSize ${poolTextureSize} is below the tile size ${o.tileSize}`,
    );
  }
  const drawing = renderer.getDrawingBufferSize(new Vector2());
  const feedbackSize = feedbackSizeFor(drawing.x, drawing.y, o.feedbackScale, drawing);
  const input: VirtualTextureBudgetInput = {
    shareBytes: o.shareBytes,
    capacityBytes: shared ? Math.min(o.shareBytes, shared.budgetBytes - shared.pinnedBytes) : o.shareBytes,
    tileSize: o.tileSize,
    layerCount: o.layers.length,
    slotBytes: slotBytesOfFormats(formats, o.tileSize),
    feedbackMode: bridge.isWebGPU ? o.feedbackMode : 'separate-pass',
    feedbackWidth: feedbackSize.x,
    feedbackHeight: feedbackSize.y,
    readbackRowAlignment: bridge.isWebGPU ? 256 : 1,
    readbacksInFlight: MAX_READBACKS_IN_FLIGHT,
    pageTableBytes: o.pageTableBytes,
    stagingBytes: o.stagingBytes,
    minPoolSlots: o.minPoolSlots,
    maxTextureSize: poolTextureSize,
    maxArrayLayers: bridge.maxArrayLayers,
  };
  const plan = planVirtualTextureBudget(input);
  const budget = shared ?? ownBudget;
  const reserved = reserveVirtualTextureBudget(budget, plan, input);
  return { input, plan, budget, reserved, feedbackSize };
}
