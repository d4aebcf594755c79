import type { IntrusiveList } from '../../src/core/structures/intrusive-list';
import { EVICTION_SAMPLE, LEFT_VIEW_FRAMES, MIP_RECENCY_BASE } from './eviction-tuning';
import type { ReturnPredictions } from './return-predictions';

/**
 * The {@link PhysicalPool}'s estimate of "frames until needed again" for idle pages with no
 * predicted return: mip-aware recency, `idleFrames / MIP_RECENCY_BASE^mip x density²`, where
 * density is the fraction of frames since its load the page was used (finer pages and pages
 * that stopped after steady use go first; flickering ones stay). Reads the pool's slot arrays.
 */
export class RecencyRanking {
  private readonly mipWeight = new Float64Array(16).map((_, m) => MIP_RECENCY_BASE ** -m);

  constructor(
    private readonly slotPages: Uint32Array,
    private readonly slotLastUse: Int32Array,
    private readonly slotLoadFrame: Int32Array,
    private readonly slotUseFrames: Int32Array,
  ) {}

  /**
   * Frames until `s` (chosen by recency) is expected back, to weigh against a predicted return: at
   * least how long it has been gone since it left the view (LRU's own estimate), so pages left
   * behind long ago go before pages that come and go in the current view; the mip-aware score
   * orders pages idle for a similar time.
   */
  staleness(s: number, frame: number): number {
    return Math.max(this.score(s, frame), frame - this.slotLastUse[s] - 2 * LEFT_VIEW_FRAMES);
  }

  /**
   * Best recency victim among the first {@link EVICTION_SAMPLE} unpredicted pages of `list`,
   * walking at most twice that many entries (pages with a prediction are skipped but counted, so
   * the walk stays O(1)); -1 when none is found.
   */
  sample(list: IntrusiveList, frame: number, predictions: ReturnPredictions): number {
    let best = -1;
    let bestScore = -1;
    let s = list.head;
    for (
      let k = 0, walked = 0;
      k < EVICTION_SAMPLE && walked < 2 * EVICTION_SAMPLE && s >= 0;
      s = list.next(s)
    ) {
      walked++;
      if (predictions.has(s)) continue;
      k++;
      const score = this.score(s, frame);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
  }

  private score(s: number, frame: number): number {
    const last = this.slotLastUse[s];
    const mip = (this.slotPages[s] >>> 24) & 0xf;
    const density = this.slotUseFrames[s] / (last - this.slotLoadFrame[s] + 1);
    return (frame - last) * this.mipWeight[mip] * density * density;
  }
}
