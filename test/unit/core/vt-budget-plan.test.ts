import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import { poolSlotCount } from '../../../src/core/vt/residency/pool-shape';
import {
  feedbackTargetBytes,
  fitFeedbackSize,
  planVirtualTextureBudget,
  readbackRingBytes,
  type VirtualTextureBudgetInput,
} from '../../../src/core/vt/vt-budget-plan';

const input = (overrides: Partial<VirtualTextureBudgetInput> = {}): VirtualTextureBudgetInput => ({
  shareBytes: 64 << 20,
  capacityBytes: 64 << 20,
  tileSize: 128,
  layerCount: 2,
  feedbackWidth: 80,
  feedbackHeight: 45,
  readbackRowAlignment: 256,
  readbacksInFlight: 3,
  pageTableBytes: 4 << 20,
  stagingBytes: 1 << 20,
  minPoolSlots: 21,
  maxTextureSize: 8192,
  maxArrayLayers: 256,
  ...overrides,
});

describe('planVirtualTextureBudget', () => {
  it('reserves feedback, readback and page tables, and gives the rest to the pool', () => {
    const plan = planVirtualTextureBudget(input());
    expect(plan.feedbackBytes).toBe(80 * 45 * 8);
    // 80 RGBA8 pixels = 320 bytes per row, padded to 512 for copyTextureToBuffer.
    expect(plan.readbackBytes).toBe(512 * 45 * 3);
    expect(plan.slotBytes).toBe(128 * 128 * 4 * 2);
    expect(plan.stagingBytes).toBe(1 << 20);
    expect(plan.fixedBytes).toBe(plan.feedbackBytes + plan.readbackBytes + (4 << 20) + (1 << 20));
    expect(plan.poolBytes).toBe(poolSlotCount(plan.poolShape) * plan.slotBytes);
    expect(plan.fixedBytes + plan.poolBytes).toBeLessThanOrEqual(64 << 20);
    // Nearly all of the rest: less than one row of slots is left over.
    expect((64 << 20) - plan.fixedBytes - plan.poolBytes).toBeLessThan(
      plan.slotBytes * plan.poolShape.slotsPerRow,
    );
  });

  it('refuses a capacity below the fixed bytes plus the fewest slots, naming the parts', () => {
    const tiny = input({ shareBytes: 5 << 20, capacityBytes: 5 << 20 });
    expect(() => planVirtualTextureBudget(tiny)).toThrow(TesseraConfigError);
    expect(() => planVirtualTextureBudget(tiny)).toThrow(
      /feedback 28800, readback 69120, page tables 4194304, staging 1048576/,
    );
  });

  it('never plans more than the share (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8 << 20, max: 1 << 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 8 << 20 }),
        (share, layers, fw, fh, staging) => {
          const i = input({
            shareBytes: share,
            capacityBytes: share,
            layerCount: layers,
            feedbackWidth: fw,
            feedbackHeight: fh,
            pageTableBytes: 1 << 20,
            stagingBytes: staging,
          });
          let plan: ReturnType<typeof planVirtualTextureBudget>;
          try {
            plan = planVirtualTextureBudget(i);
          } catch (error) {
            // Refused only when the fixed bytes and the fewest slots do not fit, or the slot grid
            // (whole rows) holds fewer than the fewest slots.
            expect(error).toMatchObject({ code: 'budget-too-small' });
            const fixed = fw * fh * 8 + Math.ceil((fw * 4) / 256) * 256 * fh * 3 + (1 << 20) + staging;
            const slotBytes = 128 * 128 * 4 * layers;
            const slots = Math.floor((share - fixed) / slotBytes);
            const rowsLose =
              slots - Math.ceil(Math.sqrt(slots)) * Math.floor(slots / Math.ceil(Math.sqrt(slots)));
            expect(fixed + 21 * slotBytes > share || slots - rowsLose < 21).toBe(true);
            return;
          }
          expect(plan.fixedBytes + plan.poolBytes).toBeLessThanOrEqual(share);
          expect(poolSlotCount(plan.poolShape)).toBeGreaterThanOrEqual(21);
        },
      ),
    );
  });
});

describe('fitFeedbackSize', () => {
  it('keeps a size that fits, and shrinks one that does not to fit both reservations', () => {
    const out = { width: 0, height: 0 };
    const target = feedbackTargetBytes(160, 90);
    const ring = readbackRingBytes(160, 90, 256, 3);
    expect(fitFeedbackSize(160, 90, target, ring, 256, 3, out)).toEqual({ width: 160, height: 90 });
    const small = fitFeedbackSize(
      160,
      90,
      feedbackTargetBytes(80, 45),
      readbackRingBytes(80, 45, 256, 3),
      256,
      3,
      out,
    );
    expect(feedbackTargetBytes(small.width, small.height)).toBeLessThanOrEqual(feedbackTargetBytes(80, 45));
    expect(readbackRingBytes(small.width, small.height, 256, 3)).toBeLessThanOrEqual(
      readbackRingBytes(80, 45, 256, 3),
    );
    // About the aspect of the wanted size, not a sliver.
    expect(small.width / small.height).toBeGreaterThan(1.5);
    expect(small.width).toBeGreaterThanOrEqual(70);
  });

  it('always fits, down to 1 x 1 (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 8, max: 4 << 20 }),
        fc.integer({ min: 3 * 256, max: 4 << 20 }),
        (w, h, maxTarget, maxRing) => {
          const r = fitFeedbackSize(w, h, maxTarget, maxRing, 256, 3, { width: 0, height: 0 });
          expect(r.width).toBeGreaterThanOrEqual(1);
          expect(r.height).toBeGreaterThanOrEqual(1);
          expect(r.width).toBeLessThanOrEqual(w);
          expect(r.height).toBeLessThanOrEqual(h);
          const fits =
            feedbackTargetBytes(r.width, r.height) <= maxTarget &&
            readbackRingBytes(r.width, r.height, 256, 3) <= maxRing;
          expect(fits || (r.width === 1 && r.height === 1)).toBe(true);
        },
      ),
    );
  });
});
