import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../src/core/errors';
import { NO_REQUEST, packPageId } from '../../src/core/vt/page-id';
import { VISIT_GAP_FRAMES } from '../../src/core/vt/residency/lhd-policy';
import { PhysicalPool } from '../../src/core/vt/residency/physical-pool';
import { checkPolicyInvariants } from '../../test/unit/support/policy-invariants';
import { ArcPolicy } from '../policies/arc-policy';
import { LAB_POLICIES, labPolicy } from '../policies/lab-policies';
import { LirsPolicy } from '../policies/lirs-policy';

const page = (i: number) => packPageId(0, 0, i & 0xfff, i >> 12);

describe('lab policies by name', () => {
  it('builds each lab policy by name and refuses an unknown one with a typed error', () => {
    for (const name of LAB_POLICIES) {
      expect(new PhysicalPool({ slotCount: 4, replacementPolicy: labPolicy(name) }).policy.name).toBe(name);
    }
    expect(() => new PhysicalPool({ slotCount: 4, replacementPolicy: labPolicy('mru' as 'lru') })).toThrow(
      TesseraConfigError,
    );
  });
});

describe('ArcPolicy (frames)', () => {
  it('keeps a page seen in two visits over pages seen in one', () => {
    const pool = new PhysicalPool({ slotCount: 3, replacementPolicy: labPolicy('arc') });
    const twice = pool.allocate(page(1), 0);
    pool.touch(twice, VISIT_GAP_FRAMES + 2); // back after a full jitter cycle: a second visit
    const once = pool.allocate(page(2), VISIT_GAP_FRAMES + 3);
    pool.allocate(page(3), VISIT_GAP_FRAMES + 4);
    // `twice` is the least recently used page, but it is in T2 and T1 is over its target (0).
    expect(pool.allocate(page(4), VISIT_GAP_FRAMES + 10)).toBe(once);
    expect(pool.policy).toBeInstanceOf(ArcPolicy);
  });

  it('grows the target of T1 on a ghost hit in B1', () => {
    const pool = new PhysicalPool({ slotCount: 3, replacementPolicy: labPolicy('arc') });
    const arc = pool.policy as ArcPolicy;
    pool.touch(pool.allocate(page(1), 0), 20); // two visits: T2
    pool.allocate(page(2), 21);
    pool.allocate(page(3), 22);
    pool.allocate(page(4), 30); // evicts page 2 (LRU of T1) into B1
    expect(pool.lastEvictedPage).toBe(page(2));
    expect(arc.recentTarget).toBe(0);
    pool.allocate(page(2), 31); // B1 hit: T1 was too small
    expect(arc.recentTarget).toBeGreaterThan(0);
  });

  it('does not count flicker within a jitter cycle as a second visit', () => {
    const pool = new PhysicalPool({ slotCount: 2, replacementPolicy: labPolicy('arc') });
    const a = pool.allocate(page(1), 0);
    pool.touch(a, VISIT_GAP_FRAMES); // absent for less than a cycle: the same visit
    const b = pool.allocate(page(2), VISIT_GAP_FRAMES + 1);
    pool.touch(b, VISIT_GAP_FRAMES + 2);
    // Both in T1: plain recency, `a` goes.
    expect(pool.allocate(page(3), VISIT_GAP_FRAMES + 3)).toBe(a);
  });
});

describe('lirs policy invariants', () => {
  it('property: never evicts pinned, locked or in-use pages; the resident set matches the page map; ghosts stay bounded', () => {
    checkPolicyInvariants(labPolicy('lirs'), (pool, slots, resident) => {
      const state = pool.policy as LirsPolicy;
      expect(state).toBeInstanceOf(LirsPolicy);
      expect(state.ghostCount).toBeLessThanOrEqual(2 * slots);
      expect(state.lirSize).toBeLessThanOrEqual(resident);
    });
  });
});

describe.each(LAB_POLICIES)('PhysicalPool bookkeeping (%s policy)', (name) => {
  const policy = labPolicy(name);
  it('property: usedSinceCount and pinnedUsedSinceCount match a scan of the slots; only idle slots are evicted', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.tuple(fc.nat(5), fc.nat(30), fc.boolean()), { maxLength: 300 }),
        fc.integer({ min: 1, max: 20 }),
        (slots, ops, window) => {
          const pool = new PhysicalPool({ slotCount: slots, replacementPolicy: policy });
          let frame = 0;
          for (const [op, p, flag] of ops) {
            const id = page(p);
            const s = pool.slotOf(id);
            if (op === 0) frame++;
            else if (op === 1) pool.allocate(id, frame, flag && pool.pinnedCount < slots - 1);
            else if (op === 2 && s >= 0) pool.touch(s, frame);
            else if (op === 3 && s >= 0 && !pool.isPinned(s)) pool.release(s);
            else if (op === 4 && s >= 0) pool.setPinned(s, flag && pool.pinnedCount < slots - 1);
            else if (op === 5 && s >= 0) {
              pool.lock(s);
              expect(pool.allocate(page(p + 100), frame)).not.toBe(s);
              pool.unlock(pool.slotOf(id));
            }
            let unpinned = 0;
            let pinned = 0;
            for (let q = 0; q < slots; q++) {
              if (pool.slotPages[q] === NO_REQUEST || pool.slotLastUse[q] < frame - window + 1) continue;
              if (pool.isPinned(q)) pinned++;
              else unpinned++;
            }
            expect(pool.usedSinceCount(frame - window + 1)).toBe(unpinned);
            expect(pool.pinnedUsedSinceCount(frame - window + 1)).toBe(pinned);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
