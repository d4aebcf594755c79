/**
 * Doubly linked list over integer ids `0..capacity-1`, links stored in typed arrays: O(1) push,
 * remove and pop without allocation. An id is in at most one position of one list instance.
 */
export class IntrusiveList {
  /** First id (oldest pushed), or -1. */
  head = -1;
  /** Last id (newest pushed), or -1. */
  tail = -1;
  /** Number of ids in the list. */
  size = 0;
  private readonly prev: Int32Array;
  private readonly nextLinks: Int32Array;
  private readonly member: Uint8Array;

  constructor(capacity: number) {
    this.prev = new Int32Array(capacity).fill(-1);
    this.nextLinks = new Int32Array(capacity).fill(-1);
    this.member = new Uint8Array(capacity);
  }

  /** True when `id` is in the list. */
  has(id: number): boolean {
    return this.member[id] === 1;
  }

  /** Id after `id`, or -1. */
  next(id: number): number {
    return this.nextLinks[id];
  }

  /** Appends `id` at the tail (moves it there if already present). */
  pushBack(id: number): void {
    if (this.member[id] === 1) this.remove(id);
    this.member[id] = 1;
    this.prev[id] = this.tail;
    this.nextLinks[id] = -1;
    if (this.tail >= 0) this.nextLinks[this.tail] = id;
    else this.head = id;
    this.tail = id;
    this.size++;
  }

  /** Inserts `id` at the head (moves it there if already present). */
  pushFront(id: number): void {
    if (this.member[id] === 1) this.remove(id);
    this.member[id] = 1;
    this.prev[id] = -1;
    this.nextLinks[id] = this.head;
    if (this.head >= 0) this.prev[this.head] = id;
    else this.tail = id;
    this.head = id;
    this.size++;
  }

  /** Removes `id` if present. */
  remove(id: number): void {
    if (this.member[id] !== 1) return;
    const p = this.prev[id];
    const n = this.nextLinks[id];
    if (p >= 0) this.nextLinks[p] = n;
    else this.head = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail = p;
    this.prev[id] = -1;
    this.nextLinks[id] = -1;
    this.member[id] = 0;
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
