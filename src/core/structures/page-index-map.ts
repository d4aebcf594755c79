import { NO_REQUEST } from '../vt/page-id';

function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p <<= 1;
  return p;
}

/**
 * Open-addressing hash map from page id (uint32) to a non-negative int32 (a slot or record index),
 * with linear probing and backward-shift deletion (no tombstones, so it never degrades). Keys are
 * integers, never strings; allocates nothing after construction. Holds at most `capacity` keys.
 *
 * Each key sits next to its value in one array (key at `2i`, value at `2i + 1`), so a lookup in a
 * table too large for the CPU caches costs one cache miss, not two: that kept the pool's cost per
 * eviction flat from 1K to 64K slots.
 */
export class PageIndexMap {
  /** Number of keys stored. */
  size = 0;
  /** Most keys it may hold. */
  readonly capacity: number;
  /** Interleaved (key, value) cells; a free cell's key is {@link NO_REQUEST}. */
  private readonly cells: Uint32Array;
  private readonly mask: number;
  private readonly shift: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    const tableSize = nextPowerOfTwo(Math.max(8, capacity * 2));
    this.cells = new Uint32Array(2 * tableSize).fill(NO_REQUEST);
    this.mask = tableSize - 1;
    this.shift = 32 - Math.log2(tableSize);
  }

  /** Home cell of `key`: Fibonacci hashing, the product's top bits (all key bits mix into them). */
  private home(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  /** Value stored for `pageId`, or -1. */
  get(pageId: number): number {
    const cells = this.cells;
    const mask = this.mask;
    let i = this.home(pageId);
    for (;;) {
      const k = cells[2 * i];
      if (k === pageId) return cells[2 * i + 1] | 0;
      if (k === NO_REQUEST) return -1;
      i = (i + 1) & mask;
    }
  }

  /** Stores `value` for `pageId`; returns false (storing nothing) when full. */
  set(pageId: number, value: number): boolean {
    const cells = this.cells;
    const mask = this.mask;
    let i = this.home(pageId);
    for (;;) {
      const k = cells[2 * i];
      if (k === pageId) {
        cells[2 * i + 1] = value;
        return true;
      }
      if (k === NO_REQUEST) break;
      i = (i + 1) & mask;
    }
    if (this.size >= this.capacity) return false;
    cells[2 * i] = pageId;
    cells[2 * i + 1] = value;
    this.size++;
    return true;
  }

  /** Removes `pageId` if present. */
  delete(pageId: number): void {
    const cells = this.cells;
    const mask = this.mask;
    let i = this.home(pageId);
    for (;;) {
      const k = cells[2 * i];
      if (k === NO_REQUEST) return;
      if (k === pageId) break;
      i = (i + 1) & mask;
    }
    // Backward-shift: pull later entries of the probe run into the hole when their home allows it.
    let hole = i;
    let j = (i + 1) & mask;
    for (;;) {
      const k = cells[2 * j];
      if (k === NO_REQUEST) break;
      const h = this.home(k);
      if (((hole - h) & mask) < ((j - h) & mask)) {
        cells[2 * hole] = k;
        cells[2 * hole + 1] = cells[2 * j + 1];
        hole = j;
      }
      j = (j + 1) & mask;
    }
    cells[2 * hole] = NO_REQUEST;
    this.size--;
  }

  /** Removes every key. */
  clear(): void {
    this.cells.fill(NO_REQUEST);
    this.size = 0;
  }
}
