import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_REQUEST, packPageId } from '../../../src/core/vt/page-id';
import { REPLACEMENT_POLICIES } from '../../../src/core/vt/residency/create-replacement-policy';
import { PhysicalPool } from '../../../src/core/vt/residency/physical-pool';
import { RecentUseCounter } from '../../../src/core/vt/residency/recent-use-counter';

const page = (i: number) => packPageId(0, 0, i & 0xfff, i >> 12);

describe('RecentUseCounter', () => {
  it('counts pages by last-use frame within the ring, and answers -1 beyond it', () => {
    const c = new RecentUseCounter();
    c.add(5);
    c.add(5);
    c.add(7);
    c.remove(5);
    expect(c.countSince(5, 7)).toBe(2);
    expect(c.countSince(6, 7)).toBe(1);
    expect(c.countSince(0, 1000)).toBe(-1);
    // A frame that left the ring counts nothing, even if its cell was reused.
    c.add(5 + 64);
    expect(c.countSince(10, 5 + 64)).toBe(1);
  });
});

describe.each(REPLACEMENT_POLICIES)('PhysicalPool bookkeeping (%s policy)', (policy) => {
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
