import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { countOptimalLoads } from '../../../src/sim/optimal-loads';
import { RequestTrace } from '../../../src/sim/request-trace';

/** Exhaustive minimum loads over every legal eviction choice (small universes only). */
function bruteForceLoads(frames: number[][], capacity: number): number {
  let states = new Map<number, number>([[0, 0]]); // resident bitmask -> fewest loads so far
  for (const frame of frames) {
    let need = 0;
    for (const p of frame) need |= 1 << p;
    const next = new Map<number, number>();
    for (const [state, cost] of states) {
      const loads = popcount(need & ~state);
      const union = state | need;
      // Any subset of the union that keeps the frame's pages and fits.
      const optional = union & ~need;
      for (let sub = optional; ; sub = (sub - 1) & optional) {
        const kept = need | sub;
        if (popcount(kept) <= capacity) {
          const total = cost + loads;
          const prev = next.get(kept);
          if (prev === undefined || total < prev) next.set(kept, total);
        }
        if (sub === 0) break;
      }
    }
    states = next;
  }
  return Math.min(...states.values());
}

function popcount(x: number): number {
  let c = 0;
  while (x) {
    x &= x - 1;
    c++;
  }
  return c;
}

describe('countOptimalLoads (Belady OPT)', () => {
  it('counts only cold misses when everything fits', () => {
    const trace = RequestTrace.fromFrames([
      [1, 2],
      [2, 3],
      [1, 3],
    ]);
    expect(countOptimalLoads(trace, 3)).toBe(3);
  });

  it('evicts the page used furthest in the future', () => {
    // Capacity 2, frames a b c a b: loading c evicts b (a comes back sooner), so only b reloads: 4.
    const trace = RequestTrace.fromFrames([[0], [1], [2], [0], [1]]);
    expect(countOptimalLoads(trace, 2)).toBe(4);
  });

  it('never evicts a page of the current frame and rejects frames larger than the cache', () => {
    expect(() => countOptimalLoads(RequestTrace.fromFrames([[1, 2, 3]]), 2)).toThrow(TesseraConfigError);
    // Page 0 is requested in every frame alongside a new page; capacity 2 must keep 0 each time.
    const trace = RequestTrace.fromFrames([
      [0, 1],
      [0, 2],
      [0, 3],
      [0, 1],
    ]);
    expect(countOptimalLoads(trace, 2)).toBe(5);
  });

  it('matches an exhaustive search on random small traces', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 0, maxLength: 4 }), {
          minLength: 1,
          maxLength: 9,
        }),
        (capacity, rawFrames) => {
          const frames = rawFrames.map((f) => f.slice(0, capacity));
          const opt = countOptimalLoads(RequestTrace.fromFrames(frames), capacity);
          expect(opt).toBe(bruteForceLoads(frames, capacity));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('ignores duplicates inside a frame', () => {
    const trace = RequestTrace.fromFrames([
      [5, 5, 6],
      [6, 6],
    ]);
    expect(countOptimalLoads(trace, 2)).toBe(2);
  });
});

describe('RequestTrace', () => {
  it('records frames, union and largest frame', () => {
    const trace = new RequestTrace(1);
    for (let f = 0; f < 100; f++) {
      trace.beginFrame();
      for (let i = 0; i < (f % 7) + 1; i++) trace.add(f + i);
    }
    expect(trace.frameCount).toBe(100);
    expect(trace.maxFrameSize()).toBe(7);
    expect(trace.unionSize()).toBe(104);
    expect(trace.frameEnd(3) - trace.frameStart(3)).toBe(4);
  });
});
