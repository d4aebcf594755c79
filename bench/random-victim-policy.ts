import type { ReplacementPolicy, SlotTableView } from '../src/core/vt/residency/replacement-policy';

/**
 * The cheapest victim choice that spreads over the pool: a uniformly random evictable slot from a
 * dense array (swap-remove, O(1) per hook, nothing learned). Not a product policy: the pool bench's
 * floor. Its victims land anywhere in the slot table, as those of every policy do on a real trace,
 * so its cost per eviction is what the pool's own bookkeeping of a cold slot costs at each size;
 * LRU's victims in that bench run through the slots in order, which the caches favour.
 */
export class RandomVictimPolicy implements ReplacementPolicy {
  readonly name = 'random';
  private readonly candidates: Int32Array;
  private readonly indexOf: Int32Array;
  private count = 0;
  /** xorshift32 state, fixed seed. */
  private random = 0x2545f491;

  constructor(table: SlotTableView) {
    this.candidates = new Int32Array(table.slotCount);
    this.indexOf = new Int32Array(table.slotCount).fill(-1);
  }

  inserted(): void {}

  referenced(): void {}

  evictable(slot: number): void {
    if (this.indexOf[slot] >= 0) return;
    this.indexOf[slot] = this.count;
    this.candidates[this.count++] = slot;
  }

  protect(slot: number): void {
    const i = this.indexOf[slot];
    if (i < 0) return;
    const moved = this.candidates[--this.count];
    this.candidates[i] = moved;
    this.indexOf[moved] = i;
    this.indexOf[slot] = -1;
  }

  removed(slot: number): void {
    this.protect(slot);
  }

  victim(): number {
    if (this.count === 0) return -1;
    let x = this.random;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.random = x;
    return this.candidates[(x >>> 1) % this.count];
  }
}
