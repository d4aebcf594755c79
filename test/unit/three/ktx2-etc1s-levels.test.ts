import { beforeAll, describe, expect, it } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import {
  chooseEtc1sTarget,
  type Etc1sTarget,
  etc1sTargetBytes,
} from '../../../src/core/streaming/planning/etc1s-target';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import { BasisTranscoderPool } from '../../../src/three/transcode/basis-transcoder-pool';
import { Etc1sPyramidSource } from '../../../src/three/transcode/etc1s-pyramid-source';
import { etc1sBasisFormatOf } from '../../../src/three/transcode/etc1s-transcode';
import type { BasisTranscoderModule } from '../../../src/three/transcode/uastc-transcode';
import { encodeEtc1sKtx2 } from '../../support/etc1s-encoder';
import { InThreadTranscodeWorker, wholeFileTranscode } from '../../support/in-thread-transcoding';
import { loadNodeBasisTranscoder } from '../../support/node-basis-transcoder';

let basis: BasisTranscoderModule;
/** 200x72 (not square, not a power of two), opaque, sRGB, full chain. */
let opaqueFile: Uint8Array;
/** 64x64 with varying alpha, linear, full chain. */
let alphaFile: Uint8Array;

function image(width: number, height: number, alpha: boolean): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      rgba[i] = (x * 255) / width;
      rgba[i + 1] = (y * 255) / height;
      rgba[i + 2] = ((x >> 3) ^ (y >> 3)) & 1 ? 220 : 30;
      rgba[i + 3] = alpha ? (x * 4 + y) & 255 : 255;
    }
  return rgba;
}

beforeAll(async () => {
  basis = await loadNodeBasisTranscoder();
  opaqueFile = await encodeEtc1sKtx2(image(200, 72, false), 200, 72, { srgb: true });
  alphaFile = await encodeEtc1sKtx2(image(64, 64, true), 64, 64, { srgb: false });
}, 60_000);

/** three's KTX2Loader path: the whole file, one level to `target`. */
function threeTranscode(file: Uint8Array, level: number, target: Etc1sTarget): Uint8Array {
  return wholeFileTranscode(basis, file, level, etc1sBasisFormatOf(basis, target), 'etc1s');
}

function etc1sSource(file: Uint8Array, target: Etc1sTarget) {
  const source = new Ktx2Source(file);
  const worker = new InThreadTranscodeWorker(basis);
  const pool = new BasisTranscoderPool({
    size: 1,
    createWorker: () => worker,
  });
  const srgb = source.format === 'etc1s-srgb';
  const s = srgb ? '-srgb' : '';
  const formats: Record<Etc1sTarget, string> = {
    'etc2-rgb': `etc2-rgb8unorm${s}`,
    etc2: `etc2-rgba8unorm${s}`,
    bc7: `bc7-rgba-unorm${s}`,
    bc1: `bc1-rgba-unorm${s}`,
    rgba8: `rgba8unorm${s}`,
  };
  const choice = { target, format: formats[target], fellBack: false } as const;
  return { source, pool, worker, etc1s: new Etc1sPyramidSource(source, choice as never, () => pool) };
}

