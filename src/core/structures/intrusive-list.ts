/** `prev` link of an id that is in no list. */
const NOT_LISTED = -2;

/**
 * Doubly linked list over integer ids `0..capacity-1`, links stored in typed arrays: O(1) push,
 * remove and pop without allocation. An id is in at most one position of one list instance.
 *
 * Both links of an id sit side by side in one array (`prev` at `2id`, `next` at `2id + 1`, and
 * `prev` = -2 marks an id not in the list), so an operation on a large list touches one cache line
 * per id instead of three: the pool's lists hold up to 65536 slots.
 */
export class IntrusiveList {
  /** First id (oldest pushed), or -1. */
  head = -1;
  /** Last id (newest pushed), or -1. */
  tail = -1;
  /** Number of ids in the list. */
  size = 0;
  private readonly links: Int32Array;

  constructor(capacity: number) {
    this.links = new Int32Array(2 * capacity).fill(NOT_LISTED);
  }

  /** True when `id` is in the list. */
  has(id: number): boolean {
    return this.links[2 * id] !== NOT_LISTED;
  }

  /** Id after `id`, or -1. */
  next(id: number): number {
    return this.links[2 * id] === NOT_LISTED ? -1 : this.links[2 * id + 1];
  }

  /** Appends `id` at the tail (moves it there if already present). */
  pushBack(id: number): void {
    const links = this.links;
    if (links[2 * id] !== NOT_LISTED) this.remove(id);
    links[2 * id] = this.tail;
    links[2 * id + 1] = -1;
    if (this.tail >= 0) links[2 * this.tail + 1] = id;
    else {
      this.head = id;
    }
    this.tail = id;
    this.size++;
  }

  /** Inserts `id` at the head (moves it there if already present). */
  pushFront(id: number): void {
    const links = this.links;
    if (links[2 * id] !== NOT_LISTED) this.remove(id);
    links[2 * id] = -1;
    links[2 * id + 1] = this.head;
    if (this.head >= 0) links[2 * this.head] = id;
    else {
      this.tail = id;
    }
    this.head = id;
    this.size++;
  }

  /** Removes `id` if present. */
  remove(id: number): void {
    const links = this.links;
    const p = links[2 * id];
    if (p === NOT_LISTED) return;
    const n = links[2 * id + 1];
    if (p >= 0) links[2 * p + 1] = n;
    else {
      this.head = n;
    }
    if (n >= 0) links[2 * n] = p;
    else {
      this.tail = p;
    }
    links[2 * id] = NOT_LISTED;
    links[2 * id + 1] = -1;
    this.size--;
  }

  /** Removes and returns the head, or -1 when empty. */
  popFront(): number {
    const h = this.head;
    if (h >= 0) this.remove(h);
    return h;
  }

  /** Removes every id. */
  clear(): void {
    while (this.head >= 0) this.remove(this.head);
  }
}
