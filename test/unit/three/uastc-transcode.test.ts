import { beforeAll, describe, expect, it } from 'vitest';
import { UASTC_TARGETS, type UastcTarget } from '../../../src/core/vt/residency/pool-format';
import type { Ktx2File } from '../../../src/sources/bake/ktx2-texture-decoder';
import {
  type BasisTranscoderModule,
  basisFormatOf,
  transcodedTileBytes,
  transcodeUastcTile,
} from '../../../src/three/transcode/uastc-transcode';
import { loadNodeBasisTranscoder } from '../../support/node-basis-transcoder';
import { decodeBc4, decodeEacR11, psnrOf } from '../../support/two-channel-decoders';
import { encodeUastcKtx2, uastcBlocksOf } from '../../support/uastc-encoder';

/** A 128² tile of smooth and sharp detail with a varying alpha (so the file says it has alpha). */
function fixtureImage(size: number): Uint8Array {
  const rgba = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const o = (y * size + x) * 4;
      rgba[o] = Math.round(128 + 100 * Math.sin((2 * Math.PI * x) / 13));
      rgba[o + 1] = Math.round(128 + 100 * Math.sin((2 * Math.PI * y) / 11));
      rgba[o + 2] = (x * 2 + y) & 255;
      rgba[o + 3] = 128 + ((x + y) & 127);
    }
  }
  return rgba;
}

let basis: BasisTranscoderModule;
let ktx2: Uint8Array;
let blocks: Uint8Array;
const SIZE = 128;

beforeAll(async () => {
  basis = await loadNodeBasisTranscoder();
  ktx2 = await encodeUastcKtx2(fixtureImage(SIZE), SIZE, SIZE, { srgb: true, quality: 0 });
  blocks = uastcBlocksOf(ktx2);
}, 60_000);

/** What three's KTX2Loader does per level (its BasisWorker: KTX2File.transcodeImage, flags 0, channels -1). */
function ktx2LoaderBlocks(target: UastcTarget): Uint8Array {
  const KTX2File = (basis as unknown as { KTX2File: new (data: Uint8Array) => Ktx2File }).KTX2File;
  const file = new KTX2File(ktx2);
  expect(file.getHasAlpha()).toBe(true);
  expect(file.startTranscoding()).toBeTruthy();
  const format = basisFormatOf(basis, target);
  const dst = new Uint8Array(file.getImageTranscodedSizeInBytes(0, 0, 0, format));
  expect(file.transcodeImage(dst, 0, 0, 0, format, 0, -1, -1)).toBeTruthy();
  file.close();
  file.delete();
  return dst;
}

describe('UASTC tile transcoding (three’s Basis transcoder)', () => {
  it('is bit-identical to what KTX2Loader produces for the same blocks (BC7, ASTC 4x4, ETC2, rgba8)', () => {
    expect(blocks.byteLength).toBe((SIZE / 4) ** 2 * 16);
    for (const target of ['bc7', 'astc', 'etc2', 'rgba8'] as const) {
      const out = new Uint8Array(transcodedTileBytes(target, SIZE));
      expect(transcodeUastcTile(basis, basisFormatOf(basis, target), target, blocks, out, SIZE, true)).toBe(
        true,
      );
      const reference = ktx2LoaderBlocks(target);
      expect(reference.byteLength).toBe(out.byteLength);
      expect(Buffer.compare(Buffer.from(out), Buffer.from(reference)), target).toBe(0);
    }
  });

  it('keeps red and green (a normal’s x and y) in BC5 and EAC RG11, not the transcoder’s red and alpha', () => {
    const rgba = new Uint8Array(transcodedTileBytes('rgba8', SIZE));
    transcodeUastcTile(basis, basisFormatOf(basis, 'rgba8'), 'rgba8', blocks, rgba, SIZE, true);
    // The fixture's alpha differs from its green: red+alpha blocks would miss green badly.
    const redAlpha = rgba.slice();
    for (let i = 0; i < redAlpha.length; i += 4) redAlpha[i + 1] = redAlpha[i + 3];
    for (const [target, decode] of [
      ['bc5', decodeBc4],
      ['eac-rg11', decodeEacR11],
    ] as const) {
      const out = new Uint8Array(transcodedTileBytes(target, SIZE));
      expect(transcodeUastcTile(basis, basisFormatOf(basis, target), target, blocks, out, SIZE, false)).toBe(
        true,
      );
      expect(psnrOf(rgba, SIZE, out, decode), target).toBeGreaterThan(38);
      expect(psnrOf(redAlpha, SIZE, out, decode), target).toBeLessThan(25);
    }
  });

  it('transcodes a normal map stored with y in alpha straight to BC5 and EAC RG11 (x, y in red, green)', () => {
    const rgba = new Uint8Array(transcodedTileBytes('rgba8', SIZE));
    transcodeUastcTile(basis, basisFormatOf(basis, 'rgba8'), 'rgba8', blocks, rgba, SIZE, true);
    // The fixture's red and alpha are what these blocks carry as x and y.
    const xy = rgba.slice();
    for (let i = 0; i < xy.length; i += 4) xy[i + 1] = xy[i + 3];
    for (const [target, decode] of [
      ['bc5', decodeBc4],
      ['eac-rg11', decodeEacR11],
    ] as const) {
      const out = new Uint8Array(transcodedTileBytes(target, SIZE));
      const format = basisFormatOf(basis, target);
      expect(transcodeUastcTile(basis, format, target, blocks, out, SIZE, true, true)).toBe(true);
      expect(psnrOf(xy, SIZE, out, decode), target).toBeGreaterThan(38);
      // What the transcoder writes itself, no decode and re-encode in between.
      const direct = new Uint8Array(out.length);
      expect(
        basis.transcodeUASTCImage(
          format,
          direct,
          (SIZE / 4) ** 2,
          blocks,
          SIZE / 4,
          SIZE / 4,
          SIZE,
          SIZE,
          0,
          0,
          blocks.length,
          0,
          true,
          false,
          0,
          0,
          -1,
          -1,
        ),
      ).toBe(true);
      expect(Buffer.compare(Buffer.from(out), Buffer.from(direct)), target).toBe(0);
    }
  });

  it('knows every target and sizes its output', () => {
    for (const target of UASTC_TARGETS) expect(basisFormatOf(basis, target)).toBeGreaterThanOrEqual(0);
    expect(transcodedTileBytes('bc7', 128)).toBe(16384);
    expect(transcodedTileBytes('rgba8', 128)).toBe(65536);
  });
});
