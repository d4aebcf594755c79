import { TesseraConfigError } from '../../errors';
import { TablePressure } from './page-table-pressure';

/** Options of a {@link MipBiasController}; every rate is per frame. */
export interface MipBiasOptions {
  /** Occupancy (requested pages / available slots) above which the bias rises. Default 0.95. */
  raiseAbove?: number;
  /** Occupancy below which the bias falls (hysteresis band between the two). Default 0.75. */
  lowerBelow?: number;
  /** Gain: bias change per frame per unit of occupancy outside the band. Default 0.2 (Unreal). */
  gain?: number;
  /** Largest bias change in one frame, in mips. Default 0.25. */
  maxStep?: number;
  /** Largest bias, in mips. Default 4. */
  maxBias?: number;
}

/**
 * Global mip bias against oversubscription: when the pages requested in a frame exceed what the
 * pool can hold, the bias rises (`bias += gain x (occupancy - raiseAbove)`, as Unreal's residency
 * bias does) so the feedback pass requests coarser pages and resolution drops instead of the pool
 * thrashing; it falls once occupancy is back under `lowerBelow`. Between the two nothing moves, so
 * the bias does not oscillate. Clamped to [0, maxBias] mips. A page table out of blocks within its
 * budget pushes it up too (see `PageTablePressure`).
 */
export class MipBiasController {
  /** Current bias in mips (>= 0): add it to the mip the feedback pass computes. */
  bias = 0;
  /** Occupancy seen by the latest {@link update}. */
  occupancy = 0;
  private readonly raiseAbove: number;
  private readonly lowerBelow: number;
  private readonly gain: number;
  private readonly maxStep: number;
  private readonly maxBias: number;

  constructor(options: MipBiasOptions = {}) {
    this.raiseAbove = options.raiseAbove ?? 0.95;
    this.lowerBelow = options.lowerBelow ?? 0.75;
    this.gain = options.gain ?? 0.2;
    this.maxStep = options.maxStep ?? 0.25;
    this.maxBias = options.maxBias ?? 4;
    if (!(this.lowerBelow > 0 && this.lowerBelow <= this.raiseAbove)) {
      throw new TesseraConfigError('invalid-option', 'mip bias needs 0 < lowerBelow <= raiseAbove');
    }
    if (!(this.gain > 0 && this.maxStep > 0 && this.maxBias >= 0)) {
      throw new TesseraConfigError('invalid-option', 'mip bias gain, maxStep must be > 0 and maxBias >= 0');
    }
  }

  /**
   * Feeds one frame: `requestedPages` distinct pages the frame needs, `capacityPages` slots available
   * to them (pool slots minus pinned ones), and the page tables' `pressure` (a refused map raises
   * the bias by `maxStep`; a recent one keeps it from falling). Returns the new bias in mips.
   */
  update(
    requestedPages: number,
    capacityPages: number,
    pressure: TablePressure = TablePressure.None,
  ): number {
    const occupancy = capacityPages > 0 ? requestedPages / capacityPages : Number.POSITIVE_INFINITY;
    this.occupancy = occupancy;
    let step = 0;
    if (occupancy > this.raiseAbove) step = this.gain * (occupancy - this.raiseAbove);
    else if (occupancy < this.lowerBelow) step = -this.gain * (this.lowerBelow - occupancy);
    if (pressure === TablePressure.Raise) step = this.maxStep;
    else if (pressure === TablePressure.Hold && step < 0) step = 0;
    if (step > this.maxStep) step = this.maxStep;
    if (step < -this.maxStep) step = -this.maxStep;
    let bias = this.bias + step;
    if (bias < 0) bias = 0;
    if (bias > this.maxBias) bias = this.maxBias;
    this.bias = bias;
    return bias;
  }

  /** Returns the bias to 0. */
  reset(): void {
    this.bias = 0;
    this.occupancy = 0;
  }
}
