import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError, type TesseraError } from '../../../src/core/errors';
import { BudgetPriority, NO_RESERVATION, TextureBudget } from '../../../src/core/index';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as TesseraError).code;
  }
  return undefined;
}

describe('TextureBudget', () => {
  it('refuses a budget below the pinned minimum at construction', () => {
    expect(() => new TextureBudget({ budgetBytes: 100, pinnedMinimumBytes: 101 })).toThrow(
      TesseraConfigError,
    );
    expect(codeOf(() => new TextureBudget({ budgetBytes: 100, pinnedMinimumBytes: 101 }))).toBe(
      'budget-too-small',
    );
    expect(codeOf(() => new TextureBudget({ budgetBytes: -5 }))).toBe('invalid-size');
  });

  it('accounts by category and tag and never admits past the budget', () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const scene = budget.tags.intern('scene:a');
    const a = budget.reserve('vt-pool', 600);
    const b = budget.reserve('streamed', 300, scene);
    expect(budget.tryReserve('other', 101)).toBe(NO_RESERVATION);
    expect(codeOf(() => budget.reserve('other', 101))).toBe('over-budget');
    const stats = budget.stats();
    expect(stats.liveBytes).toBe(900);
    expect(stats.byCategory['vt-pool']).toBe(600);
    expect(stats.byCategory.streamed).toBe(300);
    expect(stats.byTag['scene:a']).toBe(300);
    budget.release(b);
    expect(budget.stats().byTag['scene:a']).toBeUndefined();
    budget.release(a);
    expect(budget.liveBytes).toBe(0);
  });

  it('types double and unknown releases', () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const a = budget.reserve('other', 10);
    budget.release(a);
    expect(codeOf(() => budget.release(a))).toBe('released-twice');
    const b = budget.reserve('other', 10); // reuses the slot with a new generation
    expect(codeOf(() => budget.release(a))).toBe('released-twice');
    expect(codeOf(() => budget.release(123456789))).toBe('unknown-handle');
    expect(codeOf(() => budget.release(-1))).toBe('unknown-handle');
    budget.release(b);
  });

  it('counts old and new at once during a resize', () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const a = budget.reserve('streamed', 400);
    expect(budget.resize(a, 700)).toBe(NO_RESERVATION); // 400 + 700 > 1000
    expect(budget.bytesOf(a)).toBe(400);
    const b = budget.resize(a, 600);
    expect(b).not.toBe(NO_RESERVATION);
    expect(budget.peakBytes).toBe(1000);
    expect(budget.liveBytes).toBe(600);
  });

  it('asks lower-priority shedders only, lowest priority first', () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const order: string[] = [];
    const low = [budget.reserve('streamed', 300), budget.reserve('streamed', 300)];
    const mid = budget.reserve('staging', 300);
    budget.addShedder({
      priority: 40,
      shed: () => {
        order.push('mid');
        budget.release(mid);
      },
    });
    budget.addShedder({
      priority: 10,
      shed: (bytes) => {
        order.push(`low:${bytes}`);
        const handle = low.pop();
        if (handle !== undefined) budget.release(handle);
      },
    });
    // needs 200 more: the low shedder frees 300, enough.
    budget.reserve('vt-pool', 300, 0, BudgetPriority.infrastructure);
    expect(order).toEqual(['low:200']);
    // A priority-20 request may not take from the priority-40 shedder.
    expect(budget.tryReserve('other', 500, 0, 20)).toBe(NO_RESERVATION);
    expect(order).toEqual(['low:200', 'low:400']);
    budget.reserve('other', 500, 0, 90);
    expect(order.at(-1)).toBe('mid');
  });

  it('queues waiting requests and grants them in order when room appears', async () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const a = budget.reserve('other', 900);
    const granted: number[] = [];
    const first = budget.reserveWhenRoom('other', 500).then((h) => granted.push(1) && h);
    const second = budget.reserveWhenRoom('other', 100).then((h) => granted.push(2) && h);
    // a small sync request may not jump the queue
    expect(budget.tryReserve('other', 50)).toBe(NO_RESERVATION);
    expect(budget.stats().pendingRequests).toBe(2);
    budget.release(a);
    await Promise.all([first, second]);
    expect(granted).toEqual([1, 2]);
    expect(budget.liveBytes).toBe(600);
    await expect(budget.reserveWhenRoom('other', 2000)).rejects.toMatchObject({ code: 'over-budget' });
  });

  it('sheds a lowered budget progressively within maxShedFrames', () => {
    const budget = new TextureBudget({ budgetBytes: 1600, shedBytesPerFrame: 10, maxShedFrames: 4 });
    const handles: number[] = [];
    for (let i = 0; i < 16; i++) handles.push(budget.reserve('streamed', 100));
    budget.addShedder({
      priority: BudgetPriority.streamedMips,
      shed: (bytes) => {
        for (let freed = 0; freed < bytes && handles.length > 0; freed += 100) budget.release(handles.pop()!);
      },
    });
    budget.setBudget(800);
    expect(budget.tryReserve('other', 1, 0, 5)).toBe(NO_RESERVATION); // admission uses the new figure at once
    const live: number[] = [];
    for (let frame = 0; frame < 4; frame++) {
      budget.update();
      live.push(budget.liveBytes);
    }
    expect(live).toEqual([1400, 1200, 1000, 800]);
    expect(codeOf(() => budget.setBudget(10))).toBe(undefined);
    const pinned = new TextureBudget({ budgetBytes: 1000, pinnedMinimumBytes: 500 });
    expect(codeOf(() => pinned.setBudget(499))).toBe('budget-too-small');
    pinned.reserve('streamed', 600, 0, BudgetPriority.pinned);
    expect(codeOf(() => pinned.setBudget(550))).toBe('budget-too-small');
  });

  it('property: live bytes never pass the admission limit; cuts finish within maxShedFrames', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('reserve' as const),
        bytes: fc.integer({ min: 0, max: 400 }),
        priority: fc.integer({ min: 0, max: 99 }),
      }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({
        kind: fc.constant('resize' as const),
        pick: fc.nat(),
        bytes: fc.integer({ min: 0, max: 400 }),
      }),
      fc.record({ kind: fc.constant('budget' as const), bytes: fc.integer({ min: 200, max: 3000 }) }),
      fc.record({ kind: fc.constant('frame' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const budget = new TextureBudget({ budgetBytes: 1500, maxShedFrames: 3, shedBytesPerFrame: 1 });
        const handles: number[] = [];
        budget.addShedder({
          priority: 5,
          shed: (bytes) => {
            let freed = 0;
            while (freed < bytes && handles.length > 0) {
              const h = handles.shift()!;
              freed += budget.bytesOf(h);
              budget.release(h);
            }
          },
        });
        let framesSinceCut = Number.POSITIVE_INFINITY;
        for (const o of ops) {
          const before = budget.liveBytes;
          if (o.kind === 'reserve') {
            const h = budget.tryReserve('other', o.bytes, 0, o.priority);
            if (h !== NO_RESERVATION) {
              handles.push(h);
              expect(budget.liveBytes).toBeLessThanOrEqual(budget.budgetBytes);
            }
          } else if (o.kind === 'release' && handles.length > 0) {
            budget.release(handles.splice(o.pick % handles.length, 1)[0]);
          } else if (o.kind === 'resize' && handles.length > 0) {
            // the reservation being resized is not offered to the shedder meanwhile
            const old = handles.splice(o.pick % handles.length, 1)[0];
            const h = budget.resize(old, o.bytes);
            handles.push(h === NO_RESERVATION ? old : h);
          } else if (o.kind === 'budget') {
            budget.setBudget(o.bytes);
            framesSinceCut = 0;
          } else if (o.kind === 'frame') {
            budget.update();
            framesSinceCut++;
          }
          // Live bytes never grow while over budget, and never exceed it once a cut has had its frames.
          if (budget.liveBytes > budget.budgetBytes) expect(budget.liveBytes).toBeLessThanOrEqual(before);
          if (framesSinceCut >= 3) expect(budget.liveBytes).toBeLessThanOrEqual(budget.budgetBytes);
          expect(budget.peakBytes).toBeLessThanOrEqual(
            Math.max(1500, ...ops.filter((x) => x.kind === 'budget').map((x) => x.bytes)),
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
