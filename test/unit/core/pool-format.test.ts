import { describe, expect, it } from 'vitest';
import { TesseraConfigError } from '../../../src/core/errors';
import {
  type CompressionSupport,
  choosePoolFormat,
  isTwoChannelFormat,
  slotBytesOfFormats,
} from '../../../src/core/vt/residency/pool-format';
import { tileLayerBytes } from '../../../src/core/vt/tile-bytes';
import { planVirtualTextureBudget } from '../../../src/core/vt/vt-budget-plan';

const ALL: CompressionSupport = new Set(['bc7', 'bc5', 'astc', 'etc2', 'eac-rg11']);
const MOBILE: CompressionSupport = new Set(['astc', 'etc2', 'eac-rg11']);
const ETC_ONLY: CompressionSupport = new Set(['etc2', 'eac-rg11']);
const NONE: CompressionSupport = new Set();

describe('choosePoolFormat', () => {
  it('picks BC7 > ASTC > ETC2 > rgba8 for colour, sRGB when the encoding is', () => {
    expect(choosePoolFormat('uastc-4x4-srgb', 'color', ALL).format).toBe('bc7-rgba-unorm-srgb');
    expect(choosePoolFormat('uastc-4x4', 'color', ALL).format).toBe('bc7-rgba-unorm');
    expect(choosePoolFormat('uastc-4x4-srgb', 'color', MOBILE).format).toBe('astc-4x4-unorm-srgb');
    expect(choosePoolFormat('uastc-4x4-srgb', 'color', ETC_ONLY).format).toBe('etc2-rgba8unorm-srgb');
    const none = choosePoolFormat('uastc-4x4-srgb', 'color', NONE);
    expect(none).toEqual({ target: 'rgba8', format: 'rgba8unorm-srgb', fellBack: true });
  });

  it('picks BC5 > EAC RG11 > BC7 > ASTC > rgba8 for normals, always linear', () => {
    expect(choosePoolFormat('uastc-4x4', 'normal', ALL).format).toBe('bc5-rg-unorm');
    expect(choosePoolFormat('uastc-4x4-srgb', 'normal', MOBILE).format).toBe('eac-rg11unorm');
    expect(choosePoolFormat('uastc-4x4', 'normal', new Set(['bc7'])).format).toBe('bc7-rgba-unorm');
    expect(choosePoolFormat('uastc-4x4', 'normal', new Set(['astc'])).format).toBe('astc-4x4-unorm');
    expect(choosePoolFormat('uastc-4x4', 'normal', NONE).format).toBe('rgba8unorm');
  });

  it('keeps rgba8 layers rgba8 and never calls that a fallback', () => {
    expect(choosePoolFormat('rgba8unorm-srgb', 'color', ALL)).toEqual({
      target: 'rgba8',
      format: 'rgba8unorm-srgb',
      fellBack: false,
    });
  });

  it('honours a forced target and refuses one the device lacks, or one that loses channels', () => {
    expect(choosePoolFormat('uastc-4x4-srgb', 'color', ALL, 'etc2').format).toBe('etc2-rgba8unorm-srgb');
    expect(choosePoolFormat('uastc-4x4-srgb', 'color', NONE, 'rgba8').fellBack).toBe(false);
    expect(() => choosePoolFormat('uastc-4x4', 'color', MOBILE, 'bc7')).toThrow(TesseraConfigError);
    expect(() => choosePoolFormat('uastc-4x4', 'color', ALL, 'bc5')).toThrow(/red and green/);
    expect(() => choosePoolFormat('rgba8unorm', 'color', ALL, 'bc7')).toThrow(/UASTC layer/);
    expect(() => choosePoolFormat('uastc-4x4', 'color', ALL, 'dxt1' as never)).toThrow(/unknown/);
  });

  it('marks the two-channel formats', () => {
    expect(isTwoChannelFormat('bc5-rg-unorm')).toBe(true);
    expect(isTwoChannelFormat('eac-rg11unorm')).toBe(true);
    expect(isTwoChannelFormat('bc7-rgba-unorm')).toBe(false);
  });
});

describe('block sizes', () => {
  it('sizes a 128² tile with its border as 32 x 32 blocks: 16 KiB in 4x4 formats, 64 KiB in rgba8', () => {
    expect(tileLayerBytes('uastc-4x4', 128)).toBe(16384);
    for (const format of [
      'bc7-rgba-unorm-srgb',
      'astc-4x4-unorm',
      'etc2-rgba8unorm',
      'bc5-rg-unorm',
      'eac-rg11unorm',
    ] as const) {
      expect(tileLayerBytes(format, 128)).toBe(16384);
    }
    expect(tileLayerBytes('rgba8unorm-srgb', 128)).toBe(65536);
  });

  it('gives a block-compressed pool 4x the slots of an rgba8 one in the same budget', () => {
    const input = {
      shareBytes: 64 << 20,
      capacityBytes: 64 << 20,
      tileSize: 128,
      layerCount: 1,
      feedbackWidth: 80,
      feedbackHeight: 60,
      readbackRowAlignment: 256,
      readbacksInFlight: 3,
      pageTableBytes: 1 << 20,
      stagingBytes: 0,
      minPoolSlots: 21,
      maxTextureSize: 8192,
      maxArrayLayers: 256,
    };
    const rgba = planVirtualTextureBudget(input);
    const bc7 = planVirtualTextureBudget({
      ...input,
      slotBytes: slotBytesOfFormats([{ target: 'bc7', format: 'bc7-rgba-unorm-srgb', fellBack: false }], 128),
    });
    const slots = (plan: typeof rgba) => plan.poolBytes / plan.slotBytes;
    expect(bc7.slotBytes).toBe(16384);
    expect(slots(bc7)).toBeGreaterThanOrEqual(4 * slots(rgba) - 4 * 64);
    expect(bc7.poolBytes).toBeLessThanOrEqual(input.shareBytes - bc7.fixedBytes);
  });
});
