import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { NO_REQUEST, packPageId } from '../../../src/core/vt/page-id';
import { REPLACEMENT_POLICIES } from '../../../src/core/vt/residency/create-replacement-policy';
import { PhysicalPool } from '../../../src/core/vt/residency/physical-pool';

const page = (i: number) => packPageId(0, 0, i & 0xfff, i >> 12);

/** Plays a trace of per-frame request sets from `firstFrame` on; returns the loads (misses) needed. */
function playTrace(pool: PhysicalPool, frames: number[][], firstFrame = 0): number {
  let loads = 0;
  frames.forEach((requests, i) => {
    const f = firstFrame + i;
    for (const p of requests) {
      const s = pool.slotOf(page(p));
      if (s >= 0) pool.touch(s, f);
    }
    for (const p of requests) {
      if (pool.slotOf(page(p)) >= 0) continue;
      expect(pool.allocate(page(p), f)).toBeGreaterThanOrEqual(0);
      loads++;
    }
  });
  return loads;
}

/** Reference LRU on the same trace. */
function lruLoads(capacity: number, frames: number[][]): number {
  const last = new Map<number, number>();
  let loads = 0;
  frames.forEach((requests, f) => {
    for (const p of requests) {
      if (!last.has(p)) {
        if (last.size >= capacity) {
          let victim = -1;
          let oldest = Number.POSITIVE_INFINITY;
          for (const [q, t] of last) if (t < oldest && t < f) [victim, oldest] = [q, t];
          last.delete(victim);
        }
        loads++;
      }
      last.set(p, f);
    }
  });
  return loads;
}

/** A camera sweeping a strip of `n` pages, `window` visible per frame, `step` frames per page. */
function sweep(n: number, window: number, laps: number, pingPong: boolean): number[][] {
  const frames: number[][] = [];
  for (let lap = 0; lap < laps; lap++) {
    const backwards = pingPong && lap % 2 === 1;
    for (let i = 0; i < n; i++) {
      const start = backwards ? n - 1 - i : i;
      const req: number[] = [];
      for (let k = 0; k < window; k++) req.push(pingPong ? Math.min(n - 1, start + k) : (start + k) % n);
      frames.push(req);
    }
  }
  return frames;
}

describe.each(REPLACEMENT_POLICIES)('PhysicalPool (%s policy)', (policy) => {
  it('derives slots from a byte budget and validates', () => {
    expect(new PhysicalPool({ budgetBytes: 64 * 1024 * 1024, tileSize: 128, layers: 2 }).slotCount).toBe(512);
    expect(() => new PhysicalPool({ budgetBytes: 10 })).toThrow(TesseraConfigError);
    expect(() => new PhysicalPool({ replacementPolicy: policy, slotCount: 0 })).toThrow(TesseraConfigError);
    expect(() => new PhysicalPool({ replacementPolicy: policy, slotCount: 65537 })).toThrow(
      TesseraConfigError,
    );
    expect(new PhysicalPool({ budgetBytes: 2 ** 40 }).slotCount).toBe(65536);
    try {
      new PhysicalPool({ budgetBytes: 10 });
    } catch (e) {
      expect((e as TesseraConfigError).code).toBe('budget-too-small');
    }
  });

  it('allocates free slots, then evicts, reporting the victim', () => {
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 2 });
    const a = pool.allocate(page(1), 0);
    const b = pool.allocate(page(2), 0);
    expect(a).not.toBe(b);
    expect(pool.lastEvictedPage).toBe(NO_REQUEST);
    // Both used in frame 0: nothing evictable in frame 0.
    expect(pool.allocate(page(3), 0)).toBe(-1);
    pool.touch(b, 1);
    const c = pool.allocate(page(3), 1);
    expect(c).toBe(a);
    expect(pool.lastEvictedPage).toBe(page(1));
    expect(pool.slotOf(page(1))).toBe(-1);
    expect(pool.slotOf(page(3))).toBe(a);
    expect(pool.evictionCount).toBe(1);
  });

  it('never evicts pinned or locked pages', () => {
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 3 });
    const pinned = pool.allocate(page(1), 0, true);
    const locked = pool.allocate(page(2), 0);
    pool.lock(locked);
    const plain = pool.allocate(page(3), 0);
    expect(pool.allocate(page(4), 5)).toBe(plain);
    expect(pool.allocate(page(5), 6)).toBe(plain);
    expect(pool.allocate(page(6), 7)).toBe(plain);
    pool.unlock(locked);
    expect(pool.allocate(page(7), 9)).not.toBe(pinned);
    expect(pool.slotOf(page(1))).toBe(pinned);
    expect(pool.pinnedCount).toBe(1);
  });

  it('evicts the longest idle page among continuously used pages of one mip (LRU in frames)', () => {
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 3 });
    const a = pool.allocate(page(1), 0);
    pool.allocate(page(2), 1);
    pool.allocate(page(3), 2);
    expect(pool.allocate(page(4), 5)).toBe(a);
    expect(pool.lastEvictedPage).toBe(page(1));
  });

  it('on a back-and-forth sweep does as well as LRU (near optimal there: first out, last back)', () => {
    const pingPong = sweep(64, 4, 8, true);
    const lru = lruLoads(32, pingPong);
    const loads = playTrace(new PhysicalPool({ replacementPolicy: policy, slotCount: 32 }), pingPong);
    expect(loads).toBeLessThanOrEqual(Math.ceil(lru * 1.02));
  });

  it('property: slots are unique, capacity holds, pinned and current pages survive', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.nat(3), fc.nat(40), fc.boolean()), { maxLength: 300 }),
        (slots, ops) => {
          const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: slots });
          let frame = 0;
          const pinned = new Set<number>();
          const usedThisFrame = new Set<number>();
          for (const [op, p, flag] of ops) {
            const id = page(p);
            if (op === 0) {
              frame++;
              usedThisFrame.clear();
            } else if (op === 1) {
              const s = pool.allocate(id, frame, flag && pinned.size < slots - 1);
              if (s >= 0) {
                usedThisFrame.add(id);
                if (pool.isPinned(s)) pinned.add(id);
                const victim = pool.lastEvictedPage;
                if (victim !== NO_REQUEST) {
                  expect(pinned.has(victim)).toBe(false);
                  expect(usedThisFrame.has(victim)).toBe(false);
                }
              }
            } else if (op === 2) {
              const s = pool.slotOf(id);
              if (s >= 0) {
                pool.touch(s, frame);
                usedThisFrame.add(id);
              }
            } else {
              const s = pool.slotOf(id);
              if (s >= 0 && !pinned.has(id)) pool.release(s);
            }
            const seen = new Set<number>();
            let resident = 0;
            for (let s = 0; s < slots; s++) {
              const q = pool.slotPages[s];
              if (q === NO_REQUEST) continue;
              resident++;
              expect(seen.has(q)).toBe(false);
              seen.add(q);
              expect(pool.slotOf(q)).toBe(s);
            }
            expect(resident).toBe(pool.residentCount);
            expect(resident).toBeLessThanOrEqual(slots);
            for (const q of pinned) expect(pool.slotOf(q)).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
