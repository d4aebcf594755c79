import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../src/core/errors';
import { packPageId, pageY, parentPageId } from '../../src/core/vt/page-id';
import { LhdPolicy } from '../../src/core/vt/residency/lhd-policy';
import { LruPolicy } from '../../src/core/vt/residency/lru-policy';
import { PhysicalPool } from '../../src/core/vt/residency/physical-pool';
import { compactPool } from '../../src/core/vt/residency/pool-compaction';
import type { SlotTableView } from '../../src/core/vt/residency/replacement-policy';
import { RequestTrace } from '../../src/sim/request-trace';
import { SeededRandom } from '../../src/sim/seeded-random';
import { probeAllocations } from '../../test/unit/support/allocation-probe';
import { AdaptivePolicy, adaptivePolicy } from '../policies/adaptive-policy';
import type { CoverageFeed } from '../policies/coverage-feed';
import { CoverageLhdPolicy } from '../policies/coverage-lhd-policy';
import { labPolicy } from '../policies/lab-policies';
import { ShadowPool } from '../policies/shadow-pool';
import { coverageTraceFromFrames } from '../sim/coverage-trace';
import { replayLoads } from '../sim/policy-replay';

const page = (i: number) => packPageId(0, 0, i & 0xfff, (i >> 12) & 0xfff);

/**
 * Every page is requested twice, `gap` frames apart, `fresh` new pages a frame: the reuse distance
 * is just under 128 slots, so LRU keeps every page until its return (only cold loads), where lhd's
 * sampled victims lose some of them.
 */
function returnOnceFrames(frames: number, fresh = 8, gap = 8): number[][] {
  const out: number[][] = [];
  for (let f = 0; f < frames; f++) {
    const ids: number[] = [];
    for (let k = 0; k < fresh; k++) ids.push(page(f * fresh + k));
    if (f >= gap) for (let k = 0; k < fresh; k++) ids.push(page((f - gap) * fresh + k));
    out.push(ids);
  }
  return out;
}

/**
 * 12 slots: pages 0..7 in view every frame, pages 8 and 9 in view one frame in four, one new page
 * passing each frame. LRU evicts a flickering page (idle 3 frames) before the passing ones (idle
 * 1-2); lhd learns that flickering pages return and passing ones do not.
 */
function flickerFrames(frames: number): number[][] {
  const out: number[][] = [];
  for (let f = 0; f < frames; f++) {
    const ids: number[] = [];
    for (let p = 0; p < 8; p++) ids.push(page(p));
    if (f % 4 === 0) ids.push(page(8), page(9));
    ids.push(page(100 + f));
    out.push(ids);
  }
  return out;
}

/** Serves `frames` to `pool` as the replay does (hits first); calls `beforeLoad` before each load. */
function serve(pool: PhysicalPool, frames: number[][], beforeLoad?: (f: number) => void): number {
  let loads = 0;
  for (let f = 0; f < frames.length; f++) {
    for (const id of frames[f]) {
      const s = pool.slotOf(id);
      if (s >= 0) pool.touch(s, f);
    }
    for (const id of frames[f]) {
      if (pool.slotOf(id) >= 0) continue;
      beforeLoad?.(f);
      expect(pool.allocate(id, f)).toBeGreaterThanOrEqual(0);
      loads++;
    }
  }
  return loads;
}

