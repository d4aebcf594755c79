/**
 * Page for procedural-worker.spec.ts: a WorkerProceduralTileSource on real module Web Workers
 * (served by Vite), checked against the in-thread ProceduralTileSource. Exposes
 * `globalThis.proceduralWorker` and sets the title to 'ready'.
 */

import { isAbortError } from '../../../../src/core/errors';
import { ProceduralTileSource } from '../../../../src/sources/procedural/procedural-tile-source';
import type { ProceduralWorldOptions } from '../../../../src/sources/procedural/procedural-world';
import {
  type GenerateWorkerLike,
  WorkerProceduralTileSource,
} from '../../../../src/sources/procedural/worker-procedural-tile-source';

const OPTIONS: ProceduralWorldOptions = { seed: 7, widthPages: 1024 };

function createWorker(): GenerateWorkerLike {
  return new Worker(new URL('../../../../src/sources/procedural/procedural-worker.ts', import.meta.url), {
    type: 'module',
  }) as unknown as GenerateWorkerLike;
}

/** A spread of pages over mips 0..10, as a streaming session requests them. */
function pages(count: number, salt: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let k = 0; k < count; k++) {
    const mip = [0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 8, 10][k % 12];
    const n = 1024 >> mip;
    out.push([mip, (k * 37 + salt) % n, (k * 11 + salt * 3) % n]);
  }
  return out;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const api = {
  /** Loads `count` tiles through 2 workers and in-thread; returns how many differ and were checked. */
  async compare(count: number): Promise<{ checked: number; mismatched: number; layerBytes: number[] }> {
    const workers = new WorkerProceduralTileSource(OPTIONS, createWorker, 2);
    const local = new ProceduralTileSource(OPTIONS);
    try {
      const list = pages(count, 1);
      const signal = new AbortController().signal;
      const fromWorkers = await Promise.all(list.map(([m, x, y]) => workers.load(m, x, y, signal)));
      let mismatched = 0;
      for (let k = 0; k < list.length; k++) {
        const [m, x, y] = list[k];
        const expected = await local.load(m, x, y, signal);
        const got = fromWorkers[k].layers as Uint8Array[];
        if (
          !(
            equalBytes(got[0], expected.layers[0] as Uint8Array) &&
            equalBytes(got[1], expected.layers[1] as Uint8Array)
          )
        )
          mismatched++;
      }
      return { checked: list.length, mismatched, layerBytes: fromWorkers[0].layers.map((l) => l.byteLength) };
    } finally {
      workers.dispose();
    }
  },

  /**
   * Aborts: one request aborted before it is made, one right after, one mid-batch; the others of
   * the batch and a load after the aborts must still arrive.
   */
  async abort(): Promise<{
    before: boolean;
    after: boolean;
    midBatch: boolean;
    othersLoaded: number;
    later: boolean;
  }> {
    const source = new WorkerProceduralTileSource(OPTIONS, createWorker, 1);
    try {
      const early = new AbortController();
      early.abort();
      const before = isAbortError(await source.load(0, 1, 1, early.signal).catch((e) => e));
      const soon = new AbortController();
      const pending = source.load(0, 2, 2, soon.signal);
      soon.abort();
      const after = isAbortError(await pending.catch((e) => e));
      const controllers = [0, 1, 2, 3].map(() => new AbortController());
      const batch = controllers.map((c, k) => source.load(3, k, 5, c.signal));
      controllers[2].abort();
      const settled = await Promise.allSettled(batch);
      const midBatch = settled[2].status === 'rejected' && isAbortError(settled[2].reason);
      const othersLoaded = settled.filter((r) => r.status === 'fulfilled').length;
      const data = await source.load(0, 3, 3, new AbortController().signal);
      return { before, after, midBatch, othersLoaded, later: data.layers.length === 2 };
    } finally {
      source.dispose();
    }
  },

  /** Tiles per second: `workers` workers with all requests in flight, and in-thread for reference. */
  async measure(
    count: number,
    workerCount: number,
  ): Promise<{ workerTilesPerS: number; mainThreadTilesPerS: number }> {
    const source = new WorkerProceduralTileSource(OPTIONS, createWorker, workerCount);
    const local = new ProceduralTileSource(OPTIONS);
    try {
      const signal = new AbortController().signal;
      // Warm-up: module load and JIT in every worker, and in this thread.
      await Promise.all(pages(workerCount * 12, 2).map(([m, x, y]) => source.load(m, x, y, signal)));
      for (const [m, x, y] of pages(24, 2)) await local.load(m, x, y, signal);
      const list = pages(count, 3);
      let started = performance.now();
      await Promise.all(list.map(([m, x, y]) => source.load(m, x, y, signal)));
      const workerTilesPerS = count / ((performance.now() - started) / 1000);
      started = performance.now();
      for (const [m, x, y] of list) await local.load(m, x, y, signal);
      const mainThreadTilesPerS = count / ((performance.now() - started) / 1000);
      return { workerTilesPerS, mainThreadTilesPerS };
    } finally {
      source.dispose();
    }
  },
};

(globalThis as unknown as { proceduralWorker: typeof api }).proceduralWorker = api;
document.title = 'ready';
