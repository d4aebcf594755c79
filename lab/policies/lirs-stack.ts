import { IntrusiveList } from '../../src/core/structures/intrusive-list';
import { PageIndexMap } from '../../src/core/structures/page-index-map';
import { NO_REQUEST } from '../../src/core/vt/page-id';

/**
 * LIRS's recency stack S (Jiang & Zhang, SIGMETRICS 2002) over a pool's slots and a bounded set of
 * non-resident entries ("ghosts"). Node ids `0..slots-1` are the slots themselves; ids
 * `slots..slots+ghosts-1` are ghosts, each remembering one evicted page id. The top of S is the
 * most recently used entry, the bottom the least recently used one. Links live in typed arrays:
 * every operation is O(1) and allocates nothing.
 *
 * Ghost count is bounded (the paper bounds S's non-resident entries too): when every ghost is in
 * use, the one that became a ghost longest ago is dropped.
 */
export class LirsStack {
  /** Bottom of S (least recently used), or -1 when empty. */
  bottom = -1;
  private top = -1;
  /** Towards the bottom. */
  private readonly below: Int32Array;
  /** Towards the top. */
  private readonly above: Int32Array;
  private readonly inStack: Uint8Array;
  private readonly slots: number;
  private readonly ghostPage: Uint32Array;
  private readonly ghostByPage: PageIndexMap;
  /** Ghost node ids (minus `slots`) in the order they became ghosts. */
  private readonly ghostAge: IntrusiveList;
  private readonly unusedGhosts: IntrusiveList;

  /** S for `slots` slots with room for `ghosts` non-resident entries (at least 1). */
  constructor(slots: number, ghosts: number) {
    const nodes = slots + ghosts;
    this.slots = slots;
    this.below = new Int32Array(nodes).fill(-1);
    this.above = new Int32Array(nodes).fill(-1);
    this.inStack = new Uint8Array(nodes);
    this.ghostPage = new Uint32Array(ghosts).fill(NO_REQUEST);
    this.ghostByPage = new PageIndexMap(ghosts);
    this.ghostAge = new IntrusiveList(ghosts);
    this.unusedGhosts = new IntrusiveList(ghosts);
    for (let g = 0; g < ghosts; g++) this.unusedGhosts.pushBack(g);
  }

  /** Non-resident entries in S. */
  get ghostCount(): number {
    return this.ghostAge.size;
  }

  /** True when node `node` (a slot or a ghost) is in S. */
  has(node: number): boolean {
    return this.inStack[node] === 1;
  }

  /** True when `node` is a ghost (a non-resident entry), false for a slot. */
  isGhost(node: number): boolean {
    return node >= this.slots;
  }

  /** Ghost node of `pageId`, or -1 when S holds no non-resident entry for it. */
  ghostOf(pageId: number): number {
    const g = this.ghostByPage.get(pageId);
    return g < 0 ? -1 : this.slots + g;
  }

  /** Moves (or pushes) `node` to the top of S. */
  moveToTop(node: number): void {
    if (this.top === node) return;
    this.remove(node);
    this.inStack[node] = 1;
    this.below[node] = this.top;
    this.above[node] = -1;
    if (this.top >= 0) this.above[this.top] = node;
    else this.bottom = node;
    this.top = node;
  }

  /** Takes `node` out of S (a ghost node is freed, forgetting its page). No-op if absent. */
  remove(node: number): void {
    if (this.inStack[node] === 0) return;
    const b = this.below[node];
    const a = this.above[node];
    if (b >= 0) this.above[b] = a;
    else this.bottom = a;
    if (a >= 0) this.below[a] = b;
    else this.top = b;
    this.below[node] = -1;
    this.above[node] = -1;
    this.inStack[node] = 0;
    if (node >= this.slots) this.freeGhost(node - this.slots);
  }

  /**
   * Slot `slot` (in S) lost its page `pageId`: a ghost takes its place in S, so the page keeps its
   * recency. Drops the oldest ghost first when all are in use.
   */
  leaveGhost(slot: number, pageId: number): void {
    let g = this.unusedGhosts.popFront();
    if (g < 0) {
      this.remove(this.slots + this.ghostAge.head);
      g = this.unusedGhosts.popFront();
    }
    this.ghostPage[g] = pageId;
    this.ghostByPage.set(pageId, g);
    this.ghostAge.pushBack(g);
    this.replace(slot, this.slots + g);
  }

  /** The ghost `ghost` came back into slot `slot`: the slot takes the ghost's place in S. */
  revive(ghost: number, slot: number): void {
    this.replace(ghost, slot);
    this.freeGhost(ghost - this.slots);
  }

  /** Puts `to` (not in S) at `from`'s position in S and takes `from` out (without freeing it). */
  private replace(from: number, to: number): void {
    const b = this.below[from];
    const a = this.above[from];
    this.below[to] = b;
    this.above[to] = a;
    this.inStack[to] = 1;
    if (b >= 0) this.above[b] = to;
    else this.bottom = to;
    if (a >= 0) this.below[a] = to;
    else this.top = to;
    this.below[from] = -1;
    this.above[from] = -1;
    this.inStack[from] = 0;
  }

  private freeGhost(g: number): void {
    const page = this.ghostPage[g];
    if (page === NO_REQUEST) return;
    this.ghostByPage.delete(page);
    this.ghostPage[g] = NO_REQUEST;
    this.ghostAge.remove(g);
    this.unusedGhosts.pushBack(g);
  }
}
