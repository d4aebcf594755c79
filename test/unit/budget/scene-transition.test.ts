import { describe, expect, it } from 'vitest';
import { simulateTransition } from '../../../bench/budget.bench';

describe('SceneTransition', () => {
  it('load-while-release stays within the budget and max(A, B) + 10% of the budget', () => {
    const f = simulateTransition('load-while-release');
    expect(f.framesToReady).toBeGreaterThan(0);
    expect(f.peak).toBeLessThanOrEqual(f.budget);
    expect(f.peak).toBeLessThanOrEqual(f.rule);
  });

  it('the naive order peaks higher (it holds both scenes at once)', () => {
    const ours = simulateTransition('load-while-release');
    const naive = simulateTransition('naive');
    expect(naive.peak).toBeLessThanOrEqual(naive.budget);
    expect(naive.peak).toBeGreaterThan(ours.peak);
    expect(naive.peak).toBeGreaterThan(ours.rule);
  });

  it('holds the rule under a tight budget too', () => {
    const f = simulateTransition('load-while-release', 96 << 20);
    expect(f.peak).toBeLessThanOrEqual(f.budget);
    expect(f.peak).toBeLessThanOrEqual(f.rule);
  });
});
