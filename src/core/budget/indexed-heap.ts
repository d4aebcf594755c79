/**
 * A binary min-heap of integer ids (0 .. capacity-1) keyed by a number, with O(log n) insert,
 * remove and re-key by id (positions kept in a typed array). Allocation-free except when it grows.
 * For a max-heap, push negated keys.
 */
export class IndexedMinHeap {
  private ids: Int32Array;
  private keys: Float64Array;
  /** Position of each id in `ids`, or -1 when absent. */
  private positions: Int32Array;
  private length = 0;

  constructor(capacity = 64) {
    this.ids = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
    this.positions = new Int32Array(capacity).fill(-1);
  }

  /** Number of ids in the heap. */
  get size(): number {
    return this.length;
  }

  /** True when `id` is in the heap. */
  has(id: number): boolean {
    return id < this.positions.length && this.positions[id] >= 0;
  }

  /** The id with the smallest key; undefined behaviour when empty (check {@link size}). */
  peek(): number {
    return this.ids[0];
  }

  /** Key of the smallest entry. */
  peekKey(): number {
    return this.keys[0];
  }

  /** Insert `id` with `key`, or re-key it when already present. */
  set(id: number, key: number): void {
    if (id >= this.positions.length) this.growTo(id + 1);
    const at = this.positions[id];
    if (at >= 0) {
      const old = this.keys[at];
      this.keys[at] = key;
      if (key < old) this.up(at);
      else this.down(at);
      return;
    }
    const end = this.length++;
    this.ids[end] = id;
    this.keys[end] = key;
    this.positions[id] = end;
    this.up(end);
  }

  /** Remove and return the id with the smallest key (-1 when empty). */
  pop(): number {
    if (this.length === 0) return -1;
    const top = this.ids[0];
    this.removeAt(0);
    return top;
  }

  /** Remove `id` if present. */
  delete(id: number): void {
    if (!this.has(id)) return;
    this.removeAt(this.positions[id]);
  }

  /** Remove everything. */
  clear(): void {
    for (let i = 0; i < this.length; i++) this.positions[this.ids[i]] = -1;
    this.length = 0;
  }

  private removeAt(at: number): void {
    const id = this.ids[at];
    this.positions[id] = -1;
    const last = --this.length;
    if (at === last) return;
    this.ids[at] = this.ids[last];
    this.keys[at] = this.keys[last];
    const moved = this.ids[at];
    this.positions[moved] = at;
    this.up(at);
    this.down(this.positions[moved]);
  }

  private up(at: number): void {
    const ids = this.ids;
    const keys = this.keys;
    const id = ids[at];
    const key = keys[at];
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (keys[parent] <= key) break;
      ids[at] = ids[parent];
      keys[at] = keys[parent];
      this.positions[ids[at]] = at;
      at = parent;
    }
    ids[at] = id;
    keys[at] = key;
    this.positions[id] = at;
  }

  private down(at: number): void {
    const ids = this.ids;
    const keys = this.keys;
    const id = ids[at];
    const key = keys[at];
    const n = this.length;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && keys[child + 1] < keys[child]) child++;
      if (keys[child] >= key) break;
      ids[at] = ids[child];
      keys[at] = keys[child];
      this.positions[ids[at]] = at;
      at = child;
    }
    ids[at] = id;
    keys[at] = key;
    this.positions[id] = at;
  }

  private growTo(capacity: number): void {
    const size = Math.max(capacity, this.positions.length * 2);
    const ids = new Int32Array(size);
    ids.set(this.ids);
    const keys = new Float64Array(size);
    keys.set(this.keys);
    const positions = new Int32Array(size).fill(-1);
    positions.set(this.positions);
    this.ids = ids;
    this.keys = keys;
    this.positions = positions;
  }
}
