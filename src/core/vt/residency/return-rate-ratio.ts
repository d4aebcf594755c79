import { LHD_DECAY } from './hit-density-table';

/**
 * How much more often evicted pages of one kind ("marked") come back than the others, learned
 * online from the stream: the ratio of two return rates, each `(returns + 1) / (evictions + 2)`
 * (Laplace's rule: a kind not yet seen has rate 1/2, so the ratio starts at 1), old events fading
 * by LHD's decay ({@link LHD_DECAY}) at each {@link update}, as the hit-density table's do.
 * `LhdPolicy` marks a page evicted while its parent page is in use and scales the hit density of
 * such candidates by this ratio. Four numbers; nothing allocated.
 */
export class ReturnRateRatio {
  private markedEvictions = 0;
  private otherEvictions = 0;
  private markedReturns = 0;
  private otherReturns = 0;
  /** Return rate of marked pages over that of the others (> 0; 1 until the first update). */
  ratio = 1;

  /** A page was evicted; `marked`: of the marked kind. */
  evicted(marked: boolean): void {
    if (marked) this.markedEvictions++;
    else {
      this.otherEvictions++;
    }
  }

  /** A page evicted as `marked` (or not) came back. */
  returned(marked: boolean): void {
    if (marked) this.markedReturns++;
    else {
      this.otherReturns++;
    }
  }

  /** Recomputes {@link ratio} from the counts, then fades the counts. */
  update(): void {
    const marked = (this.markedReturns + 1) / (this.markedEvictions + 2);
    const other = (this.otherReturns + 1) / (this.otherEvictions + 2);
    this.ratio = marked / other;
    this.markedEvictions *= LHD_DECAY;
    this.otherEvictions *= LHD_DECAY;
    this.markedReturns *= LHD_DECAY;
    this.otherReturns *= LHD_DECAY;
  }

  /** Takes over `other`'s counts and ratio. */
  copyFrom(other: ReturnRateRatio): void {
    this.markedEvictions = other.markedEvictions;
    this.otherEvictions = other.otherEvictions;
    this.markedReturns = other.markedReturns;
    this.otherReturns = other.otherReturns;
    this.ratio = other.ratio;
  }
}