describe('ShadowPool', () => {
  it('needs exactly the loads of a real pool with the same policy, frame by frame, coverage included', () => {
    const rng = new SeededRandom(7);
    const frames: number[][] = [];
    const coverages: number[][] = [];
    for (let f = 0; f < 400; f++) {
      const ids = new Set<number>();
      const base = Math.floor(f / 3);
      for (let k = 0; k < 20; k++) ids.add(page(base + Math.floor(rng.next() * 60)));
      // Some parents too, so lhd's parent-in-use signal reads the shadow's page map.
      for (const id of [...ids].slice(0, 5)) ids.add(parentPageId(id));
      frames.push([...ids]);
      coverages.push(frames[f].map(() => Math.floor(rng.next() * 8)));
    }
    const trace = coverageTraceFromFrames(RequestTrace.fromFrames(frames), coverages);
    type Table = SlotTableView;
    for (const [name, create] of [
      ['lru', (t: Table) => new LruPolicy(t)],
      ['lhd', (t: Table) => new LhdPolicy(t)],
      [
        'lhd with coverage levels',
        (t: Table, feed?: CoverageFeed) => new CoverageLhdPolicy(t, { coverageCuts: [0, 1, 4], feed }),
      ],
    ] as const) {
      const shadow = new ShadowPool(40, (t) => create(t));
      const buffer = new Uint32Array(40);
      const coverage = new Uint32Array(40);
      for (let f = 0; f < frames.length; f++) {
        buffer.set(frames[f]);
        coverage.set(coverages[f]);
        shadow.serveFrame(buffer, coverage, frames[f].length, f);
      }
      expect([name, shadow.loads]).toEqual([name, replayLoads(trace, 40, create)]);
    }
  });
});

