import fc from 'fast-check';
import { expect } from 'vitest';
import { NO_REQUEST, packPageId } from '../../../src/core/vt/page-id';
import type { PhysicalPoolOptions } from '../../../src/core/vt/residency/physical-pool';
import { PhysicalPool } from '../../../src/core/vt/residency/physical-pool';

const page = (i: number) => packPageId(0, 0, i & 0xfff, i >> 12);

/**
 * Property check of a replacement policy in a {@link PhysicalPool} under random streams of
 * allocations, uses, releases, pins and locks: it never evicts pinned, locked or in-use pages and
 * the resident set matches the page map; `checkState(pool, slots, resident)` asserts the policy's
 * own bounds (ghosts, stacks) after each step. Shared by the product's tests and the lab's.
 */
export function checkPolicyInvariants(
  policy: PhysicalPoolOptions['replacementPolicy'],
  checkState: (pool: PhysicalPool, slots: number, resident: number) => void,
): void {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }),
      fc.array(fc.tuple(fc.nat(6), fc.nat(40), fc.boolean()), { maxLength: 400 }),
      (slots, ops) => {
        const pool = new PhysicalPool({ slotCount: slots, replacementPolicy: policy });
        let frame = 0;
        const usedNow = new Set<number>();
        for (const [op, p, flag] of ops) {
          const id = page(p);
          const s = pool.slotOf(id);
          if (op === 0) {
            frame++;
            usedNow.clear();
          } else if (op === 1 || op === 6) {
            const pinned = flag && op === 1 && pool.pinnedCount < slots - 1;
            const kept = new Set<number>();
            for (let q = 0; q < slots; q++) {
              if (pool.isPinned(q) || pool.isLocked(q)) kept.add(pool.slotPages[q]);
            }
            const got = pool.allocate(id, frame, pinned);
            const evicted = pool.lastEvictedPage;
            if (evicted !== NO_REQUEST) {
              // The victim was idle: not pinned, not locked, not used in this frame.
              expect(usedNow.has(evicted)).toBe(false);
              expect(kept.has(evicted)).toBe(false);
            }
            if (got >= 0) usedNow.add(id);
          } else if (op === 2 && s >= 0) {
            pool.touch(s, frame);
            usedNow.add(id);
          } else if (op === 3 && s >= 0 && !pool.isPinned(s)) {
            pool.release(s);
            usedNow.delete(id);
          } else if (op === 4 && s >= 0) {
            pool.setPinned(s, flag && pool.pinnedCount < slots - 1);
          } else if (op === 5 && s >= 0) {
            const pinnedBefore = pool.isPinned(s);
            pool.lock(s);
            const other = pool.allocate(page(p + 100), frame);
            expect(other).not.toBe(s);
            expect(pool.slotOf(id)).toBe(s);
            if (other >= 0) usedNow.add(page(p + 100));
            pool.unlock(s);
            expect(pool.isPinned(s)).toBe(pinnedBefore);
          }
          // Pinned pages never leave; every resident page maps to its slot.
          let resident = 0;
          for (let q = 0; q < slots; q++) {
            const held = pool.slotPages[q];
            if (held === NO_REQUEST) continue;
            resident++;
            expect(pool.slotOf(held)).toBe(q);
          }
          expect(resident).toBe(pool.residentCount);
          checkState(pool, slots, resident);
        }
      },
    ),
    { numRuns: 150 },
  );
}
