/**
 * Job dispatch shared by the worker-backed sources: each job goes to the worker with the fewest
 * in flight under a fresh integer id, its promise settles when the owner reports the worker's
 * answer for that id, and an abort rejects it at once (the worker's late answer is then dropped,
 * since its id is no longer pending). Message formats, transfer lists and error wording stay with
 * the owner; this module only keeps the books.
 */

/**
 * The message every Tessera worker entry posts once its script has run (the handshake): a worker
 * that sent it started, so an error event from it afterwards is a crash on a job, never a start
 * failure. A worker of your own that does not post it counts as started from its first answer.
 */
export const WORKER_READY = { type: 'tessera-worker-ready' } as const;

/** True for the {@link WORKER_READY} handshake message (`data` of a worker's message event). */
export function isWorkerReady(data: unknown): boolean {
  return (data as { type?: unknown } | null)?.type === WORKER_READY.type;
}

/** The part of a Web Worker the pool itself touches (a `Worker` satisfies it). */
export interface TerminableWorker {
  terminate(): void;
}

/** Options of {@link WorkerJobPool}. */
export interface WorkerJobPoolOptions<W extends TerminableWorker> {
  /** Workers in the pool, clamped to 1..16. Default: `navigator.hardwareConcurrency - 1`, at most 4. */
  size?: number;
  /** Creates worker number `index` and hooks its messages up to the owner. */
  createWorker: (index: number) => W;
  /** Called when job `id` on `worker` is aborted, e.g. to tell the worker to skip it. */
  onAbort?: (worker: W, id: number) => void;
  /**
   * The error a job gets when its worker failed before it started (neither the
   * {@link WORKER_READY} handshake nor an answer came: its script did not load or start, a 404, a
   * Content-Security-Policy without `worker-src blob:`), with that failure's description. Once
   * every worker has failed so, new jobs reject with it at once.
   */
  startFailure?: (reason: string) => unknown;
}

interface PendingJob<T> {
  worker: number;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/** A fixed set of workers and the jobs (of result type `T`) they have not answered yet. */
export class WorkerJobPool<W extends TerminableWorker, T> {
  /** The workers; a worker's index is the `worker` number used by {@link failWorker}. */
  readonly workers: W[] = [];
  /** Jobs in flight per worker. */
  private readonly busy: Int32Array;
  private readonly jobs = new Map<number, PendingJob<T>>();
  private readonly abortHook: ((worker: W, id: number) => void) | undefined;
  private readonly startFailure: ((reason: string) => unknown) | undefined;
  /** 1 once a worker sent the {@link WORKER_READY} handshake or answered a job (so it started), per worker. */
  private readonly started: Uint8Array;
  /** 1 for a worker that failed before it started: it never gets a job again. */
  private readonly dead: Uint8Array;
  private deadCount = 0;
  /** Why no worker could start, once every one failed so; null while one may still work. */
  private unavailableReason: string | null = null;
  private nextId = 1;
  private isDisposed = false;

  constructor(options: WorkerJobPoolOptions<W>) {
    const cores =
      (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
    const size = Math.max(1, Math.min(16, options.size ?? Math.min(4, cores - 1)));
    this.busy = new Int32Array(size);
    this.started = new Uint8Array(size);
    this.dead = new Uint8Array(size);
    this.abortHook = options.onAbort;
    this.startFailure = options.startFailure;
    for (let i = 0; i < size; i++) this.workers.push(options.createWorker(i));
  }

  /** Jobs sent and not yet answered. */
  get pending(): number {
    return this.jobs.size;
  }

  /** True after {@link dispose}. */
  get disposed(): boolean {
    return this.isDisposed;
  }

  /** Why none of the workers could start (see {@link workerError}), or null while one may work. */
  get unavailable(): string | null {
    return this.unavailableReason;
  }

  /**
   * Sends a job to the least busy worker that has not failed to start: `post(worker, id)` posts
   * its message. The promise settles through {@link resolve} / {@link reject} with that id, or
   * rejects with `signal.reason` when `signal` aborts first, or at once with the start failure
   * when no worker could start ({@link unavailable}). The caller checks `signal.aborted` beforehand.
   */
  submit(signal: AbortSignal, post: (worker: W, id: number) => void): Promise<T> {
    if (this.unavailableReason !== null) {
      return Promise.reject(this.startError(this.unavailableReason, null));
    }
    const busy = this.busy;
    const dead = this.dead;
    let worker = -1;
    for (let i = 0; i < busy.length; i++) {
      if (dead[i] === 0 && (worker < 0 || busy[i] < busy[worker])) worker = i;
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const job: PendingJob<T> = {
        worker,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.finish(id);
          this.abortHook?.(this.workers[worker], id);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.jobs.set(id, job);
      busy[worker]++;
      post(this.workers[worker], id);
    });
  }

  /**
   * Worker number `worker` sent the {@link WORKER_READY} handshake: its script runs, so a later
   * error event from it is a crash on a job ({@link workerError}).
   */
  markStarted(worker: number): void {
    this.started[worker] = 1;
  }

  /** Fulfils job `id` with `value`; ignored when the job was aborted or already settled. */
  resolve(id: number, value: T): void {
    const job = this.finish(id);
    if (job === undefined) return;
    this.started[job.worker] = 1;
    job.resolve(value);
  }

  /** Rejects job `id` with `error`; ignored when the job was aborted or already settled. */
  reject(id: number, error: unknown): void {
    const job = this.finish(id);
    if (job === undefined) return;
    this.started[job.worker] = 1;
    job.reject(error);
  }

  /**
   * Worker number `worker` reported an `error` event (`reason`: its message, if any). A worker
   * that never started (no {@link WORKER_READY} handshake, no answer) failed to start: it gets no
   * job again and its pending jobs reject with the start failure (see
   * {@link WorkerJobPoolOptions.startFailure}); once every worker has failed so, every new job
   * rejects at once. A worker that started crashed on a job, its first one included: its pending
   * jobs reject with a fresh `crash()` and it keeps serving.
   */
  workerError(worker: number, reason: string, crash: () => unknown): void {
    if (this.started[worker] === 1 || this.startFailure === undefined) {
      this.failWorker(worker, crash);
      return;
    }
    if (this.dead[worker] === 0) {
      this.dead[worker] = 1;
      this.deadCount++;
      if (this.deadCount === this.dead.length) this.unavailableReason = reason;
    }
    this.failWorker(worker, () => this.startError(reason, crash));
  }

  /** Rejects every job pending on worker number `worker` (it crashed), each with a fresh `error()`. */
  failWorker(worker: number, error: () => unknown): void {
    for (const [id, job] of [...this.jobs]) {
      if (job.worker !== worker) continue;
      this.finish(id);
      job.reject(error());
    }
  }

  /** Rejects every pending job, each with a fresh `error()`, and terminates the workers. */
  dispose(error: () => unknown): void {
    this.isDisposed = true;
    for (const id of [...this.jobs.keys()]) this.finish(id)!.reject(error());
    for (const worker of this.workers) worker.terminate();
    this.workers.length = 0;
  }

  private startError(reason: string, crash: (() => unknown) | null): unknown {
    return this.startFailure !== undefined ? this.startFailure(reason) : crash?.();
  }

  private finish(id: number): PendingJob<T> | undefined {
    const job = this.jobs.get(id);
    if (job === undefined) return undefined;
    this.jobs.delete(id);
    this.busy[job.worker]--;
    job.signal.removeEventListener('abort', job.onAbort);
    return job;
  }
}
