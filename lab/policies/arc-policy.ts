import { IntrusiveList } from '../../src/core/structures/intrusive-list';
import { VISIT_GAP_FRAMES } from '../../src/core/vt/residency/lhd-policy';
import type { ReplacementPolicy, SlotTableView } from '../../src/core/vt/residency/replacement-policy';
import { ArcGhosts } from './arc-ghosts';

const T1 = 1;
const T2 = 2;

/**
 * ARC (Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST 2003) adapted
 * to frames. A "reference" is a visit: the first use of a page after an absence of more than
 * {@link VISIT_GAP_FRAMES} (a page in view is used every frame; counting each frame would make
 * every page "frequent" after two frames). T1 holds pages seen in one visit since they were
 * loaded, T2 pages seen in two or more; B1/B2 remember pages evicted from each. A miss that hits
 * B1 means T1 was too small: the target size `p` of T1 grows by max(1, |B2|/|B1|); a B2 hit
 * shrinks it by max(1, |B1|/|B2|), and the page enters T2. The victim is the least recently used
 * evictable page of T1 while |T1| > p, else of T2 (recency in frames, as LRU). No tuned constant:
 * the only one is the jitter cycle. O(1) per hook.
 */
export class ArcPolicy implements ReplacementPolicy {
  readonly name = 'arc';
  private readonly capacity: number;
  private readonly list: Uint8Array;
  private readonly idleT1: IntrusiveList;
  private readonly idleT2: IntrusiveList;
  private readonly ghosts: ArcGhosts;
  private t1Size = 0;
  private t2Size = 0;
  /** Target size of T1, in pages (0..capacity). */
  private target = 0;

  constructor(table: SlotTableView) {
    const c = table.slotCount;
    this.capacity = c;
    this.list = new Uint8Array(c);
    this.idleT1 = new IntrusiveList(c);
    this.idleT2 = new IntrusiveList(c);
    this.ghosts = new ArcGhosts(2 * c);
  }

  /** Target size of T1 (pages seen in one visit), in pages: ARC's adaptive parameter `p`. */
  get recentTarget(): number {
    return this.target;
  }

  inserted(slot: number, pageId: number): void {
    const ghosts = this.ghosts;
    const hit = ghosts.find(pageId);
    const b1 = ghosts.recentSize;
    const b2 = ghosts.frequentSize;
    if (hit === ArcGhosts.RECENT) {
      this.target = Math.min(this.capacity, this.target + Math.max(1, b2 / b1));
    } else if (hit === ArcGhosts.FREQUENT) {
      this.target = Math.max(0, this.target - Math.max(1, b1 / b2));
    }
    if (hit !== 0) ghosts.forget(pageId);
    this.list[slot] = hit === 0 ? T1 : T2;
    if (hit === 0) this.t1Size++;
    else this.t2Size++;
    this.trim();
  }

  referenced(slot: number, frame: number, lastUse: number): void {
    if (this.list[slot] === T1 && frame - lastUse > VISIT_GAP_FRAMES) {
      this.list[slot] = T2;
      this.t1Size--;
      this.t2Size++;
    }
  }

  evictable(slot: number): void {
    (this.list[slot] === T1 ? this.idleT1 : this.idleT2).pushBack(slot);
  }

  protect(slot: number): void {
    this.idleT1.remove(slot);
    this.idleT2.remove(slot);
  }

  removed(slot: number, pageId: number, _lastUse: number, evicted: boolean): void {
    this.protect(slot);
    const recent = this.list[slot] === T1;
    if (recent) this.t1Size--;
    else this.t2Size--;
    this.list[slot] = 0;
    if (evicted) this.ghosts.add(pageId, recent ? ArcGhosts.RECENT : ArcGhosts.FREQUENT);
    this.trim();
  }

  victim(): number {
    const t1 = this.idleT1;
    const t2 = this.idleT2;
    if (t1.size > 0 && (this.t1Size > this.target || t2.size === 0)) return t1.head;
    return t2.head;
  }

  /** ARC's directory bounds: |T1| + |B1| <= c and |T1| + |T2| + |B1| + |B2| <= 2c. */
  private trim(): void {
    const g = this.ghosts;
    const c = this.capacity;
    while (g.recentSize > 0 && this.t1Size + g.recentSize > c) g.dropOldest(ArcGhosts.RECENT);
    while (g.frequentSize > 0 && this.t1Size + this.t2Size + g.recentSize + g.frequentSize > 2 * c) {
      g.dropOldest(ArcGhosts.FREQUENT);
    }
  }
}
