/**
 * Binary max-heap over integer ids `0..capacity-1` with a `Float64Array` key per id. Supports
 * insert, remove and key change of any id in O(log n) through a position index; allocates nothing
 * after construction.
 */
export class IndexedMaxHeap {
  /** Number of ids in the heap. */
  size = 0;
  private readonly heap: Int32Array;
  private readonly pos: Int32Array;
  private readonly keys: Float64Array;

  constructor(capacity: number) {
    this.heap = new Int32Array(capacity);
    this.pos = new Int32Array(capacity).fill(-1);
    this.keys = new Float64Array(capacity);
  }

  /** True when `id` is in the heap. */
  has(id: number): boolean {
    return this.pos[id] >= 0;
  }

  /** Key of `id` (meaningful only while it is in the heap). */
  key(id: number): number {
    return this.keys[id];
  }

  /** Id with the largest key, or -1 when empty. */
  peek(): number {
    return this.size > 0 ? this.heap[0] : -1;
  }

  /** Inserts `id` with `key`, or changes its key when already present. */
  set(id: number, key: number): void {
    const p = this.pos[id];
    if (p >= 0) {
      const old = this.keys[id];
      this.keys[id] = key;
      if (key > old) this.up(p);
      else if (key < old) this.down(p);
      return;
    }
    this.keys[id] = key;
    const i = this.size++;
    this.heap[i] = id;
    this.pos[id] = i;
    this.up(i);
  }

  /** Removes and returns the id with the largest key, or -1 when empty. */
  pop(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0];
    this.removeAt(0);
    return top;
  }

  /** Removes `id` if present. */
  remove(id: number): void {
    const p = this.pos[id];
    if (p >= 0) this.removeAt(p);
  }

  /** Removes every id. */
  clear(): void {
    for (let i = 0; i < this.size; i++) this.pos[this.heap[i]] = -1;
    this.size = 0;
  }

  private removeAt(p: number): void {
    const id = this.heap[p];
    this.pos[id] = -1;
    const last = --this.size;
    if (p === last) return;
    const moved = this.heap[last];
    this.heap[p] = moved;
    this.pos[moved] = p;
    this.up(p);
    this.down(this.pos[moved]);
  }

  private up(i: number): void {
    const heap = this.heap;
    const keys = this.keys;
    const id = heap[i];
    const k = keys[id];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pid = heap[parent];
      if (keys[pid] >= k) break;
      heap[i] = pid;
      this.pos[pid] = i;
      i = parent;
    }
    heap[i] = id;
    this.pos[id] = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const keys = this.keys;
    const n = this.size;
    const id = heap[i];
    const k = keys[id];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && keys[heap[r]] > keys[heap[l]] ? r : l;
      if (keys[heap[c]] <= k) break;
      heap[i] = heap[c];
      this.pos[heap[i]] = i;
      i = c;
    }
    heap[i] = id;
    this.pos[id] = i;
  }
}