describe('AdaptivePolicy', () => {
  it("follows LRU, and evicts LRU's victim, on a stream where LRU needs fewer loads", () => {
    const frames = returnOnceFrames(1200);
    const trace = RequestTrace.fromFrames(frames);
    const lru = replayLoads(trace, 128, 'lru');
    const lhd = replayLoads(trace, 128, 'lhd');
    expect(lhd).toBeGreaterThan(lru + 200); // the stream does favour LRU
    const pool = new PhysicalPool({ slotCount: 128, replacementPolicy: adaptivePolicy({ partner: 'lru' }) });
    const policy = pool.policy as AdaptivePolicy;
    let checked = 0;
    const loads = serve(pool, frames, (f) => {
      if (f < 300 || policy.following !== 'lru' || pool.freeCount > 0) return;
      pool.sweep(f);
      const expected = pool.slotPages[policy.partner.victim(f)];
      pool.allocate(page(1 << 20), f); // a probe page: its victim must be LRU's choice
      expect(pool.lastEvictedPage).toBe(expected);
      pool.release(pool.slotOf(page(1 << 20)));
      checked++;
    });
    expect(checked).toBeGreaterThan(100);
    expect(policy.following).toBe('lru');
    expect(policy.partnerShadow.loads).toBeLessThan(policy.lhdShadow.loads);
    // Within the lead waited for (64 frames of it) and the switch's transient of LRU's loads.
    expect(loads).toBeLessThan(lru + (lhd - lru) / 4);
  });

  it("follows lhd, and evicts lhd's victim, on a stream where lhd needs fewer loads", () => {
    const frames = flickerFrames(4000);
    const trace = RequestTrace.fromFrames(frames);
    const lru = replayLoads(trace, 12, 'lru');
    const lhd = replayLoads(trace, 12, 'lhd');
    expect(lru).toBeGreaterThan(lhd + 100);
    const pool = new PhysicalPool({ slotCount: 12, replacementPolicy: adaptivePolicy({ partner: 'lru' }) });
    const policy = pool.policy as AdaptivePolicy;
    let checked = 0;
    let lruDiffers = 0;
    const loads = serve(pool, frames, (f) => {
      if (f < 2000 || pool.freeCount > 0) return;
      pool.sweep(f);
      // 12 slots: lhd compares every candidate (no sampling), so asking it first changes nothing.
      const expected = pool.slotPages[policy.lhd.victim(f)];
      if (pool.slotPages[policy.partner.victim(f)] !== expected) lruDiffers++;
      pool.allocate(page(1 << 20), f); // a probe page: its victim must be lhd's choice
      expect(pool.lastEvictedPage).toBe(expected);
      pool.release(pool.slotOf(page(1 << 20)));
      checked++;
    });
    expect(checked).toBeGreaterThan(1000);
    expect(lruDiffers).toBeGreaterThan(100); // the two policies disagree here, and lhd is followed
    expect(policy.following).toBe('lhd');
    expect(policy.switches).toBe(0);
    // The probes cost lhd nothing here (each is released at once): lhd's loads, not LRU's.
    expect(loads).toBeLessThan(lhd + (lru - lhd) / 4);
  });

  it('by default duels lhd with the predictor, and follows it on a long loop where lhd loses', () => {
    // A window of 30 pages sliding 3 pages a frame round a ring of 400: each page returns after
    // 133 frames, which lhd's ghosts (half of 200 slots) do not remember; the predictor, which
    // predicts each page's return from its previous gap, keeps what returns soonest.
    const frames: number[][] = [];
    for (let f = 0; f < 2000; f++) frames.push(Array.from({ length: 30 }, (_, k) => page((3 * f + k) % 400)));
    const trace = RequestTrace.fromFrames(frames);
    const lhd = replayLoads(trace, 200, 'lhd');
    const predictive = replayLoads(trace, 200, 'predictive');
    expect(predictive).toBeLessThan(lhd * 0.7); // measured 3,736 against 6,027
    const pool = new PhysicalPool({ slotCount: 200, replacementPolicy: labPolicy('adaptive') });
    const policy = pool.policy as AdaptivePolicy;
    expect(policy.partner.name).toBe('predictive');
    const loads = serve(pool, frames);
    expect(policy.following).toBe('predictive');
    expect(loads).toBeLessThan(predictive * 1.05); // measured 3,773
  });

  it('rejects an unknown partner with a typed error', () => {
    expect(() => adaptivePolicy({ partner: 'arc' as 'lru' })).toThrow(TesseraConfigError);
  });

  it('replays each frame into both shadows once the next begins, and forgets released pages', () => {
    const pool = new PhysicalPool({ slotCount: 4, replacementPolicy: labPolicy('adaptive') });
    const policy = pool.policy as AdaptivePolicy;
    const a = pool.allocate(page(1), 0);
    pool.allocate(page(2), 0);
    expect(policy.partnerShadow.holds(page(1))).toBe(false); // frame 0 is still being recorded
    pool.touch(a, 1);
    expect(policy.partnerShadow.holds(page(1))).toBe(true);
    expect(policy.lhdShadow.holds(page(2))).toBe(true);
    expect(policy.partnerShadow.loads).toBe(2);
    pool.release(a);
    expect(policy.partnerShadow.holds(page(1))).toBe(false);
    expect(policy.lhdShadow.holds(page(1))).toBe(false);
  });

  it('allocates nothing per frame in steady state', async () => {
    const frames = returnOnceFrames(3000);
    const pool = new PhysicalPool({ slotCount: 128, replacementPolicy: adaptivePolicy({ partner: 'lru' }) });
    serve(pool, frames.slice(0, 1000)); // past the switch to LRU
    let f = 999;
    const frame = () => {
      f++;
      const ids = frames[f];
      for (let k = 0; k < ids.length; k++) {
        const s = pool.slotOf(ids[k]);
        if (s >= 0) pool.touch(s, f);
      }
      for (let k = 0; k < ids.length; k++) if (pool.slotOf(ids[k]) < 0) pool.allocate(ids[k], f);
    };
    await probeAllocations(500, frame); // warm the JIT: compiled code lives on the heap too
    const probe = await probeAllocations(1500, frame);
    expect(probe.collections).toBe(0);
    expect(probe.heapGrowthBytes).toBeLessThan(64 * 1024);
  });

  it('rejects bad options with a typed error, and accepts good ones', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => adaptivePolicy({ hysteresisLoads: bad })).toThrow(TesseraConfigError);
      expect(() => adaptivePolicy({ persistFrames: bad })).toThrow(TesseraConfigError);
      try {
        new PhysicalPool({
          slotCount: 8,
          replacementPolicy: (t) => new AdaptivePolicy(t, { hysteresisLoads: bad }),
        });
      } catch (error) {
        expect(error).toBeInstanceOf(TesseraConfigError);
        expect((error as TesseraConfigError).code).toBe('invalid-option');
      }
    }
    const pool = new PhysicalPool({
      slotCount: 8,
      replacementPolicy: adaptivePolicy({ hysteresisLoads: 0, persistFrames: 16 }),
    });
    expect(pool.policy.name).toBe('adaptive');
  });
});

