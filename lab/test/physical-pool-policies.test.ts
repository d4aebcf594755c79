import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../src/core/errors';
import { NO_REQUEST, packPageId } from '../../src/core/vt/page-id';
import { PhysicalPool } from '../../src/core/vt/residency/physical-pool';
import { LAB_POLICIES, labPolicy } from '../policies/lab-policies';

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

/** The product's pool tests (`test/unit/core/physical-pool.test.ts`) with every lab policy. */
describe.each(LAB_POLICIES)('PhysicalPool (%s policy)', (name) => {
  const policy = labPolicy(name);
  /** Behaviour specific to the tuned predictor. */
  const predictive = name === 'predictive' ? it : it.skip;

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

  predictive('keeps a page used now and then over one that stopped after steady use', () => {
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 2 });
    const sparse = pool.allocate(page(1), 0);
    const steady = pool.allocate(page(2), 0);
    for (let f = 1; f <= 20; f++) {
      pool.touch(steady, f);
      if (f % 10 === 0) pool.touch(sparse, f);
    }
    // At frame 30 both are idle for 10 frames; the steady one has left the view.
    expect(pool.allocate(page(3), 30)).toBe(steady);
  });

  predictive('keeps part of a loop resident where LRU reloads every page every lap', () => {
    const orbit = sweep(64, 4, 8, false);
    const lru = lruLoads(32, orbit);
    expect(lru).toBe(64 + 3 + 7 * 64); // LRU: every page misses on every lap
    const loads = playTrace(new PhysicalPool({ replacementPolicy: policy, slotCount: 32 }), orbit);
    expect(loads).toBeLessThan(lru * 0.8);
  });

  /**
   * Three slots: B seen 0..10 then 50..60 (a 40-frame reuse gap; with a 6-frame flicker 53..57 if
   * asked), E seen steadily 0..57 (no history), C seen every frame up to 65.
   */
  function departureScenario(flickerOfB: boolean): { pool: PhysicalPool; b: number; e: number } {
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 3 });
    const b = pool.allocate(page(1), 0);
    const e = pool.allocate(page(2), 0);
    const c = pool.allocate(page(3), 0);
    for (let f = 1; f <= 65; f++) {
      const bSeen = f <= 10 || (f >= 50 && f <= 60 && !(flickerOfB && f >= 53 && f <= 57));
      if (bSeen) pool.touch(b, f);
      if (f <= 57) pool.touch(e, f);
      pool.touch(c, f);
    }
    return { pool, b, e };
  }

  predictive('learns a flicker that ended while the page was evicted', () => {
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 3 });
    const p = page(1);
    const q = page(2);
    pool.allocate(p, 0);
    pool.allocate(q, 0);
    for (let f = 1; f <= 36; f++) {
      if (f <= 10 || (f >= 19 && f <= 30)) pool.touch(pool.slotOf(p), f);
      if (f <= 31) pool.touch(pool.slotOf(q), f);
      if (f > 16) pool.touch(pool.slotOf(page(4)), f); // in view from 16 on
      if (f === 15) pool.allocate(page(3), f); // takes the free slot
      if (f === 16) {
        // P, idle 6 with no flicker on record, counted as departed and made room.
        pool.allocate(page(4), f);
        expect(pool.lastEvictedPage).toBe(p);
      }
      if (f === 18) pool.allocate(p, f); // back after 8 frames (evicting page 3): a flicker
    }
    // P (idle 6) may be flickering again; Q (idle 5, never flickered) has left: Q goes.
    pool.allocate(page(5), 36);
    expect(pool.lastEvictedPage).toBe(q);
  });

  predictive('evicts a page that has left with a known far return before a merely longer idle one', () => {
    // At 65, B (idle 5, never flickered) has left and returns around 100; E is idle 8 but
    // nothing says it is gone for long. LRU-like ranking would evict E.
    const { pool, b } = departureScenario(false);
    expect(pool.allocate(page(4), 65)).toBe(b);
  });

  predictive("does not treat an absence shorter than a page's own flicker as a departure", () => {
    // Same, but B once vanished for 6 frames and came back: idle 5 may be flicker, so it stays.
    const { pool, e } = departureScenario(true);
    expect(pool.allocate(page(4), 65)).toBe(e);
  });

  it('on a back-and-forth sweep does as well as LRU (near optimal there: first out, last back)', () => {
    const pingPong = sweep(64, 4, 8, true);
    const lru = lruLoads(32, pingPong);
    const loads = playTrace(new PhysicalPool({ replacementPolicy: policy, slotCount: 32 }), pingPong);
    // ARC is 8% worse than LRU here (312 vs 288 loads): pages seen twice at a turn enter T2 and
    // are kept over the pages just passed, which the way back needs first. A known weak spot.
    expect(loads).toBeLessThanOrEqual(Math.ceil(lru * (name === 'arc' ? 1.1 : 1.02)));
  });

  predictive('evicts pages left behind long ago before pages that come and go in the current view', () => {
    // Seen in the demo: after a fly-over the pool is full of coarse pages used sparsely long ago;
    // in the new, still view some pages are requested only now and then. Their predicted returns
    // must not make the pool evict them (and reload them) while the stale pages stay.
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 8 });
    const stale: number[] = [];
    for (let i = 0; i < 4; i++) {
      const slot = pool.allocate(packPageId(0, 5, i, 0), 0);
      pool.touch(slot, 10);
      pool.touch(slot, 20);
      stale.push(slot);
    }
    const current: number[] = [];
    for (let i = 0; i < 4; i++) {
      const slot = pool.allocate(packPageId(0, 0, i, 1), 100);
      pool.touch(slot, 125); // back after 25 frames: a known gap, so a predicted return near 150
      current.push(slot);
    }
    for (let k = 0; k < 4; k++) {
      const victim = pool.allocate(packPageId(0, 0, 10 + k, 2), 135 + k);
      expect(stale).toContain(victim);
    }
  });

  predictive('lets a prediction that came due long ago expire instead of protecting the page', () => {
    // S showed a 20-frame gap and is predicted back at 960; it never comes. A few typical gaps
    // later it must go before C and R, which are due back soon (the demo thrashed on such pages).
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 4 });
    const r = pool.allocate(packPageId(0, 0, 1, 0), 890);
    const s = pool.allocate(packPageId(0, 5, 0, 0), 900);
    const q = pool.allocate(packPageId(0, 0, 2, 0), 900);
    const q2 = pool.allocate(packPageId(0, 0, 3, 0), 900);
    let x = -1;
    let c = -1;
    for (let f = 901; f <= 1035; f++) {
      if (f <= 945) pool.touch(q, f);
      if (f <= 950) pool.touch(q2, f);
      if (f === 910 || f === 920 || f === 940) pool.touch(s, f); // 920 -> 940: a 20-frame gap
      if (f % 20 === 10) pool.touch(r, f); // a steady 20-frame rhythm
      if (x >= 0) pool.touch(x, f);
      if (f > 950 && f <= 960) pool.touch(pool.slotOf(packPageId(0, 0, 4, 0)), f);
      if (f === 950) pool.allocate(packPageId(0, 0, 4, 0), f); // evicts Q, gone since 945
      if (f === 955) {
        // S has left and is due back at 960: Q2, which just left with no history, goes first.
        x = pool.allocate(packPageId(0, 0, 5, 0), f);
        expect(pool.lastEvictedPage).toBe(packPageId(0, 0, 3, 0));
      }
      if (f === 1000) c = pool.allocate(packPageId(0, 0, 6, 0), f);
      if (f === 1025) pool.touch(c, f); // back after 25 frames: predicted back around 1050
    }
    expect(pool.allocate(packPageId(0, 0, 7, 0), 1035)).toBe(s);
    expect(pool.slotOf(packPageId(0, 0, 6, 0))).toBe(c);
    expect(pool.slotOf(packPageId(0, 0, 1, 0))).toBe(r);
  });

  predictive(
    'gives up newly departed pages without history before those that stayed, once pages return',
    () => {
      // A loop twice the pool, plus a page seen every 40 frames (say a coarse one): it shows that
      // pages do return. Loop pages have no reuse gap during the first lap, so each one that leaves
      // is predicted back soon; as Belady does on loops, the pool gives up the newest departures
      // and keeps those that stayed, which the second lap finds resident (LRU reloads all 64).
      const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 32 });
      const lap = (first: number) =>
        sweep(64, 4, 1, false).map((req, i) => ((first + i) % 40 === 0 ? [...req, 4095] : req));
      playTrace(pool, lap(0));
      expect(playTrace(pool, lap(64), 64)).toBeLessThanOrEqual(48);
    },
  );

  predictive('prefers evicting a fine page over an equally idle coarse one', () => {
    const pool = new PhysicalPool({ replacementPolicy: policy, slotCount: 2 });
    const coarse = pool.allocate(packPageId(0, 3, 0, 0), 0);
    const fine = pool.allocate(packPageId(0, 0, 5, 5), 0);
    expect(pool.allocate(packPageId(0, 0, 6, 6), 10)).toBe(fine);
    // A coarse page idle far longer than the fine ones still goes eventually.
    pool.touch(fine, 100);
    expect(pool.allocate(packPageId(0, 0, 7, 7), 101)).toBe(coarse);
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
