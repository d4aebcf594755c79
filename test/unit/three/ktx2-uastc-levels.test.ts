import { beforeAll, describe, expect, it } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { uastcLevelByteLength } from '../../../src/core/streaming/mip-pyramid-source';
import { choosePoolFormat, type UastcTarget } from '../../../src/core/vt/residency/pool-format';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import { BasisTranscoderPool } from '../../../src/three/transcode/basis-transcoder-pool';
import { TranscodedPyramidSource } from '../../../src/three/transcode/transcoded-pyramid-source';
import { type BasisTranscoderModule, basisFormatOf } from '../../../src/three/transcode/uastc-transcode';
import { InThreadTranscodeWorker, wholeFileTranscode } from '../../support/in-thread-transcoding';
import { loadNodeBasisTranscoder } from '../../support/node-basis-transcoder';
import { encodeUastcKtx2 } from '../../support/uastc-encoder';

let basis: BasisTranscoderModule;
/** 96x40 (not square, not a power of two below 8 blocks), full chain to 1x1, zstd. */
let zstdFile: Uint8Array;
/** 64x64, full chain, raw UASTC. */
let rawFile: Uint8Array;

function image(width: number, height: number): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      rgba[i] = (x * 255) / width;
      rgba[i + 1] = (y * 255) / height;
      rgba[i + 2] = (x * y) & 255;
      rgba[i + 3] = 255 - ((x + y) & 127);
    }
  return rgba;
}

beforeAll(async () => {
  basis = await loadNodeBasisTranscoder();
  zstdFile = await encodeUastcKtx2(image(96, 40), 96, 40, {
    srgb: true,
    quality: 0,
    mipmaps: true,
    zstd: true,
  });
  rawFile = await encodeUastcKtx2(image(64, 64), 64, 64, { srgb: false, quality: 0, mipmaps: true });
}, 60_000);

/** three's KTX2Loader path: the whole file, one level to `target`. */
function threeTranscode(file: Uint8Array, level: number, target: UastcTarget): Uint8Array {
  return wholeFileTranscode(basis, file, level, basisFormatOf(basis, target), 'uastc');
}

function transcodedSource(file: Uint8Array, target: UastcTarget) {
  const source = new Ktx2Source(file);
  const worker = new InThreadTranscodeWorker(basis);
  const pool = new BasisTranscoderPool({
    size: 1,
    createWorker: () => worker,
  });
  const format = source.format === 'uastc-4x4-srgb' ? 'uastc-4x4-srgb' : 'uastc-4x4';
  const choice = choosePoolFormat(format, 'color', new Set(['bc7', 'astc', 'etc2']), target);
  return { source, pool, worker, transcoded: new TranscodedPyramidSource(source, choice, () => pool) };
}

describe('UASTC KTX2 levels transcoded one by one', () => {
  it('the layout reads UASTC + zstd: full chain, whole-block level sizes down to 1x1, alpha from the DFD', () => {
    const source = new Ktx2Source(zstdFile);
    expect(source.format).toBe('uastc-4x4-srgb');
    expect(source.layout.supercompression).toBe('zstd');
    expect(source.mipLevelCount).toBe(7); // 96x40 .. 1x1
    expect(source.hasAlpha).toBe(true);
    for (let level = 0; level < source.mipLevelCount; level++)
      expect(source.layout.levelBytes[level]).toBe(uastcLevelByteLength(96, 40, level));
    // 3x1, 1x1: one block each.
    expect(source.layout.levelBytes[5]).toBe(16);
    expect(source.layout.levelBytes[6]).toBe(16);
    expect(new Ktx2Source(rawFile).format).toBe('uastc-4x4');
  });

  for (const target of ['bc7', 'astc', 'etc2', 'rgba8'] as const) {
    it(`every level to ${target} equals three's KTX2Loader transcoding of that level`, async () => {
      for (const file of [zstdFile, rawFile]) {
        const { source, pool, worker, transcoded } = transcodedSource(file, target);
        const signal = new AbortController().signal;
        for (let level = source.mipLevelCount - 1; level >= 0; level--) {
          const ours = await transcoded.loadLevel(level, signal);
          const theirs = threeTranscode(file, level, target);
          expect(ours.byteLength, `level ${level}`).toBe(theirs.byteLength);
          expect(Buffer.from(ours).equals(Buffer.from(theirs)), `level ${level} bytes`).toBe(true);
        }
        expect(worker.jobs).toBe(source.mipLevelCount);
        pool.dispose();
      }
    });
  }

  it('the transcoded format is what the budget counts: BC7 whole blocks, rgba8 4 bytes a texel', async () => {
    const bc7 = transcodedSource(zstdFile, 'bc7');
    expect(bc7.transcoded.format).toBe('bc7-rgba-unorm-srgb');
    const rgba = transcodedSource(zstdFile, 'rgba8');
    expect(rgba.transcoded.format).toBe('rgba8unorm-srgb');
    const signal = new AbortController().signal;
    expect((await bc7.transcoded.loadLevel(6, signal)).byteLength).toBe(16);
    expect((await rgba.transcoded.loadLevel(5, signal)).byteLength).toBe(3 * 1 * 4);
    bc7.pool.dispose();
    rgba.pool.dispose();
  });

  it('a level of the wrong size is a typed wrong-size error and transcodes nothing', async () => {
    const { source, pool, worker } = transcodedSource(rawFile, 'bc7');
    const short = {
      width: source.width,
      height: source.height,
      mipLevelCount: source.mipLevelCount,
      format: source.format,
      loadLevel: async (level: number, signal: AbortSignal) =>
        (await source.loadLevel(level, signal)).subarray(16),
    };
    const choice = choosePoolFormat('uastc-4x4', 'color', new Set(['bc7']));
    const broken = new TranscodedPyramidSource(short, choice, () => pool);
    const error = await broken.loadLevel(0, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect((error as TileSourceError).code).toBe('wrong-size');
    // The next level still transcodes.
    const full = new TranscodedPyramidSource(source, choice, () => pool);
    expect((await full.loadLevel(1, new AbortController().signal)).byteLength).toBe(8 * 8 * 16);
    expect(worker.jobs).toBe(1);
    pool.dispose();
  });

  it('corrupt zstd level data is a typed decode-failed error', async () => {
    const bad = zstdFile.slice();
    const source = new Ktx2Source(bad);
    const at = source.layout.levelOffsets[0];
    bad.fill(0xff, at + 8, at + source.layout.levelLengths[0]);
    const error = await new Ktx2Source(bad)
      .loadLevel(0, new AbortController().signal)
      .catch((e: unknown) => e);
    expect((error as TileSourceError).code).toBe('decode-failed');
  });
});
