import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import type { TileData, TileSource, TileSourceInfo } from '../../../src/core/vt/tile-source';
import {
  BasisTranscoderPool,
  type TranscodeWorker,
} from '../../../src/three/transcode/basis-transcoder-pool';
import { TranscodeJobRunner } from '../../../src/three/transcode/transcode-job-runner';
import type { TranscodeRequest, TranscodeResponse } from '../../../src/three/transcode/transcode-messages';
import { TranscodingTileSource } from '../../../src/three/transcode/transcoding-tile-source';
import {
  type BasisTranscoderModule,
  basisFormatOf,
  transcodeUastcTile,
} from '../../../src/three/transcode/uastc-transcode';
import { loadNodeBasisTranscoder } from '../../support/node-basis-transcoder';
import { encodeUastcBlocks } from '../../support/uastc-encoder';

let basis: BasisTranscoderModule;
let blocks: Uint8Array;

beforeAll(async () => {
  basis = await loadNodeBasisTranscoder();
  const rgba = new Uint8Array(128 * 128 * 4);
  for (let i = 0; i < rgba.length; i++) rgba[i] = (i * 13) & 255;
  blocks = await encodeUastcBlocks(rgba, 128, 128, { srgb: true, quality: 0 });
}, 60_000);

/**
 * A worker run in this thread: the real transcoder behind the same message protocol (structured
 * clone and transfer aside), answering on a later task as a real worker does.
 */
