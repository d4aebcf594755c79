/** The HUD timeline's ring of samples and how a budget snapshot fills a sample (demo/hud/). */

import { describe, expect, it } from 'vitest';
import { MemoryHistory } from '../../../demo/hud/memory-history';
import { fillMemoryRow, MEMORY_SERIES } from '../../../demo/hud/memory-series';

describe('MemoryHistory', () => {
  it('keeps the last `capacity` samples oldest first, overwriting the oldest', () => {
    const history = new MemoryHistory(3, 2);
    for (let t = 0; t < 5; t++) {
      const row = history.push(t, 100 + t, t === 3 ? 500 : Number.NaN);
      row[0] = t;
      row[1] = 10 * t;
    }
    expect(history.count).toBe(3);
    expect([0, 1, 2].map((i) => history.timeAt(i))).toEqual([2, 3, 4]);
    expect([0, 1, 2].map((i) => history.budgetAt(i))).toEqual([102, 103, 104]);
    expect(history.valueAt(1, 1)).toBe(30);
    expect(history.stackedAt(2, 0)).toBe(4);
    expect(history.stackedAt(2, 1)).toBe(44);
    expect(Number.isNaN(history.naiveAt(0))).toBe(true);
    expect(history.naiveAt(1)).toBe(500);
    // The naive estimate is the largest figure held.
    expect(history.maxBytes()).toBe(500);
  });

  it('clears a reused row, and refuses sizes that are not positive integers', () => {
    const history = new MemoryHistory(1, 2);
    history.push(0, 1, Number.NaN).fill(7);
    expect([...history.push(1, 1, Number.NaN)]).toEqual([0, 0]);
    expect(() => new MemoryHistory(0, 2)).toThrow(RangeError);
    expect(() => new MemoryHistory(4, 1.5)).toThrow(RangeError);
  });
});

describe('fillMemoryRow', () => {
  it('splits streamed bytes by region tag and keeps the untagged rest, so the stack sums to the live bytes', () => {
    const byCategory = {
      'vt-pool': 40,
      'page-table': 2,
      feedback: 1,
      readback: 1,
      staging: 3,
      streamed: 30,
      other: 0,
    };
    const byTag = { '': 47, 'scene:valley': 20, 'scene:desert': 8 };
    const row = new Float64Array(MEMORY_SERIES.length);
    fillMemoryRow({ byCategory, byTag }, row);
    const at = (label: string) => row[MEMORY_SERIES.findIndex((s) => s.label === label)];
    expect(at('vt-pool')).toBe(40);
    expect(at('scene:valley')).toBe(20);
    expect(at('scene:desert')).toBe(8);
    expect(at('scene:snowfield')).toBe(0);
    expect(row[row.length - 1]).toBe(2);
    const live = Object.values(byCategory).reduce((a, b) => a + b, 0);
    expect(row.reduce((a, b) => a + b, 0)).toBe(live);
  });
});
