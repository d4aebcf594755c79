/**
 * The procedural world generated in a pool of Web Workers, so the main thread only receives
 * transferred tile buffers. Requests go to the worker with the fewest in flight; an aborted
 * request rejects at once (the worker's late answer is dropped).
 */

import { TileSourceError } from '../../core/errors';
import type { TileData, TileSource, TileSourceInfo } from '../../core/vt/tile-source';
import { isWorkerReady, WorkerJobPool } from '../worker-job-pool';
import type { GenerateReply, GenerateRequest } from './procedural-worker-protocol';
import { ProceduralWorld, type ProceduralWorldOptions } from './procedural-world';

/** The part of the Web Worker API this source uses (a `Worker` satisfies it). */
export interface GenerateWorkerLike {
  /** Sends a request to the worker. */
  postMessage(message: GenerateRequest): void;
  /** Listens for the worker's replies. */
  addEventListener(type: 'message', listener: (event: MessageEvent<GenerateReply>) => void): void;
  /**
   * Set by the source: a worker that fails before it started (its script did not load or start)
   * makes its jobs reject with TileSourceError('decode-failed') saying it could not start, one
   * that crashes on a job (after its ready message) makes its jobs reject saying so, instead of
   * waiting forever.
   */
  onerror?: ((event: ErrorEvent) => void) | null;
  /** Stops the worker. */
  terminate(): void;
}

/** Procedural tiles from workers; {@link world} stays on this thread for `heightAt`. */
export class WorkerProceduralTileSource implements TileSource {
  /** What the source holds ({@link TileSource.info}). */
  readonly info: TileSourceInfo;
  /** A local copy of the world, for {@link ProceduralWorld.heightAt} (terrain geometry). */
  readonly world: ProceduralWorld;
  private readonly pool: WorkerJobPool<GenerateWorkerLike, TileData>;

  /**
   * @param options the world.
   * @param createWorker creates one generation worker. Default: the library's own procedural
   *   worker, started from a Blob URL of its bundled script in the published package (no bundler
   *   support needed, and it works when the library is served from another origin).
   * @param size workers in the pool (1..16). Default `hardwareConcurrency - 1`, at most 4.
   */
  constructor(
    private readonly options: ProceduralWorldOptions,
    createWorker: () => GenerateWorkerLike = createProceduralWorker,
    size?: number,
  ) {
    this.world = new ProceduralWorld(options);
    this.info = this.world.info;
    this.pool = new WorkerJobPool({
      size,
      createWorker: (index) => {
        const worker = createWorker();
        worker.addEventListener('message', (event) => {
          if (isWorkerReady(event.data)) this.pool.markStarted(index);
          else this.onReply(event.data);
        });
        worker.onerror = (event) => {
          event.preventDefault?.();
          const reason = event.message || 'the worker script did not load';
          this.pool.workerError(
            index,
            reason,
            () => new TileSourceError('decode-failed', `procedural worker crashed on a job: ${reason}`, true),
          );
        };
        return worker;
      },
      startFailure: (reason) =>
        new TileSourceError(
          'decode-failed',
          `the procedural worker could not start (${reason}); a Content-Security-Policy must allow 'worker-src blob:'`,
          false,
        ),
    });
  }

  /** Generates page (`x`, `y`) at `mip` in a worker: the albedo and normal layers; `bad-index` outside the pyramid. */
  load(mip: number, x: number, y: number, signal: AbortSignal): Promise<TileData> {
    if (this.pool.disposed) return Promise.reject(disposedError());
    if (signal.aborted) return Promise.reject(signal.reason);
    const pagesW = Math.max(1, this.info.widthPages >> mip);
    const pagesH = Math.max(1, this.info.heightPages >> mip);
    if (!(mip >= 0 && mip < this.world.mipCount && x >= 0 && x < pagesW && y >= 0 && y < pagesH)) {
      return Promise.reject(new TileSourceError('bad-index', `no page (${x}, ${y}) at mip ${mip}`, false));
    }
    return this.pool.submit(signal, (worker, id) =>
      worker.postMessage({ type: 'generate', id, options: this.options, mip, x, y }),
    );
  }

  /** Terminates the workers; pending and later loads reject. */
  dispose(): void {
    this.pool.dispose(disposedError);
  }

  private onReply(reply: GenerateReply): void {
    this.pool.resolve(reply.id, { layers: reply.layers });
  }
}

function disposedError(): TileSourceError {
  return new TileSourceError('source-disposed', 'source disposed', false);
}

/**
 * The default generation worker: a module worker from the sources; the library build starts it
 * from a Blob URL (vite.config.ts).
 */
function createProceduralWorker(): GenerateWorkerLike {
  return new Worker(new URL('./procedural-worker.ts', import.meta.url), {
    type: 'module',
    name: 'tessera-procedural',
  }) as unknown as GenerateWorkerLike;
}
