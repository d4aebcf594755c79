import { beforeAll, describe, expect, it } from 'vitest';
import {
  type BasisTranscoderModule,
  basisFormatOf,
  transcodedTileBytes,
  transcodeUastcTile,
} from '../../../src/three/transcode/uastc-transcode';
import { makePhotograph } from '../../browser/readme/photo-fixture';
import { TestTileSource } from '../../browser/vt/test-content';
import {
  bestPlanarFit,
  decodeEacAlpha,
  decodeEtc2Rgb,
  type Etc2Mode,
  etc1ErrorBound,
} from '../../support/etc2-decoder';
import { loadNodeBasisTranscoder } from '../../support/node-basis-transcoder';
import { encodeUastcBlocks } from '../../support/uastc-encoder';

/**
 * Issue #13: UASTC -> ETC2 RGBA8 reaches ~24 dB on the compressed-pool spec's analytic content
 * where BC7 and ASTC reach 35. These tests pin down why, on the transcoder's own output decoded by
 * an independent decoder (test/support/etc2-decoder.ts, from the specification), and compare it
 * with what the ETC2 format could hold at best on the same texels: the gap is the format's (and
 * the transcoder writing ETC1 modes only), not a wrong target, colour space, or alpha channel.
 */

const SIZE = 64;
let basis: BasisTranscoderModule;

beforeAll(async () => {
  basis = await loadNodeBasisTranscoder();
}, 60_000);

interface Etc2Figures {
  /** PSNR (dB, RGB) of UASTC itself (decoded to rgba8), of its ETC2 transcode, of the ETC1 bound, and of the best of ETC1 bound and planar per block. */
  uastc: number;
  etc2: number;
  etc1Bound: number;
  formatBound: number;
  modes: Partial<Record<Etc2Mode, number>>;
  /** PSNR (dB) of the EAC alpha channel (99 when exact). */
  alpha: number;
  sameAsEtc1: boolean;
}

const psnr = (squared: number, samples: number): number => 10 * Math.log10((255 * 255 * samples) / squared);

async function measure(rgba: Uint8Array): Promise<Etc2Figures> {
  const blocks = await encodeUastcBlocks(rgba, SIZE, SIZE, { srgb: true, quality: 1 });
  const decoded = new Uint8Array(transcodedTileBytes('rgba8', SIZE));
  transcodeUastcTile(basis, basisFormatOf(basis, 'rgba8'), 'rgba8', blocks, decoded, SIZE, true);
  const etc2 = new Uint8Array(transcodedTileBytes('etc2', SIZE));
  transcodeUastcTile(basis, basisFormatOf(basis, 'etc2'), 'etc2', blocks, etc2, SIZE, true);
  const etc1Format = (basis as unknown as { transcoder_texture_format: Record<string, { value: number }> })
    .transcoder_texture_format.cTFETC1_RGB.value;
  const etc1 = new Uint8Array((SIZE / 4) ** 2 * 8);
  transcodeUastcTile(basis, etc1Format, 'etc2', blocks, etc1, SIZE, true);

  const source = new Float64Array(48);
  const texels = new Float64Array(48);
  const planar = new Float64Array(48);
  const alpha = new Float64Array(16);
  const squared = { uastc: 0, etc2: 0, etc1Bound: 0, formatBound: 0 };
  const modes: Partial<Record<Etc2Mode, number>> = {};
  let alphaSquared = 0;
  let sameAsEtc1 = true;
  const perRow = SIZE / 4;
  for (let b = 0; b < perRow * perRow; b++) {
    const bx = b % perRow;
    const by = Math.floor(b / perRow);
    const mode = decodeEtc2Rgb(etc2, b * 16 + 8, texels);
    modes[mode] = (modes[mode] ?? 0) + 1;
    decodeEacAlpha(etc2, b * 16, alpha);
    for (let i = 0; i < 8; i++) if (etc2[b * 16 + 8 + i] !== etc1[b * 8 + i]) sameAsEtc1 = false;
    let etc2Error = 0;
    for (let t = 0; t < 16; t++) {
      const o = ((by * 4 + (t >> 2)) * SIZE + bx * 4 + (t & 3)) * 4;
      alphaSquared += (alpha[t] - rgba[o + 3]) ** 2;
      for (let c = 0; c < 3; c++) {
        source[t * 3 + c] = rgba[o + c];
        etc2Error += (texels[t * 3 + c] - rgba[o + c]) ** 2;
        squared.uastc += (decoded[o + c] - rgba[o + c]) ** 2;
      }
    }
    const etc1Error = etc1ErrorBound(source);
    squared.etc2 += etc2Error;
    squared.etc1Bound += etc1Error;
    squared.formatBound += Math.min(etc1Error, bestPlanarFit(source, planar));
  }
  const samples = SIZE * SIZE * 3;
  return {
    uastc: psnr(squared.uastc, samples),
    etc2: psnr(squared.etc2, samples),
    etc1Bound: psnr(squared.etc1Bound, samples),
    formatBound: psnr(squared.formatBound, samples),
    modes,
    alpha: alphaSquared === 0 ? 99 : psnr(alphaSquared, SIZE * SIZE),
    sameAsEtc1,
  };
}

