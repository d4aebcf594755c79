/**
 * A {@link TileDecoder} spreading decodes over Web Workers: compressed bytes go to the least busy
 * worker as a transferred buffer and texels come back the same way, so the main thread neither
 * copies nor decodes. Aborting a job rejects it at once and tells its worker to drop the result.
 */

import { TileSourceError } from '../../../core/errors';
import type { PayloadEncodingName } from '../archive-format';
import type { TileDecoder } from '../tile-decoder';
import type { CancelRequest, DecodeReply, DecodeRequest } from './decode-protocol';

/** The part of the Web Worker API the pool uses (a `Worker` satisfies it). */
export interface WorkerLike {
  postMessage(message: DecodeRequest | CancelRequest, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<DecodeReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate(): void;
}

/** Options of {@link WorkerDecoderPool}. */
export interface WorkerDecoderPoolOptions {
  /** Creates one worker (e.g. `() => new Worker(new URL('./decode-worker.ts', import.meta.url), { type: 'module' })`). */
  createWorker: () => WorkerLike;
  /** Workers in the pool, 1..16. Default: `navigator.hardwareConcurrency - 1`, at most 4. */
  size?: number;
}

interface Job {
  worker: number;
  resolve: (texels: Uint8Array) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/** A pool of decode workers. */
export class WorkerDecoderPool implements TileDecoder {
  private readonly workers: WorkerLike[] = [];
  private readonly busy: Int32Array;
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private disposed = false;

  constructor(options: WorkerDecoderPoolOptions) {
    const cores =
      (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
    const size = Math.max(1, Math.min(16, options.size ?? Math.min(4, cores - 1)));
    this.busy = new Int32Array(size);
    for (let i = 0; i < size; i++) {
      const worker = options.createWorker();
      worker.addEventListener('message', (event) => this.onReply(event.data));
      worker.addEventListener('error', (event) => this.failWorker(i, event.message));
      this.workers.push(worker);
    }
  }

  /** Jobs sent and not yet answered. */
  get pending(): number {
    return this.jobs.size;
  }

  decode(
    encoding: PayloadEncodingName,
    bytes: Uint8Array,
    tileSize: number,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    if (this.disposed) return Promise.reject(new TileSourceError('aborted', 'decoder pool disposed', false));
    if (signal.aborted) return Promise.reject(signal.reason);
    let worker = 0;
    for (let i = 1; i < this.busy.length; i++) if (this.busy[i] < this.busy[worker]) worker = i;
    const id = this.nextId++;
    // Transfer needs a buffer owned by this payload alone.
    const owned =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    return new Promise<Uint8Array>((resolve, reject) => {
      const job: Job = {
        worker,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.finish(id);
          this.workers[worker].postMessage({ type: 'cancel', id });
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.jobs.set(id, job);
      this.busy[worker]++;
      this.workers[worker].postMessage({ type: 'decode', id, encoding, tileSize, bytes: owned }, [
        owned.buffer,
      ]);
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const id of [...this.jobs.keys()]) {
      const job = this.finish(id)!;
      job.reject(new TileSourceError('aborted', 'decoder pool disposed', false));
    }
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

  private onReply(reply: DecodeReply): void {
    const job = this.finish(reply.id);
    if (job === undefined) return;
    if (reply.type === 'done') job.resolve(reply.texels);
    else job.reject(new TileSourceError(reply.code, reply.message, reply.retryable));
  }

  private failWorker(worker: number, message: string): void {
    for (const [id, job] of [...this.jobs]) {
      if (job.worker !== worker) continue;
      this.finish(id);
      job.reject(new TileSourceError('decode-failed', `decode worker crashed: ${message}`, true));
    }
  }
}
