import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { MipBiasController } from '../../../src/core/vt/feedback/mip-bias-controller';

describe('MipBiasController', () => {
  it('rises when oversubscribed, holds in the band, falls when room returns, clamps', () => {
    const c = new MipBiasController();
    c.update(200, 100);
    expect(c.bias).toBeCloseTo(0.2 * (2 - 0.95));
    for (let i = 0; i < 100; i++) c.update(10_000, 100);
    expect(c.bias).toBe(4);
    const held = c.bias;
    c.update(85, 100);
    expect(c.bias).toBe(held);
    c.update(10, 100);
    expect(c.bias).toBeLessThan(held);
    for (let i = 0; i < 1000; i++) c.update(0, 100);
    expect(c.bias).toBe(0);
  });

  it('rejects an inverted band', () => {
    expect(() => new MipBiasController({ lowerBelow: 0.99, raiseAbove: 0.9 })).toThrow(TesseraConfigError);
  });
});