/** The top-left SIZE² of the spec's analytic content (mip 1, page 9,4): opaque. */
async function analyticTile(): Promise<Uint8Array> {
  const source = new TestTileSource({ widthPages: 32, heightPages: 32, tileSize: SIZE, border: 4 });
  return (await source.load(1, 9, 4, new AbortController().signal)).layers[0];
}

/** A SIZE² crop of the README test's generated photograph (not tuned on), with a varying alpha. */
async function photographTile(): Promise<Uint8Array> {
  const path = 'test-results/etc2-quality/photo.png';
  await makePhotograph(path, 256, 256);
  const { default: sharp } = await import('sharp');
  const raw = await sharp(path)
    .extract({ left: 96, top: 128, width: SIZE, height: SIZE })
    .ensureAlpha()
    .raw()
    .toBuffer();
  const rgba = new Uint8Array(raw);
  for (let i = 0; i < SIZE * SIZE; i++) rgba[i * 4 + 3] = 128 + ((i % SIZE) + Math.floor(i / SIZE)) * 1;
  return rgba;
}

describe('UASTC -> ETC2 RGBA8 quality (#13)', () => {
  it('a grey ramp decodes near-losslessly (the reference decoder is right)', async () => {
    const rgba = new Uint8Array(SIZE * SIZE * 4);
    for (let i = 0; i < SIZE * SIZE; i++) {
      const v = 40 + ((i % SIZE) + Math.floor(i / SIZE)) * 1.4;
      rgba.fill(v, i * 4, i * 4 + 3);
      rgba[i * 4 + 3] = 255;
    }
    const figures = await measure(rgba);
    expect(figures.etc2).toBeGreaterThan(44);
    expect(figures.alpha).toBe(99);
  }, 30_000);

  it('analytic content: the transcoder writes ETC1 modes only, and no ETC1 or planar block reaches 35 dB', async () => {
    const figures = await measure(await analyticTile());
    console.log('analytic', JSON.stringify(figures));
    // The target is ETC2 RGBA8 = EAC alpha + the transcoder's ETC1 block, byte for byte.
    expect(figures.sameAsEtc1).toBe(true);
    expect(Object.keys(figures.modes).sort()).toEqual(['differential', 'individual']);
    // Opaque alpha decodes exactly: no alpha or sRGB mix-up in the colour error.
    expect(figures.alpha).toBe(99);
    // UASTC itself holds the content (decoded ~34 dB here; the spec's frame adds filtering).
    expect(figures.uastc).toBeGreaterThan(32);
    // The transcoder is within 2.5 dB of the best ETC1 block on each half (measured 1.5 dB)...
    expect(figures.etc2).toBeGreaterThan(figures.etc1Bound - 2.5);
    // ...and even the best of ETC1 and ETC2's planar mode per block stays far below 35 dB
    // (measured ~29.7): red along x and green along y, independent at 11-13 texel periods.
    expect(figures.etc1Bound).toBeLessThan(26);
    expect(figures.formatBound).toBeLessThan(32);
  }, 60_000);

  it('a photograph (not tuned on): the same ETC1-only output, alpha kept by EAC', async () => {
    const figures = await measure(await photographTile());
    console.log('photograph', JSON.stringify(figures));
    expect(figures.sameAsEtc1).toBe(true);
    expect(figures.modes.t ?? 0).toBe(0);
    expect(figures.modes.h ?? 0).toBe(0);
    expect(figures.modes.planar ?? 0).toBe(0);
    expect(figures.etc2).toBeGreaterThan(figures.etc1Bound - 2.5);
    expect(figures.formatBound).toBeLessThan(figures.uastc);
    expect(figures.alpha).toBeGreaterThan(38);
  }, 60_000);
});
