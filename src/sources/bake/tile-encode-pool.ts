/**
 * Encodes tiles on a fixed set of child processes, so a bake uses every core: each worker loads
 * its own encoders and encodes one tile at a time, so `workers` is exactly the number of tiles
 * being encoded at once (sharp's own thread pool gets no more than that). Processes rather than
 * `worker_threads`: sharp (libvips) does not scale across the threads of one process (128² WebP
 * tiles, 2 workers against 1 on this 2-core machine: 1.2-1.5x as threads, 1.67-1.96x as
 * processes), while the wasm encoders scale either way; a tile costs one copy each way over IPC.
 * The caller decides the order payloads are written in, so the archive does not depend on which
 * worker finished first. A worker that exits or crashes fails every pending and later job with
 * `worker-failed`: a bake stops instead of hanging or writing an archive with holes.
 */

import { type ChildProcess, type ForkOptions, fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TesseraConfigError, TesseraError } from '../../core/errors';
import type { PayloadEncodingName } from '../io/payload-encoding';
import type { TileEncodeReply, TileEncodeRequest } from './tile-encode-messages';
import type { TileEncoderOptions } from './tile-encoder';

/**
 * Jobs sent ahead to each worker: it encodes one at a time, and the next is already there when it
 * finishes (no idle round trip through the parent per tile: about a fifth of a 5 ms WebP tile).
 */
const JOBS_SENT_PER_WORKER = 2;

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
 * Starts one encoder process. From the TypeScript sources (tests, `packages/baker/bin/tessera.mjs` in the
 * repository) the child registers tsx first (`--import tsx`); the built package runs its
 * `tile-encode-worker.js` directly. Structured-clone IPC carries the tiles' typed arrays.
 */
function startWorker(): ChildProcess {
  const options: ForkOptions = { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] };
  // The entry beside this module: in the package, dist/tile-encode-worker.js beside the chunk
  // holding this code (the library build keeps every chunk in dist/). Joined as a path, not
  // written as `new URL(literal, import.meta.url)`, which bundlers take for an asset to inline.
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = join(
    dirname(fileURLToPath(import.meta.url)),
    fromSources ? 'tile-encode-worker.ts' : 'tile-encode-worker.js',
  );
  if (!fromSources) return fork(entry, [], options);
  return fork(entry, [], { ...options, execArgv: ['--import', import.meta.resolve?.('tsx') ?? 'tsx'] });
}

/** A fixed pool of tile-encoding worker processes. Call {@link close} when done. */
export class TileEncodePool {
  /** Worker processes in the pool. */
  readonly size: number;
  private readonly workers: ChildProcess[] = [];
  /** The jobs sent to each worker, oldest first (it encodes them one at a time, in order). */
  private readonly running: EncodeJob[][];
  private queue: EncodeJob[] = [];
  private queueHead = 0;
  private nextId = 1;
  private failure: TesseraError | null = null;
  private closing = false;

  constructor(options: TileEncodePoolOptions = {}) {
    const workers = options.workers ?? availableParallelism();
    checkWorkerCount(workers);
    this.size = workers;
    this.running = Array.from({ length: workers }, () => []);
    for (let i = 0; i < workers; i++) {
      const worker = startWorker();
      worker.on('message', (reply: TileEncodeReply) => this.settle(i, reply));
      worker.on('error', (error) =>
        this.fail(new TesseraError('worker-failed', `tile encoder worker ${i} crashed: ${error.message}`)),
      );
      worker.on('exit', (code, signal) => {
        if (!this.closing)
          this.fail(
            new TesseraError(
              'worker-failed',
              `tile encoder worker ${i} exited (${signal ?? `code ${code}`})`,
            ),
          );
      });
      this.workers.push(worker);
    }
  }

  /** The pool's processes (for instrumentation and tests: e.g. killing one to see the bake stop). */
  get processes(): readonly ChildProcess[] {
    return this.workers;
  }

  /**
   * Encodes a `size x size` rgba8 tile on the next free worker. `rgba` is the pool's until the
   * promise settles (it is copied to the worker when one is free). Rejects with
   * `tile-encode-failed` (or the encoder's own config error) for this tile alone, or
   * `worker-failed` once any worker has died.
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
    await Promise.all(this.workers.map(stopWorker));
  }

  private dispatch(): void {
    for (let i = 0; i < this.size && this.queueHead < this.queue.length; i++) {
      const sent = this.running[i];
      while (sent.length < JOBS_SENT_PER_WORKER && this.queueHead < this.queue.length) {
        const job = this.queue[this.queueHead++];
        sent.push(job);
        this.workers[i].send(job.request);
      }
    }
    // Drop the consumed head now and then instead of shifting per job.
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private settle(worker: number, reply: TileEncodeReply): void {
    const job = this.running[worker][0];
    if (job === undefined || job.request.id !== reply.id) return;
    this.running[worker].shift();
    if (reply.error === undefined) job.resolve(reply.payload);
    else job.reject(encodeError(job.request, reply.error));
    this.dispatch();
  }

  private fail(error: TesseraError): void {
    if (this.failure !== null || this.closing) return;
    this.failure = error;
    this.rejectAll(error);
    this.closing = true;
    for (const w of this.workers) void stopWorker(w);
  }

  private rejectAll(error: TesseraError): void {
    for (const sent of this.running) for (const job of sent.splice(0)) job.reject(error);
    for (let k = this.queueHead; k < this.queue.length; k++) this.queue[k].reject(error);
    this.queue = [];
    this.queueHead = 0;
  }
}

/** Ends `worker` and resolves once it has exited. */
function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    worker.once('exit', () => resolve());
    worker.kill();
  });
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
