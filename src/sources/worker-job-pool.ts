/**
 * Job dispatch shared by the worker-backed sources: each job goes to the worker with the fewest
 * in flight under a fresh integer id, its promise settles when the owner reports the worker's
 * answer for that id, and an abort rejects it at once (the worker's late answer is then dropped,
 * since its id is no longer pending). Message formats, transfer lists and error wording stay with
 * the owner; this module only keeps the books.
 */

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
  private nextId = 1;
  private isDisposed = false;

  constructor(options: WorkerJobPoolOptions<W>) {
    const cores =
      (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
    const size = Math.max(1, Math.min(16, options.size ?? Math.min(4, cores - 1)));
    this.busy = new Int32Array(size);
    this.abortHook = options.onAbort;
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

  /**
   * Sends a job to the least busy worker: `post(worker, id)` posts its message. The promise
   * settles through {@link resolve} / {@link reject} with that id, or rejects with
   * `signal.reason` when `signal` aborts first. The caller checks `signal.aborted` beforehand.
   */
  submit(signal: AbortSignal, post: (worker: W, id: number) => void): Promise<T> {
    const busy = this.busy;
    let worker = 0;
    for (let i = 1; i < busy.length; i++) if (busy[i] < busy[worker]) worker = i;
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

  /** Fulfils job `id` with `value`; ignored when the job was aborted or already settled. */
  resolve(id: number, value: T): void {
    this.finish(id)?.resolve(value);
  }

  /** Rejects job `id` with `error`; ignored when the job was aborted or already settled. */
  reject(id: number, error: unknown): void {
    this.finish(id)?.reject(error);
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

  private finish(id: number): PendingJob<T> | undefined {
    const job = this.jobs.get(id);
    if (job === undefined) return undefined;
    this.jobs.delete(id);
    this.busy[job.worker]--;
    job.signal.removeEventListener('abort', job.onAbort);
    return job;
  }
}
