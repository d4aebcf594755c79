import { describe, expect, it } from 'vitest';
import { isAbortError } from '../../../src/core/errors';
import {
  type GenerateReply,
  type GenerateRequest,
  handleGenerateRequest,
} from '../../../src/sources/procedural/procedural-worker-protocol';
import { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';
import {
  type GenerateWorkerLike,
  WorkerProceduralTileSource,
} from '../../../src/sources/procedural/worker-procedural-tile-source';

/** Web-Worker-shaped fake: replies cross by structuredClone with transfer, as postMessage does. */
class FakeWorker implements GenerateWorkerLike {
  posted = 0;
  terminated = false;
  private listener: ((event: MessageEvent<GenerateReply>) => void) | undefined;
  postMessage(message: GenerateRequest): void {
    this.posted++;
    const request = structuredClone(message);
    setTimeout(() => {
      const { reply, transfer } = handleGenerateRequest(request);
      this.listener?.({ data: structuredClone(reply, { transfer }) } as MessageEvent<GenerateReply>);
    }, 1);
  }
  addEventListener(_type: 'message', listener: (event: MessageEvent<GenerateReply>) => void): void {
    this.listener = listener;
  }
  terminate(): void {
    this.terminated = true;
  }
}

describe('WorkerProceduralTileSource', { timeout: 30_000 }, () => {
  const options = { seed: 11, widthPages: 8, tileSize: 32, border: 2 };

  it('returns the same tiles as the in-thread world, spread over the workers', async () => {
    const workers: FakeWorker[] = [];
    const source = new WorkerProceduralTileSource(
      options,
      () => {
        const w = new FakeWorker();
        workers.push(w);
        return w;
      },
      2,
    );
    const world = new ProceduralWorld(options);
    const a = new Uint8Array(32 * 32 * 4);
    const n = new Uint8Array(32 * 32 * 4);
    const tiles = await Promise.all([
      source.load(1, 2, 3, new AbortController().signal),
      source.load(0, 5, 1, new AbortController().signal),
    ]);
    world.generateTile(1, 2, 3, a, n);
    expect(tiles[0].layers).toEqual([a, n]);
    expect(workers.map((w) => w.posted)).toEqual([1, 1]);
    source.dispose();
    expect(workers.every((w) => w.terminated)).toBe(true);
  });

  it('rejects an aborted request at once', async () => {
    const source = new WorkerProceduralTileSource(options, () => new FakeWorker(), 1);
    const controller = new AbortController();
    const promise = source.load(0, 0, 0, controller.signal);
    controller.abort();
    expect(isAbortError(await promise.catch((e) => e))).toBe(true);
    source.dispose();
  });
});