class InThreadWorker implements TranscodeWorker {
  onmessage: ((event: MessageEvent<TranscodeResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  terminated = false;
  constructor(private readonly fail = false) {}
  postMessage(message: TranscodeRequest): void {
    setTimeout(() => {
      if (this.terminated) return;
      if (message.type === 'init') {
        if (this.fail) this.reply({ type: 'fatal', error: 'no wasm' });
        return;
      }
      const { id, input, output } = message;
      const error = new TranscodeJobRunner(basis).run(message);
      this.reply({ type: 'result', id, ok: error === undefined, input, output });
    }, 0);
  }
  terminate(): void {
    this.terminated = true;
  }
  private reply(message: TranscodeResponse): void {
    this.onmessage?.({ data: message } as MessageEvent<TranscodeResponse>);
  }
}

const INFO: TileSourceInfo = {
  widthPages: 4,
  heightPages: 4,
  tileSize: 128,
  border: 4,
  layers: [{ name: 'albedo', format: 'uastc-4x4-srgb' }],
};

/** Serves `bytes()` as every tile's only layer. */
function sourceOf(bytes: () => Uint8Array): TileSource {
  return { info: INFO, load: async (): Promise<TileData> => ({ layers: [bytes()] }) };
}

function poolOf(fail = false): BasisTranscoderPool {
  return new BasisTranscoderPool({
    size: 2,
    createWorker: () => new InThreadWorker(fail),
  });
}

describe('BasisTranscoderPool and the transcoding stage', () => {
  it('transcodes a tile to the exact bytes the transcoder makes, and reuses its buffers', async () => {
    const pool = poolOf();
    const stage = new TranscodingTileSource(
      sourceOf(() => blocks.slice()),
      ['bc7'],
      pool,
    );
    const expected = new Uint8Array(16384);
    transcodeUastcTile(basis, basisFormatOf(basis, 'bc7'), 'bc7', blocks, expected, 128, true);
    const first = await stage.load(0, 0, 0, new AbortController().signal);
    expect(Buffer.compare(Buffer.from(first.layers[0]), Buffer.from(expected))).toBe(0);
    const buffer = first.layers[0].buffer;
    stage.recycle(first);
    const second = await stage.load(0, 1, 0, new AbortController().signal);
    expect(second.layers[0].buffer).toBe(buffer);
    pool.dispose();
  });

  it('rejects truncated and oversized tiles with typed errors before transcoding', async () => {
    const pool = poolOf();
    const signal = new AbortController().signal;
    const short = new TranscodingTileSource(
      sourceOf(() => blocks.subarray(16)),
      ['astc'],
      pool,
    );
    await expect(short.load(0, 0, 0, signal)).rejects.toMatchObject({ code: 'truncated' });
    const long = new TranscodingTileSource(
      sourceOf(() => new Uint8Array(16384 + 16)),
      ['astc'],
      pool,
    );
    await expect(long.load(0, 0, 0, signal)).rejects.toMatchObject({ code: 'wrong-size' });
    const none = new TranscodingTileSource(
      { info: INFO, load: async () => ({ layers: [] }) },
      ['astc'],
      pool,
    );
    const error = await none.load(0, 0, 0, signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect(pool.pending).toBe(0);
    pool.dispose();
  });

  it('rejects an aborted job at once, and every pending job when disposed', async () => {
    const pool = poolOf();
    const controller = new AbortController();
    const aborted = pool.transcode(blocks.slice(), 'bc7', 128, true, controller.signal);
    controller.abort(new DOMException('gone', 'AbortError'));
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    const pending = pool.transcode(blocks.slice(), 'bc7', 128, true, new AbortController().signal);
    pool.dispose();
    await expect(pending).rejects.toMatchObject({ code: 'source-disposed' });
    await expect(
      pool.transcode(blocks, 'bc7', 128, true, new AbortController().signal),
    ).rejects.toMatchObject({
      code: 'source-disposed',
    });
  });

  it('fails every job, sent before and after, with transcoder-unavailable naming the option when the transcoder cannot load', async () => {
    const pool = poolOf(true);
    const early = pool.transcode(blocks.slice(), 'bc7', 128, true, new AbortController().signal);
    await expect(early).rejects.toMatchObject({ code: 'transcoder-unavailable' });
    const late = pool.transcode(blocks, 'bc7', 128, true, new AbortController().signal);
    await expect(late).rejects.toBeInstanceOf(TileSourceError);
    await expect(late).rejects.toMatchObject({
      code: 'transcoder-unavailable',
      retryable: false,
      message: expect.stringMatching(/transcoderPath.*no wasm|no wasm.*transcoderPath/),
    });
    pool.dispose();
  });

  it('sends the workers absolute URLs of the files in transcoderPath', () => {
    const inits: TranscodeRequest[] = [];
    const pool = new BasisTranscoderPool({
      transcoderPath: 'https://cdn.example/three/examples/jsm/libs/basis',
      size: 1,
      createWorker: () => ({
        onmessage: null,
        onerror: null,
        postMessage: (message) => inits.push(message),
        terminate: () => {},
      }),
    });
    pool.transcode(blocks, 'bc7', 128, true, new AbortController().signal).catch(() => {});
    expect(inits[0]).toEqual({
      type: 'init',
      scriptUrl: 'https://cdn.example/three/examples/jsm/libs/basis/basis_transcoder.js',
      wasmUrl: 'https://cdn.example/three/examples/jsm/libs/basis/basis_transcoder.wasm',
    });
    pool.dispose();
  });

  it('copies a view into part of a larger buffer instead of detaching it', async () => {
    const pool = poolOf();
    const big = new Uint8Array(blocks.length + 64);
    big.set(blocks, 32);
    const view = big.subarray(32, 32 + blocks.length);
    const out = await pool.transcode(view, 'etc2', 128, true, new AbortController().signal);
    expect(out.byteLength).toBe(16384);
    expect(big.byteLength).toBe(blocks.length + 64);
    pool.dispose();
  });
  it('fails every job with transcoder-unavailable when no transcode worker can start, and warns once per transcoder', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      /** A worker whose script never loads: an error event before any answer. */
      class UnstartableWorker extends InThreadWorker {
        override postMessage(): void {
          setTimeout(() => this.onerror?.({ message: '', preventDefault() {} } as ErrorEvent), 0);
        }
      }
      const transcoderPath = 'https://cdn.example/unstartable/';
      const pools = [0, 1].map(
        () =>
          new BasisTranscoderPool({ transcoderPath, size: 2, createWorker: () => new UnstartableWorker() }),
      );
      const early = pools[0].transcode(blocks.slice(), 'bc7', 128, true, new AbortController().signal);
      await expect(early).rejects.toMatchObject({ code: 'transcoder-unavailable', retryable: false });
      const late = pools[1].transcode(blocks.slice(), 'bc7', 128, true, new AbortController().signal);
      await expect(late).rejects.toMatchObject({ code: 'transcoder-unavailable' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await expect(
        pools[0].transcode(blocks.slice(), 'bc7', 128, true, new AbortController().signal),
      ).rejects.toMatchObject({
        code: 'transcoder-unavailable',
        message: expect.stringMatching(/worker-src blob:/),
      });
      expect(pools.map((pool) => pool.pending)).toEqual([0, 0]);
      // Both pools use the same transcoder: one warning for the page.
      expect(warn).toHaveBeenCalledTimes(1);
      for (const pool of pools) pool.dispose();
    } finally {
      warn.mockRestore();
    }
  });
});
