import { describe, expect, it } from 'vitest';
import { TesseraConfigError, TesseraError } from '../../../src/core/errors';
import { TextureBudget } from '../../../src/core/index';

describe('TextureBudget.shrink', () => {
  it('lowers a reservation in place: same handle, category figures follow, queued requests get the room', async () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const pool = budget.reserve('vt-pool', 800);
    const waiting = budget.reserveWhenRoom('streamed', 500);
    budget.shrink(pool, 300);
    expect(budget.bytesOf(pool)).toBe(300);
    expect(budget.stats().byCategory['vt-pool']).toBe(300);
    const handle = await waiting;
    expect(budget.bytesOf(handle)).toBe(500);
    expect(budget.liveBytes).toBe(800);
    budget.release(pool);
    expect(budget.liveBytes).toBe(500);
  });

  it('refuses growth and bad sizes with a typed error, changing nothing', () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const pool = budget.reserve('vt-pool', 400);
    expect(() => budget.shrink(pool, 401)).toThrow(TesseraConfigError);
    expect(() => budget.shrink(pool, -1)).toThrow(TesseraConfigError);
    expect(() => budget.shrink(pool, 1.5)).toThrow(TesseraConfigError);
    expect(budget.bytesOf(pool)).toBe(400);
    budget.release(pool);
    expect(() => budget.shrink(pool, 0)).toThrow(TesseraError);
  });
});

describe('TextureBudget.tryGrow', () => {
  it('raises a reservation in place when it fits, shedding lower priorities, else changes nothing', () => {
    const budget = new TextureBudget({ budgetBytes: 1000 });
    const pool = budget.reserve('vt-pool', 200, undefined, 80);
    let shed = 0;
    const streamed = budget.reserve('streamed', 500, undefined, 10);
    budget.addShedder({
      priority: 10,
      shed: () => {
        if (shed++ === 0) budget.release(streamed);
      },
    });
    expect(budget.tryGrow(pool, 700, 80)).toBe(true);
    expect(budget.bytesOf(pool)).toBe(700);
    expect(shed).toBe(1);
    expect(budget.liveBytes).toBe(700);
    expect(budget.peakBytes).toBe(700);
    expect(budget.tryGrow(pool, 1001, 80)).toBe(false);
    expect(budget.bytesOf(pool)).toBe(700);
    expect(() => budget.tryGrow(pool, 10)).toThrow(TesseraConfigError);
  });
});
