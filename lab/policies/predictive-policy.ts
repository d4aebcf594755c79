import { IndexedMinHeap } from '../../src/core/structures/indexed-heap';
import { IntrusiveList } from '../../src/core/structures/intrusive-list';
import type { ReplacementPolicy, SlotTableView } from '../../src/core/vt/residency/replacement-policy';
import { RecencyRanking } from './recency-ranking';
import { ReturnPredictions } from './return-predictions';
import { ReuseHistory } from './reuse-history';

/**
 * The tuned predictor (`policy: 'predictive'`): an online estimate of Belady's "evict the page
 * needed furthest in the future" from each page's own reuse gaps and flicker, O(log n) per
 * eviction. Seven constants in `eviction-tuning.ts`, tuned on the three benchmark paths. An
 * option, no longer the default: on the held-out paths its worst ratio to Belady is 1.32 (`lhd`
 * 1.28) and on the tuning paths it loses to LRU by up to 6%; it earns its place on long loops in a
 * roomy pool (held-out lookaround 1.09, orbit_wide 1.18, against `lhd` 1.27 and 1.28), where its
 * per-page gaps predict returns a learned distribution cannot (`lab/replacement-policies.md`).
 * - each page remembers its last two long absences ("reuse gaps", > `LEFT_VIEW_FRAMES`) and its
 *   longest short one ("flicker"), also across evictions through a 4-way ghost table;
 * - an idle page is "departed" once idle for longer than its own longest flicker + 1 frame; a
 *   min-heap keyed by that frame moves pages there in O(log n);
 * - a departed page with a known gap is predicted back at `lastUse + gap` and sits in a max-heap
 *   by that frame (on loops the page that just left is needed last, which LRU gets wrong); one
 *   with no known gap is predicted back `NEW_DEPARTURE_FRAMES` after its last use;
 * - overdue predictions are kept until every prediction is overdue or the page has been idle for
 *   `PREDICTION_EXPIRY_GAPS` typical reuse gaps;
 * - other idle pages are ranked by mip-aware recency over a bounded sample (`EVICTION_SAMPLE`);
 * - the victim is whichever estimate of "frames until needed again" is larger.
 * Tuning history (weak spots, what was tried without gain): see `eviction-tuning.ts`.
 */
export class PredictivePolicy implements ReplacementPolicy {
  readonly name = 'predictive';
  private readonly table: SlotTableView;
  private readonly idleOrder: IntrusiveList;
  private readonly idleOld: IntrusiveList;
  /** Idle slots by the frame they count as departed (see {@link ReuseHistory.departureFrame}). */
  private readonly byDeparture: IndexedMinHeap;
  private readonly predictions: ReturnPredictions;
  private readonly history: ReuseHistory;
  private readonly recency: RecencyRanking;

  constructor(table: SlotTableView) {
    const count = table.slotCount;
    this.table = table;
    this.idleOrder = new IntrusiveList(count);
    this.idleOld = new IntrusiveList(count);
    this.byDeparture = new IndexedMinHeap(count);
    this.predictions = new ReturnPredictions(count);
    this.history = new ReuseHistory(count);
    this.recency = new RecencyRanking(
      table.slotPages,
      table.slotLastUse,
      table.slotLoadFrame,
      table.slotUseFrames,
    );
  }

  inserted(slot: number, pageId: number, frame: number): void {
    this.history.recall(slot, pageId, frame);
  }

  referenced(slot: number, frame: number, lastUse: number): void {
    this.history.noteAbsence(slot, frame - lastUse);
  }

  evictable(slot: number, lastUse: number): void {
    this.idleOrder.pushBack(slot);
    this.byDeparture.set(slot, this.history.departureFrame(slot, lastUse));
  }

  protect(slot: number): void {
    this.idleOrder.remove(slot);
    this.idleOld.remove(slot);
    this.predictions.drop(slot);
    this.byDeparture.delete(slot);
  }

  removed(slot: number, pageId: number, lastUse: number): void {
    this.protect(slot);
    this.history.remember(slot, pageId, lastUse);
  }

  victim(frame: number): number {
    const young = this.idleOrder;
    const old = this.idleOld;
    const predictions = this.predictions;
    const lastUse = this.table.slotLastUse;
    // Pages idle for longer than they ever flickered have left the view: predict their return.
    const departing = this.byDeparture;
    while (departing.size > 0 && departing.peekKey() <= frame) {
      const s = departing.pop();
      young.remove(s);
      old.pushBack(s);
      const returnFrame = lastUse[s] + this.history.expectedGap(s);
      if (returnFrame > frame) predictions.predict(s, lastUse[s], returnFrame);
    }
    predictions.expire(frame, this.history.typicalGap);
    let best = this.recency.sample(old, frame, predictions);
    if (best < 0) best = this.recency.sample(young, frame, predictions);
    const top = predictions.latest();
    if (
      top >= 0 &&
      (best < 0 || predictions.returnFrame(top) - frame > this.recency.staleness(best, frame))
    ) {
      return top;
    }
    return best;
  }
}
