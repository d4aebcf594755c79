/**
 * A binary min-heap of integer ids (0 .. capacity-1) keyed by a number, with O(log n) insert,
 * remove and re-key by id (positions kept in a typed array). Allocation-free except when an id at
 * or past the capacity arrives (the arrays then double). {@link IndexedMaxHeap} is the same heap
 * ordered the other way.
 */
export class IndexedMinHeap {
  /** Ids in heap order. */
  private heap: Int32Array;
  /** Position of each id in `heap`, or -1 when absent. */
  private positions: Int32Array;
  /**
   * Key of each id, indexed by id: sifting then moves only ids and positions, not keys too.
   */
  private keys: Float64Array;
  private length = 0;

  /** @param capacity ids expected (0 .. capacity-1); larger ids grow the heap. */
  constructor(capacity = 64) {
    const size = Math.max(1, capacity);
    this.heap = new Int32Array(size);
    this.positions = new Int32Array(size).fill(-1);
    this.keys = new Float64Array(size);
  }

  /** Number of ids in the heap. */
  get size(): number {
    return this.length;
  }

  /** True when `id` is in the heap. */
  has(id: number): boolean {
    return id < this.positions.length && this.positions[id] >= 0;
  }

  /** Key of `id`; meaningful only while {@link has}(`id`). */
  key(id: number): number {
    return this.keys[id];
  }

  /** The id with the smallest key, or -1 when empty. */
  peek(): number {
    return this.length > 0 ? this.heap[0] : -1;
  }

  /** Key of the smallest entry; meaningful only when {@link size} > 0. */
  peekKey(): number {
    return this.keys[this.heap[0]];
  }

  /** Insert `id` with `key`, or re-key it when already present. */
  set(id: number, key: number): void {
    if (id >= this.positions.length) this.growTo(id + 1);
    const at = this.positions[id];
    if (at >= 0) {
      const old = this.keys[id];
      this.keys[id] = key;
      if (key < old) this.up(at);
      else {
        this.down(at);
      }
      return;
    }
    this.keys[id] = key;
    const end = this.length++;
    this.heap[end] = id;
    this.positions[id] = end;
    this.up(end);
  }

  /** Remove and return the id with the smallest key (-1 when empty). */
  pop(): number {
    if (this.length === 0) return -1;
    const top = this.heap[0];
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
    for (let i = 0; i < this.length; i++) this.positions[this.heap[i]] = -1;
    this.length = 0;
  }

  private removeAt(at: number): void {
    const id = this.heap[at];
    this.positions[id] = -1;
    const last = --this.length;
    if (at === last) return;
    const moved = this.heap[last];
    this.heap[at] = moved;
    this.positions[moved] = at;
    this.up(at);
    this.down(this.positions[moved]);
  }

  private up(at: number): void {
    const heap = this.heap;
    const positions = this.positions;
    const keys = this.keys;
    const id = heap[at];
    const key = keys[id];
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const parentId = heap[parent];
      if (keys[parentId] <= key) break;
      heap[at] = parentId;
      positions[parentId] = at;
      at = parent;
    }
    heap[at] = id;
    positions[id] = at;
  }

  private down(at: number): void {
    const heap = this.heap;
    const positions = this.positions;
    const keys = this.keys;
    const n = this.length;
    const id = heap[at];
    const key = keys[id];
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && keys[heap[child + 1]] < keys[heap[child]]) child++;
      const childId = heap[child];
      if (keys[childId] >= key) break;
      heap[at] = childId;
      positions[childId] = at;
      at = child;
    }
    heap[at] = id;
    positions[id] = at;
  }

  private growTo(capacity: number): void {
    const size = Math.max(capacity, this.positions.length * 2);
    const heap = new Int32Array(size);
    heap.set(this.heap);
    const positions = new Int32Array(size).fill(-1);
    positions.set(this.positions);
    const keys = new Float64Array(size);
    keys.set(this.keys);
    this.heap = heap;
    this.positions = positions;
    this.keys = keys;
  }
}

/**
 * {@link IndexedMinHeap} ordered largest key first: it stores negated keys in a private min-heap
 * (composition, not a subclass, so the sift loops only ever see one object shape and stay
 * monomorphic). Same complexity and allocation behaviour.
 */
export class IndexedMaxHeap {
  private readonly min: IndexedMinHeap;

  /** @param capacity ids expected (0 .. capacity-1); larger ids grow the heap. */
  constructor(capacity = 64) {
    this.min = new IndexedMinHeap(capacity);
  }

  /** Number of ids in the heap. */
  get size(): number {
    return this.min.size;
  }

  /** True when `id` is in the heap. */
  has(id: number): boolean {
    return this.min.has(id);
  }

  /** Key of `id`; meaningful only while {@link has}(`id`). */
  key(id: number): number {
    return -this.min.key(id);
  }

  /** The id with the largest key, or -1 when empty. */
  peek(): number {
    return this.min.peek();
  }

  /** Key of the largest entry; meaningful only when {@link size} > 0. */
  peekKey(): number {
    return -this.min.peekKey();
  }

  /** Insert `id` with `key`, or re-key it when already present. */
  set(id: number, key: number): void {
    this.min.set(id, -key);
  }

  /** Remove and return the id with the largest key (-1 when empty). */
  pop(): number {
    return this.min.pop();
  }

  /** Remove `id` if present. */
  delete(id: number): void {
    this.min.delete(id);
  }

  /** Remove everything. */
  clear(): void {
    this.min.clear();
  }
}
