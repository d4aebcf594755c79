import { TesseraConfigError } from '../../errors';
import { MAX_SLOTS } from '../page-table/page-table-entry';
import type { ReplacementPolicyFactory, ReplacementPolicyName } from './replacement-policy';

/** Options of a {@link PhysicalPool}: either `slotCount`, or `budgetBytes` with the tile format. */
export interface PhysicalPoolOptions {
  /** Number of slots (1..65536). Takes precedence over `budgetBytes`. */
  slotCount?: number;
  /** Byte budget of the pool texture(s), all layers together, in bytes. */
  budgetBytes?: number;
  /** Tile side including border, in texels. Default 128. */
  tileSize?: number;
  /** Bytes per texel of the pool format (4 for rgba8). Default 4. */
  bytesPerTexel?: number;
  /** Layers stored per slot (a slot holds the same page in every layer). Default 1. */
  layers?: number;
  /**
   * Which idle page is evicted: `lhd` (default: least hit density, learned online), `lru` (the
   * plain baseline), or a factory for a custom policy.
   */
  replacementPolicy?: ReplacementPolicyName | ReplacementPolicyFactory;
}

/**
 * Slots that fit `budgetBytes` at the given tile format, capped at 65536. Throws
 * {@link TesseraConfigError} `budget-too-small` when not even one tile fits.
 */
export function slotCountForBudget(options: PhysicalPoolOptions): number {
  const { budgetBytes } = options;
  const tileSize = options.tileSize ?? 128;
  const bpt = options.bytesPerTexel ?? 4;
  const layers = options.layers ?? 1;
  if (budgetBytes === undefined || !(budgetBytes >= 0)) {
    throw new TesseraConfigError(
      'invalid-option',
      'PhysicalPool needs slotCount or a non-negative budgetBytes',
    );
  }
  if (!(tileSize > 0 && bpt > 0 && layers > 0)) {
    throw new TesseraConfigError('invalid-tile', 'tileSize, bytesPerTexel and layers must be positive');
  }
  const slots = Math.floor(budgetBytes / (tileSize * tileSize * bpt * layers));
  if (slots < 1) {
    throw new TesseraConfigError('budget-too-small', `budget of ${budgetBytes} bytes holds no tile`);
  }
  return Math.min(slots, MAX_SLOTS);
}
