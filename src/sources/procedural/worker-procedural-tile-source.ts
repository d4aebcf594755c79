/**
 * The procedural world generated in a pool of Web Workers, so the main thread only receives
 * transferred tile buffers. Requests go to the worker with the fewest in flight; an aborted
 * request rejects at once (the worker's late answer is dropped).
 */

import { TileSourceError } from '../../core/errors';
import type { TileData, TileSource, TileSourceInfo } from '../../core/tile-source';
import type { GenerateReply, GenerateRequest } from './procedural-worker-protocol';
import { ProceduralWorld, type ProceduralWorldOptions } from './procedural-world';

/** The part of the Web Worker API this source uses (a `Worker` satisfies it). */
export interface GenerateWorkerLike {
  postMessage(message: GenerateRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<GenerateReply>) => void): void;
  terminate(): void;
}

interface Job {
  worker: number;
  resolve: (data: TileData) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/** Procedural tiles from workers; {@link world} stays on this thread for `heightAt`. */
export class WorkerProceduralTileSource implements TileSource {
  readonly info: TileSourceInfo;
  /** A local copy of the world, for {@link ProceduralWorld.heightAt} (terrain geometry). */
  readonly world: ProceduralWorld;
  private readonly workers: GenerateWorkerLike[] = [];
  private readonly busy: Int32Array;
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private disposed = false;

  /**
   * @param options the world.
   * @param createWorker creates one generation worker.
   * @param size workers in the pool (1..16). Default `hardwareConcurrency - 1`, at most 4.
   */
  constructor(
    private readonly options: ProceduralWorldOptions,
    createWorker: () => GenerateWorkerLike,
    size?: number,
  ) {
    this.world = new ProceduralWorld(options);
    this.info = this.world.info;
    const cores =
      (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
    const count = Math.max(1, Math.min(16, size ?? Math.min(4, cores - 1)));
    this.busy = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      const worker = createWorker();
      worker.addEventListener('message', (event) => this.onReply(event.data));
      this.workers.push(worker);
    }
  }

  load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    if (this.disposed) return Promise.reject(new TileSourceError('aborted', 'source disposed', false));
    if (signal.aborted) return Promise.reject(signal.reason);
    const pagesW = Math.max(1, this.info.widthPages >> mip);
    const pagesH = Math.max(1, this.info.heightPages >> mip);
    if (!(mip >= 0 && mip < this.world.mipCount && x >= 0 && x < pagesW && y >= 0 && y < pagesH)) {
      return Promise.reject(new TileSourceError('bad-index', `no page (${x}, ${y}) at mip ${mip}`, false));
    }
    let worker = 0;
    for (let i = 1; i < this.busy.length; i++) if (this.busy[i] < this.busy[worker]) worker = i;
    const id = this.nextId++;
    return new Promise<TileData>((resolve, reject) => {
      const job: Job = {
        worker,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.finish(id);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.jobs.set(id, job);
      this.busy[worker]++;
      this.workers[worker].postMessage({ type: 'generate', id, options: this.options, mip, x, y });
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const id of [...this.jobs.keys()])
      this.finish(id)!.reject(new TileSourceError('aborted', 'source disposed', false));
    for (const worker of this.workers) worker.terminate();
    this.workers.length = 0;
  }

  private finish(id: number): Job | undefined {
    const job = this.jobs.get(id);
    if (job === undefined) return undefined;
    this.jobs.delete(id);
    this.busy[job.worker]--;
    job.signal.removeEventListener('abort', job.onAbort);
    return job;
  }

  private onReply(reply: GenerateReply): void {
    this.finish(reply.id)?.resolve({ layers: reply.layers });
  }
}
