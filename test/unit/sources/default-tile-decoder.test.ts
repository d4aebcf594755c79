import { afterEach, describe, expect, it, vi } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import {
  createDefaultTileDecoder,
  defaultDecodeWorkerCount,
} from '../../../src/sources/io/default-tile-decoder';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { InlineTileDecoder } from '../../../src/sources/io/tile-decoder';
import { WorkerDecoderPool } from '../../../src/sources/io/worker/worker-decoder-pool';
import {
  bakeTestArchive,
  expectedMip0Tile,
  rgbError,
  smoothTestImage,
  truncatedPayloadArchive,
} from '../../support/lossy-archives';

/** Records the workers created through the global `Worker`, as a browser would create them. */
class RecordingWorker {
  static created: RecordingWorker[] = [];
  terminated = false;
  constructor(
    readonly url: URL,
    readonly options: WorkerOptions,
  ) {
    RecordingWorker.created.push(this);
  }
  postMessage(): void {}
  addEventListener(): void {}
  terminate(): void {
    this.terminated = true;
  }
}

const signal = new AbortController().signal;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  RecordingWorker.created = [];
});

describe('default tile decoder', () => {
  it('sizes the worker pool to leave one core to the page, 1..4 workers', () => {
    expect([undefined, 1, 2, 3, 4, 5, 8, 64].map(defaultDecodeWorkerCount)).toEqual([1, 1, 1, 2, 3, 4, 4, 4]);
  });

  it('is inline in Node (no Worker global)', () => {
    expect(typeof (globalThis as { Worker?: unknown }).Worker).toBe('undefined');
    expect(createDefaultTileDecoder()).toBeInstanceOf(InlineTileDecoder);
  });

  it('is a pool of module workers running the decode worker where Worker exists', () => {
    vi.stubGlobal('Worker', RecordingWorker);
    vi.stubGlobal('navigator', { hardwareConcurrency: 4 });
    const decoder = createDefaultTileDecoder();
    expect(decoder).toBeInstanceOf(WorkerDecoderPool);
    expect(RecordingWorker.created).toHaveLength(3);
    expect(RecordingWorker.created[0].url.pathname).toMatch(/\/worker\/decode-worker\.ts$/);
    expect(RecordingWorker.created[0].options).toEqual({ type: 'module', name: 'tessera-decode' });
    decoder.dispose?.();
    expect(RecordingWorker.created.every((w) => w.terminated)).toBe(true);
  });

  it('falls back to decoding inline when creating a worker throws (e.g. a CSP without worker-src)', () => {
    vi.stubGlobal(
      'Worker',
      class {
        constructor() {
          throw new Error('blocked by CSP');
        }
      },
    );
    expect(createDefaultTileDecoder()).toBeInstanceOf(InlineTileDecoder);
  });

  it('is shared by the sources given no decoder: started at the first decode, stopped with the last source', async () => {
    vi.stubGlobal('Worker', RecordingWorker);
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 });
    const bytes = await bakeTestArchive('png');
    const a = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    const b = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    expect(RecordingWorker.created).toHaveLength(0);
    const abort = new AbortController();
    const loads = [a.load(0, 0, 0, abort.signal), b.load(0, 0, 0, abort.signal)];
    // One pool for both (one worker: 2 hardware threads less the page's).
    await vi.waitFor(() => expect(RecordingWorker.created).toHaveLength(1));
    abort.abort();
    await Promise.allSettled(loads);
    a.dispose();
    expect(RecordingWorker.created[0].terminated).toBe(false);
    b.dispose();
    expect(RecordingWorker.created[0].terminated).toBe(true);
  });

  it('creates no worker for an archive it refuses', async () => {
    vi.stubGlobal('Worker', RecordingWorker);
    const bytes = await bakeTestArchive('png');
    await expect(ArchiveTileSource.open(new MemoryRangeReader(bytes.slice(0, 40)))).rejects.toThrow();
    expect(RecordingWorker.created).toHaveLength(0);
  });
});

describe('ArchiveTileSource with no decoder option, in Node', () => {
  // Quality 90 on smooth content; WebP lossy always subsamples chroma, JPEG is baked 4:4:4.
  const tolerance = { jpeg: { max: 12, mean: 1.5 }, webp: { max: 16, mean: 2.5 } };

  for (const encoding of ['jpeg', 'webp'] as const) {
    it(`decodes ${encoding} tiles to the baked texels within the codec's tolerance`, async () => {
      const image = smoothTestImage();
      const source = await ArchiveTileSource.open(
        new MemoryRangeReader(await bakeTestArchive(encoding, image)),
      );
      try {
        for (const [x, y] of [
          [0, 0],
          [1, 0],
          [1, 1],
        ]) {
          const tile = await source.load(0, x, y, signal);
          const error = rgbError(tile.layers[0] as Uint8Array, expectedMip0Tile(image, x, y));
          expect(error.max, `${encoding} page (${x}, ${y}) max error`).toBeLessThanOrEqual(
            tolerance[encoding].max,
          );
          expect(error.mean, `${encoding} page (${x}, ${y}) mean error`).toBeLessThanOrEqual(
            tolerance[encoding].mean,
          );
        }
        const coarse = await source.load(1, 0, 0, signal);
        expect(coarse.layers[0].byteLength).toBe(64 * 64 * 4);
      } finally {
        source.dispose();
      }
    });

    it(`rejects undecodable ${encoding} tiles with a typed error and warns once`, async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const error = vi.spyOn(console, 'error');
      const source = await ArchiveTileSource.open(
        new MemoryRangeReader(await truncatedPayloadArchive(encoding)),
      );
      try {
        const results = await Promise.allSettled([
          source.load(1, 0, 0, signal),
          source.load(0, 0, 0, signal),
          source.load(0, 1, 0, signal),
          source.load(0, 1, 1, signal),
        ]);
        for (const result of results) {
          expect(result.status).toBe('rejected');
          const reason = (result as PromiseRejectedResult).reason;
          expect(reason).toBeInstanceOf(TileSourceError);
          expect((reason as TileSourceError).code).toBe('decode-failed');
        }
        await source.load(0, 0, 1, signal).catch(() => {});
        expect(warn).toHaveBeenCalledTimes(1);
        const line = String(warn.mock.calls[0][0]);
        expect(line).toContain(encoding);
        expect(line).toContain('decode-failed');
        expect(line).not.toContain('\n');
        expect(error).not.toHaveBeenCalled();
      } finally {
        source.dispose();
      }
    });
  }

  it('warns again for another source', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const bytes = await truncatedPayloadArchive('webp');
    for (let k = 0; k < 2; k++) {
      const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
      await source.load(0, 0, 0, signal).catch(() => {});
      source.dispose();
    }
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
