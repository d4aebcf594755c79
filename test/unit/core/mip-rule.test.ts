import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  anisotropicTaps,
  FINE_MIP_SLACK,
  type FilterMode,
  mipRule,
  requestedMip,
  trilinearBlend,
} from '../../../src/core/vt/feedback/mip-rule';

/** The mips the sampler of `mode` reads with a weight above 0 at `lambda` (clamped to 0..maxMip). */
function mipsRead(mode: FilterMode, lambda: number, maxMip: number): number[] {
  const l = Math.min(Math.max(lambda, 0), maxMip);
  if (mode === 'bilinear') return [Math.min(maxMip, Math.max(0, Math.floor(lambda + 0.5)))];
  const fine = Math.floor(l);
  const coarse = Math.min(fine + 1, maxMip);
  const blend = trilinearBlend(l - fine);
  const read: number[] = [];
  if (blend < 1) read.push(fine);
  if (blend > 0 && coarse !== fine) read.push(coarse);
  return read;
}

describe('the mip rule', () => {
  it('requests exactly the finest mip each sampler reads: never finer, and the rest are its ancestors (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<FilterMode>('bilinear', 'trilinear', 'anisotropic'),
        fc.double({ min: -3, max: 14, noNaN: true }),
        fc.integer({ min: 0, max: 12 }),
        (mode, lambda, maxMip) => {
          const request = requestedMip(mipRule(mode, 8), lambda, maxMip);
          const read = mipsRead(mode, lambda, maxMip);
          expect(read.length).toBeGreaterThan(0);
          // No request finer than what is read; everything read is the request or coarser (an ancestor).
          expect(request).toBe(Math.min(...read));
        },
      ),
    );
  });

  it('does not flip with float noise at integer lambdas', () => {
    const rule = mipRule('trilinear', 1);
    for (const noise of [-1e-4, -1e-6, 0, 1e-6, 1e-4]) expect(requestedMip(rule, 2 + noise, 10)).toBe(2);
    // The fine mip still counts once it weighs more than nothing.
    expect(requestedMip(rule, 2 - 2 * FINE_MIP_SLACK, 10)).toBe(1);
  });

  it('blends continuously and reaches the coarser mip one slack before it', () => {
    expect(trilinearBlend(0)).toBe(0);
    expect(trilinearBlend(0.5)).toBe(0.5);
    expect(trilinearBlend(1 - FINE_MIP_SLACK)).toBe(1);
    for (let f = 0; f < 1; f += 1 / 1024) {
      expect(trilinearBlend(f + 1 / 1024) - trilinearBlend(f)).toBeLessThanOrEqual(2 / 1024 + 1e-12);
      expect(trilinearBlend(f)).toBeGreaterThanOrEqual(f);
    }
  });

  it('uses the anisotropic footprint only in anisotropic mode', () => {
    expect(mipRule('anisotropic', 8).anisotropy).toBe(8);
    // Capped at the taps the sampler takes, so the requested mip is what the taps cover.
    expect(mipRule('anisotropic', 16).anisotropy).toBe(8);
    expect(anisotropicTaps(mipRule('anisotropic', 2.5))).toBe(3);
    expect(mipRule('trilinear', 8).anisotropy).toBe(1);
    expect(mipRule('bilinear', 8)).toMatchObject({ anisotropy: 1, requestOffset: 0.5, blends: false });
  });
});
