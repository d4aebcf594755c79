/**
 * Encodes tiles on a fixed set of `worker_threads`, so a bake uses every core: each worker loads
 * its own encoders and holds one tile at a time, so `workers` is exactly the number of tiles
 * being encoded at once (sharp's own thread pool gets no more than that). The caller decides the
 * order payloads are written in, so the archive does not depend on which worker finished first.
 * A worker that exits or crashes fails every pending and later job with `worker-failed`: a bake
 * stops instead of hanging or writing an archive with holes.
 */

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { TesseraConfigError, TesseraError } from '../../core/errors';
import type { PayloadEncodingName } from '../archive/archive-format';
import type { TileEncodeReply, TileEncodeRequest } from './tile-encode-messages';
import type { TileEncoderOptions } from './tile-encoder';

/** Most workers a pool accepts. */
export const MAX_ENCODE_WORKERS = 64;

/** Options of {@link TileEncodePool}. */
export interface TileEncodePoolOptions {
  /** Worker threads, 1..64. Default: the available cores (`os.availableParallelism()`). */
  workers?: number;
}

interface EncodeJob {
  request: TileEncodeRequest;
  resolve: (payload: Uint8Array) => void;
  reject: (error: unknown) => void;
}

/** Checks a worker count: an integer in 1..{@link MAX_ENCODE_WORKERS}; throws `invalid-option`. */
export function checkWorkerCount(workers: number): void {
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_ENCODE_WORKERS) {
    throw new TesseraConfigError('invalid-option', `workers ${workers} outside 1..${MAX_ENCODE_WORKERS}`);
  }
}

/**
 * Starts the worker script. From the TypeScript sources (tests, `bin/tessera.mjs` in the
 * repository) Node 20 cannot load a `.ts` entry in a worker, so a one-line bootstrap registers tsx
 * first; the built package runs its `tile-encode-worker.js` directly.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./tile-encode-worker.js', import.meta.url));
  const entry = new URL('./tile-encode-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve?.('tsx/esm/api') ?? 'tsx/esm/api';
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
}

/** A fixed pool of tile-encoding worker threads. Call {@link close} when done. */
export class TileEncodePool {
  /** Worker threads in the pool. */
  readonly size: number;
  private readonly workers: Worker[] = [];
  /** The job each worker holds, or null when idle. */
  private readonly running: (EncodeJob | null)[];
  private queue: EncodeJob[] = [];
  private queueHead = 0;
  private nextId = 1;
  private failure: TesseraError | null = null;
  private closing = false;

  constructor(options: TileEncodePoolOptions = {}) {
    const workers = options.workers ?? availableParallelism();
    checkWorkerCount(workers);
    this.size = workers;
    this.running = new Array<EncodeJob | null>(workers).fill(null);
    for (let i = 0; i < workers; i++) {
      const worker = startWorker();
      worker.on('message', (reply: TileEncodeReply) => this.settle(i, reply));
      worker.on('error', (error) =>
        this.fail(new TesseraError('worker-failed', `tile encoder worker ${i} crashed: ${error.message}`)),
      );
      worker.on('exit', (code) => {
        if (!this.closing)
          this.fail(new TesseraError('worker-failed', `tile encoder worker ${i} exited (code ${code})`));
      });
      this.workers.push(worker);
    }
  }

  /** The pool's threads (for instrumentation and tests: e.g. terminating one to see the bake stop). */
  get threads(): readonly Worker[] {
    return this.workers;
  }

  /**
   * Encodes a `size x size` rgba8 tile on the next free worker. `rgba` is transferred (the caller
   * loses it). Rejects with `tile-encode-failed` (or the encoder's own config error) for this tile
   * alone, or `worker-failed` once any worker has died.
   */
  encode(
    encoding: PayloadEncodingName,
    rgba: Uint8Array,
    size: number,
    options: TileEncoderOptions,
  ): Promise<Uint8Array> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new TesseraError('disposed', 'tile encode pool closed'));
    return new Promise((resolve, reject) => {
      const request: TileEncodeRequest = { id: this.nextId++, encoding, rgba, size, options };
      this.queue.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops the workers; pending jobs reject with `disposed`. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.rejectAll(new TesseraError('disposed', 'tile encode pool closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private dispatch(): void {
    for (let i = 0; i < this.size && this.queueHead < this.queue.length; i++) {
      if (this.running[i] !== null) continue;
      const job = this.queue[this.queueHead++];
      this.running[i] = job;
      this.workers[i].postMessage(job.request, [job.request.rgba.buffer as ArrayBuffer]);
    }
    // Drop the consumed head now and then instead of shifting per job.
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private settle(worker: number, reply: TileEncodeReply): void {
    const job = this.running[worker];
    if (job === null || job.request.id !== reply.id) return;
    this.running[worker] = null;
    if (reply.error === undefined) job.resolve(reply.payload);
    else job.reject(encodeError(job.request, reply.error));
    this.dispatch();
  }

  private fail(error: TesseraError): void {
    if (this.failure !== null || this.closing) return;
    this.failure = error;
    this.rejectAll(error);
    this.closing = true;
    for (const w of this.workers) void w.terminate();
  }

  private rejectAll(error: TesseraError): void {
    for (let i = 0; i < this.size; i++) {
      this.running[i]?.reject(error);
      this.running[i] = null;
    }
    for (let k = this.queueHead; k < this.queue.length; k++) this.queue[k].reject(error);
    this.queue = [];
    this.queueHead = 0;
  }
}

const CONFIG_CODES: readonly string[] = ['invalid-tile', 'invalid-option', 'invalid-size', 'invalid-layers'];

/** The worker's error as a typed error: the encoder's config error kept, anything else `tile-encode-failed`. */
function encodeError(
  request: TileEncodeRequest,
  error: { message: string; code?: string; name?: string },
): TesseraError {
  if (error.name === 'TesseraConfigError' && error.code !== undefined && CONFIG_CODES.includes(error.code)) {
    return new TesseraConfigError(error.code as 'invalid-option', error.message);
  }
  return new TesseraError(
    'tile-encode-failed',
    `encoding a ${request.size}² tile as ${request.encoding} failed: ${error.message}`,
  );
}

/** Tiles a bake keeps encoding at once per worker (enough that no worker waits on the writer). */
export const TILES_IN_FLIGHT_PER_WORKER = 4;

/**
 * Runs `bake` with `pool`, or with a pool of `workers` threads started for it and closed after
 * (whether the bake succeeds or throws).
 */
export async function withEncodePool<T>(
  pool: TileEncodePool | undefined,
  workers: number | undefined,
  bake: (pool: TileEncodePool) => Promise<T>,
): Promise<T> {
  if (pool !== undefined) return bake(pool);
  if (workers !== undefined) checkWorkerCount(workers);
  const own = new TileEncodePool({ workers });
  try {
    return await bake(own);
  } finally {
    await own.close();
  }
}