describe('AdaptivePolicy across a resize', () => {
  it("adopts the previous adaptive pool's lhd: its ghosts and the pages the resize dropped", () => {
    const duel = new PhysicalPool({ slotCount: 8, replacementPolicy: labPolicy('adaptive') });
    for (let f = 0; f < 16; f++) duel.allocate(page(f), f);
    const resized = compactPool(duel, [], 16, 16, 16, labPolicy('adaptive')).pool;
    expect((resized.policy as AdaptivePolicy).lhd.ghostCount).toBe(4);
  });
});

describe('CoverageLhdPolicy', () => {
  /**
   * Reloads of returning pages after a warm-up on a teleporting camera (as in the product's lhd
   * test): each place lasts 10 frames and sees 40 new mip-0 pages, covering one feedback pixel and
   * never seen again, and 10 mip-0 pages covering 20 pixels: 5 seen for the first time, and the 5
   * first seen three places before. 100 slots hold the 15 pages still to return and a place's 50,
   * not what LRU keeps between the two visits. Only the coverage tells the two kinds apart.
   */
  function wideReloads(create: (table: SlotTableView, feed: CoverageFeed) => CoverageLhdPolicy): number {
    const feed: CoverageFeed = { coverage: 0 };
    const pool = new PhysicalPool({ slotCount: 100, replacementPolicy: (t) => create(t, feed) });
    const returning = (place: number, i: number) => packPageId(0, 0, i, 2000 + place);
    const coverageOf = (id: number) => (pageY(id) >= 2000 ? 20 : 1);
    let fine = 0;
    let reloads = 0;
    for (let place = 3; place < 603; place++) {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(returning(place, i), returning(place - 3, i));
      for (let i = 0; i < 40; i++) ids.push(page(fine++));
      for (let f = place * 10; f < place * 10 + 10; f++) {
        for (const id of ids) {
          const s = pool.slotOf(id);
          feed.coverage = coverageOf(id);
          if (s >= 0) pool.touch(s, f);
        }
        for (const id of ids) {
          if (pool.slotOf(id) >= 0) continue;
          feed.coverage = coverageOf(id);
          expect(pool.allocate(id, f)).toBeGreaterThanOrEqual(0);
          if (place >= 303 && id === returning(place - 3, id & 0xfff)) reloads++;
        }
      }
    }
    return reloads;
  }

  it('with coverage levels, learns that pages covering many feedback pixels come back and one-pixel pages do not', () => {
    expect(wideReloads((t, feed) => new CoverageLhdPolicy(t, { feed }))).toBeGreaterThan(300); // 436 measured
    expect(
      wideReloads((t, feed) => new CoverageLhdPolicy(t, { coverageCuts: [0, 1, 4], feed })),
    ).toBeLessThan(30); // 0 measured
  });

  it('without coverage levels chooses the victims of the product lhd', () => {
    const victims = (create: (t: SlotTableView) => LhdPolicy | CoverageLhdPolicy) => {
      const pool = new PhysicalPool({ slotCount: 64, replacementPolicy: create });
      const out: number[] = [];
      for (let f = 0; f < 2000; f++) {
        for (let k = 0; k < 8; k++) {
          const id = page((f * 7 + k * 13 + (f >> 5) * 31) % 300);
          const s = pool.slotOf(id);
          if (s >= 0) pool.touch(s, f);
          else out.push(pool.allocate(id, f), pool.lastEvictedPage);
        }
      }
      return out;
    };
    expect(victims((t) => new CoverageLhdPolicy(t))).toEqual(victims((t) => new LhdPolicy(t)));
  });

  it('refuses coverage cuts that are not ascending integers >= 0, at most 3, with a typed error', () => {
    const table = new PhysicalPool({ slotCount: 4, replacementPolicy: 'lru' });
    for (const cuts of [[-1], [1, 1], [4, 2], [0.5], [0, 1, 2, 3], [Number.NaN]]) {
      expect(() => new CoverageLhdPolicy(table, { coverageCuts: cuts })).toThrow(TesseraConfigError);
    }
    expect(() => adaptivePolicy({ coverageCuts: [2, 1] })).toThrow(/coverageCuts/);
    expect(() => adaptivePolicy({ coverageCuts: '4' as unknown as number[] })).toThrow(TesseraConfigError);
    expect(new CoverageLhdPolicy(table, { coverageCuts: [] }).name).toBe('lhd');
  });
});