describe('ETC1S (BasisLZ) KTX2 levels transcoded one by one', () => {
  it('the layout reads the global codebooks with the metadata, every level as stored, alpha from the DFD', () => {
    const source = new Ktx2Source(opaqueFile);
    expect(source.format).toBe('etc1s-srgb');
    expect(source.layout.supercompression).toBe('basislz');
    expect(source.mipLevelCount).toBe(8); // 200x72 .. 1x1
    expect(source.hasAlpha).toBe(false);
    const basisLz = source.basisLz;
    expect(basisLz).toBeDefined();
    expect(basisLz?.endpointCount).toBeGreaterThan(0);
    expect(basisLz?.slices.length).toBe(8 * 4);
    // The metadata prefix holds the codebooks: the first level starts after them.
    expect(source.layout.prefixBytes).toBeGreaterThan(basisLz?.tables.byteLength ?? 0);
    const alpha = new Ktx2Source(alphaFile);
    expect(alpha.format).toBe('etc1s');
    expect(alpha.hasAlpha).toBe(true);
    expect(alpha.basisLz?.hasAlphaSlices).toBe(true);
  });

  const cases: [string, () => Uint8Array, Etc1sTarget[]][] = [
    ['opaque sRGB 200x72', () => opaqueFile, ['etc2-rgb', 'bc7', 'bc1', 'rgba8']],
    ['alpha 64x64', () => alphaFile, ['etc2', 'bc7', 'rgba8']],
  ];
  for (const [name, file, targets] of cases) {
    for (const target of targets) {
      it(`${name}: every level to ${target} equals three's whole-file transcoding of that level`, async () => {
        const { source, pool, worker, etc1s } = etc1sSource(file(), target);
        const signal = new AbortController().signal;
        for (let level = source.mipLevelCount - 1; level >= 0; level--) {
          const ours = await etc1s.loadLevel(level, signal);
          const theirs = threeTranscode(file(), level, target);
          const w = Math.max(1, source.width >> level);
          const h = Math.max(1, source.height >> level);
          expect(ours.byteLength, `level ${level}`).toBe(etc1sTargetBytes(target, w, h));
          expect(ours.byteLength, `level ${level}`).toBe(theirs.byteLength);
          expect(Buffer.from(ours).equals(Buffer.from(theirs)), `level ${level} bytes`).toBe(true);
        }
        expect(worker.jobs).toBe(source.mipLevelCount);
        // The codebooks were decoded once for all levels.
        expect(worker.runner.codebookCount).toBe(1);
        pool.dispose();
      });
    }
  }

  it('target choice: ETC2 > BC7 > BC1 (opaque) > rgba8, ETC1 blocks for opaque ETC2, sRGB kept', () => {
    expect(chooseEtc1sTarget(new Set(['etc2', 'bc7']), false, true).format).toBe('etc2-rgb8unorm-srgb');
    expect(chooseEtc1sTarget(new Set(['etc2', 'bc7']), true, false).format).toBe('etc2-rgba8unorm');
    expect(chooseEtc1sTarget(new Set(['bc7', 'bc5']), false, true).format).toBe('bc7-rgba-unorm-srgb');
    expect(chooseEtc1sTarget(new Set(['bc5']), false, false).format).toBe('bc1-rgba-unorm');
    expect(chooseEtc1sTarget(new Set(['bc5']), true, false)).toEqual({
      target: 'rgba8',
      format: 'rgba8unorm',
      fellBack: true,
    });
    expect(chooseEtc1sTarget(new Set(), false, true).format).toBe('rgba8unorm-srgb');
  });

  it('bad global data and slices are typed errors; the next good level still transcodes', async () => {
    const source = new Ktx2Source(opaqueFile);
    const view = new DataView(opaqueFile.buffer, opaqueFile.byteOffset);
    const sgdOffset = Number(view.getBigUint64(64, true));
    const codeOf = (mutate: (b: Uint8Array, v: DataView) => void) => {
      const bytes = opaqueFile.slice();
      mutate(bytes, new DataView(bytes.buffer));
      try {
        new Ktx2Source(bytes);
        return 'ok';
      } catch (error) {
        expect(error).toBeInstanceOf(TileSourceError);
        return (error as TileSourceError).code;
      }
    };
    // Section lengths that do not add up, an empty codebook, a slice past its level, a P-frame.
    expect(codeOf((_, v) => v.setUint32(sgdOffset + 4, v.getUint32(sgdOffset + 4, true) + 1, true))).toBe(
      'corrupt',
    );
    expect(codeOf((_, v) => v.setUint16(sgdOffset, 0, true))).toBe('corrupt');
    expect(codeOf((_, v) => v.setUint32(sgdOffset + 20 + 8, 1 << 20, true))).toBe('corrupt');
    expect(codeOf((_, v) => v.setUint32(sgdOffset + 20, 2, true))).toBe('unsupported');
    // BasisLZ without the ETC1S model, or ETC1S without BasisLZ: a DFD mismatch.
    expect(codeOf((_, v) => v.setUint32(44, 0, true))).toBe('corrupt');
    const dfd = view.getUint32(48, true);
    expect(codeOf((b) => (b[dfd + 12] = 166))).toBe('corrupt');
    // Truncated metadata (cut inside the codebooks).
    expect(() => new Ktx2Source(opaqueFile.subarray(0, sgdOffset + 40))).toThrowError(TileSourceError);

    // Level data shorter than its slices: 'wrong-size', nothing sent to a worker.
    const { pool, worker } = etc1sSource(opaqueFile, 'bc7');
    const short = {
      width: source.width,
      height: source.height,
      mipLevelCount: source.mipLevelCount,
      format: source.format,
      basisLz: source.basisLz,
      loadLevel: async (level: number, signal: AbortSignal) =>
        (await source.loadLevel(level, signal)).subarray(1),
    };
    const choice = { target: 'bc7', format: 'bc7-rgba-unorm-srgb', fellBack: false } as const;
    const broken = new Etc1sPyramidSource(short, choice, () => pool);
    const error = await broken.loadLevel(0, new AbortController().signal).catch((e: unknown) => e);
    expect((error as TileSourceError).code).toBe('wrong-size');
    expect(worker.jobs).toBe(0);
    // Codebooks the transcoder refuses (a Huffman stream of 0xFF bytes): 'decode-failed', and the
    // good source still transcodes on the same pool. (Slices carry no checksum: garbage slices with
    // good codebooks transcode to wrong texels, as three's KTX2Loader would show them.)
    const basisLz = source.basisLz as NonNullable<typeof source.basisLz>;
    const badBooks = {
      ...short,
      basisLz: { ...basisLz, tables: new Uint8Array(basisLz.tables.length).fill(0xff) },
      loadLevel: source.loadLevel.bind(source),
    };
    const rejected = await new Etc1sPyramidSource(badBooks, choice, () => pool)
      .loadLevel(0, new AbortController().signal)
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(TileSourceError);
    expect((rejected as TileSourceError).code).toBe('decode-failed');
    const good = new Etc1sPyramidSource(source, choice, () => pool);
    expect((await good.loadLevel(1, new AbortController().signal)).byteLength).toBe(
      etc1sTargetBytes('bc7', 100, 36),
    );
    pool.dispose();
  });
});
