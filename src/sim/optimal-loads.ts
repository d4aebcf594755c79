import { TesseraConfigError } from '../core/errors';
import type { RequestTrace } from './request-trace';

/** Next-use frame of a page that is never requested again. */
const NEVER = 0x7fffffff;

/**
 * Loads Belady's optimal offline policy (OPT / MIN) needs to serve `trace` with a cache of
 * `capacity` pages, cold start included.
 *
 * Model (the same constraints as the pool): every page requested in a frame must be resident in
 * that frame, so a page requested in the current frame is never the victim; on a miss with a full
 * cache, evict the resident page whose next request is furthest in the future (never requested
 * again counts as infinitely far). Next uses are precomputed backwards in one pass, victims come
 * from a max-heap with lazy deletion: O(n log n) for n recorded requests.
 *
 * @throws TesseraConfigError `pool-too-small` when one frame requests more than `capacity` pages.
 */
export function countOptimalLoads(trace: RequestTrace, capacity: number): number {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new TesseraConfigError('invalid-size', `capacity must be a positive integer, got ${capacity}`);
  }
  const n = trace.length;
  const frames = trace.frameCount;
  // Dense page numbers, so the rest runs on typed arrays.
  const dense = new Int32Array(n);
  const denseOf = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const id = trace.id(i);
    let d = denseOf.get(id);
    if (d === undefined) {
      d = denseOf.size;
      denseOf.set(id, d);
    }
    dense[i] = d;
  }
  const pages = denseOf.size;
  // nextUse[i]: first frame after the frame of request i that requests the same page.
  const nextUse = new Int32Array(n);
  const nextFrameOf = new Int32Array(pages).fill(NEVER);
  for (let f = frames - 1; f >= 0; f--) {
    const start = trace.frameStart(f);
    const end = trace.frameEnd(f);
    for (let i = start; i < end; i++) nextUse[i] = nextFrameOf[dense[i]];
    for (let i = start; i < end; i++) nextFrameOf[dense[i]] = f;
  }

  const resident = new Uint8Array(pages);
  const key = new Int32Array(pages); // current next use of each resident page
  const stamp = new Int32Array(pages).fill(-1); // frame in which a page was last requested
  const pushedIn = new Int32Array(pages).fill(-1); // frame in which a page was last pushed
  const heap = new MaxHeap(Math.min(n, 1 << 20) + 1);
  let residentCount = 0;
  let loads = 0;
  for (let f = 0; f < frames; f++) {
    const start = trace.frameStart(f);
    const end = trace.frameEnd(f);
    // Pass 1: mark the frame's pages and count misses. Keys are pushed only after the frame, so
    // the heap holds no live entry for a page of the current frame (its old entry goes stale).
    let misses = 0;
    for (let i = start; i < end; i++) {
      const d = dense[i];
      if (stamp[d] === f) continue; // duplicate inside the frame
      stamp[d] = f;
      key[d] = nextUse[i];
      if (!resident[d]) misses++;
    }
    // Pass 2: make room, furthest next use first.
    let toEvict = residentCount + misses - capacity;
    while (toEvict > 0) {
      if (heap.size === 0) {
        throw new TesseraConfigError('pool-too-small', `frame ${f} requests more than ${capacity} pages`);
      }
      const victimKey = heap.topKey();
      const victim = heap.pop();
      if (!resident[victim] || stamp[victim] === f || key[victim] !== victimKey) continue; // stale
      resident[victim] = 0;
      residentCount--;
      toEvict--;
    }
    // Pass 3: load the misses and push the frame's pages with their new keys, once each.
    for (let i = start; i < end; i++) {
      const d = dense[i];
      if (pushedIn[d] === f) continue;
      pushedIn[d] = f;
      if (!resident[d]) {
        resident[d] = 1;
        residentCount++;
        loads++;
      }
      heap.push(key[d], d);
    }
  }
  return loads;
}

/** Binary max-heap of (key, value) int pairs with growable typed storage. */
class MaxHeap {
  private keys: Int32Array;
  private values: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.keys = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
  }

  topKey(): number {
    return this.keys[0];
  }

  push(key: number, value: number): void {
    if (this.size === this.keys.length) {
      const k = new Int32Array(this.keys.length * 2);
      const v = new Int32Array(this.keys.length * 2);
      k.set(this.keys);
      v.set(this.values);
      this.keys = k;
      this.values = v;
    }
    let i = this.size++;
    const keys = this.keys;
    const values = this.values;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] >= key) break;
      keys[i] = keys[parent];
      values[i] = values[parent];
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
  }

  pop(): number {
    const keys = this.keys;
    const values = this.values;
    const top = values[0];
    const last = --this.size;
    const key = keys[last];
    const value = values[last];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= last) break;
      if (child + 1 < last && keys[child + 1] > keys[child]) child++;
      if (keys[child] <= key) break;
      keys[i] = keys[child];
      values[i] = values[child];
      i = child;
    }
    keys[i] = key;
    values[i] = value;
    return top;
  }
}
