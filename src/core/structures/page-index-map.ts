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
 */
export class PageIndexMap {
  /** Number of keys stored. */
  size = 0;
  /** Most keys it may hold. */
  readonly capacity: number;
  private readonly keys: Uint32Array;
  private readonly values: Int32Array;
  private readonly mask: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    const tableSize = nextPowerOfTwo(Math.max(8, capacity * 2));
    this.keys = new Uint32Array(tableSize).fill(NO_REQUEST);
    this.values = new Int32Array(tableSize);
    this.mask = tableSize - 1;
  }

  private home(key: number): number {
    return (Math.imul(key, 0x9e3779b1) >>> 7) & this.mask;
  }

  /** Value stored for `pageId`, or -1. */
  get(pageId: number): number {
    const keys = this.keys;
    let i = this.home(pageId);
    for (;;) {
      const k = keys[i];
      if (k === pageId) return this.values[i];
      if (k === NO_REQUEST) return -1;
      i = (i + 1) & this.mask;
    }
  }

  /** Stores `value` for `pageId`; returns false (storing nothing) when full. */
  set(pageId: number, value: number): boolean {
    const keys = this.keys;
    let i = this.home(pageId);
    for (;;) {
      const k = keys[i];
      if (k === pageId) {
        this.values[i] = value;
        return true;
      }
      if (k === NO_REQUEST) break;
      i = (i + 1) & this.mask;
    }
    if (this.size >= this.capacity) return false;
    keys[i] = pageId;
    this.values[i] = value;
    this.size++;
    return true;
  }

  /** Removes `pageId` if present. */
  delete(pageId: number): void {
    const keys = this.keys;
    const mask = this.mask;
    let i = this.home(pageId);
    for (;;) {
      const k = keys[i];
      if (k === NO_REQUEST) return;
      if (k === pageId) break;
      i = (i + 1) & mask;
    }
    // Backward-shift: pull later entries of the probe run into the hole when their home allows it.
    let hole = i;
    let j = (i + 1) & mask;
    for (;;) {
      const k = keys[j];
      if (k === NO_REQUEST) break;
      const h = this.home(k);
      const distHole = (hole - h) & mask;
      const distJ = (j - h) & mask;
      if (distHole < distJ) {
        keys[hole] = k;
        this.values[hole] = this.values[j];
        hole = j;
      }
      j = (j + 1) & mask;
    }
    keys[hole] = NO_REQUEST;
    this.size--;
  }

  /** Removes every key. */
  clear(): void {
    this.keys.fill(NO_REQUEST);
    this.size = 0;
  }
}
