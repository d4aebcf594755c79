import { IntrusiveList } from '../../structures/intrusive-list';
import type { ReplacementPolicy, SlotTableView } from './replacement-policy';

/**
 * Least recently used, in frames: the evictable page last used longest ago goes first. The pool
 * offers slots in the order they stop being used (frame by frame), so a list is enough: O(1) per
 * hook, no constant at all. The baseline every other policy is compared with.
 */
export class LruPolicy implements ReplacementPolicy {
  /** {@inheritDoc ReplacementPolicy.name} */
  readonly name = 'lru';
  private readonly order: IntrusiveList;

  constructor(table: SlotTableView) {
    this.order = new IntrusiveList(table.slotCount);
  }

  /** {@inheritDoc ReplacementPolicy.inserted} */
  inserted(): void {}

  /** {@inheritDoc ReplacementPolicy.referenced} */
  referenced(): void {}

  /** {@inheritDoc ReplacementPolicy.evictable} */
  evictable(slot: number): void {
    this.order.pushBack(slot);
  }

  /** {@inheritDoc ReplacementPolicy.protect} */
  protect(slot: number): void {
    this.order.remove(slot);
  }

  /** {@inheritDoc ReplacementPolicy.removed} */
  removed(slot: number): void {
    this.order.remove(slot);
  }

  /** {@inheritDoc ReplacementPolicy.victim} */
  victim(): number {
    return this.order.head;
  }
}
