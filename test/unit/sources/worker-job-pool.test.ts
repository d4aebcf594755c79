import { describe, expect, it } from 'vitest';
import { isWorkerReady, WORKER_READY, WorkerJobPool } from '../../../src/sources/worker-job-pool';

class StubWorker {
  readonly posted: number[] = [];
  readonly cancelled: number[] = [];
  terminated = false;
  terminate(): void {
    this.terminated = true;
  }
}

function makePool(size: number) {
  return new WorkerJobPool<StubWorker, string>({
    size,
    createWorker: () => new StubWorker(),
    onAbort: (worker, id) => worker.cancelled.push(id),
  });
}

describe('WorkerJobPool', () => {
  it('sends each job to the least busy worker and settles it by id', async () => {
    const pool = makePool(3);
    const signal = new AbortController().signal;
    const jobs = [0, 1, 2, 3].map(() => pool.submit(signal, (w, id) => w.posted.push(id)));
    expect(pool.workers.map((w) => w.posted)).toEqual([[1, 4], [2], [3]]);
    expect(pool.pending).toBe(4);
    pool.resolve(2, 'two');
    pool.reject(1, new Error('one'));
    // Worker 1 is now the least busy (0 jobs): the next job goes there.
    pool.submit(signal, (w, id) => w.posted.push(id));
    expect(pool.workers[1].posted).toEqual([2, 5]);
    expect(await jobs[1]).toBe('two');
    await expect(jobs[0]).rejects.toThrow('one');
    pool.resolve(2, 'late'); // already settled: ignored
    expect(pool.pending).toBe(3);
  });

  it('rejects an aborted job at once, runs the abort hook and drops the late answer', async () => {
    const pool = makePool(1);
    const controller = new AbortController();
    const job = pool.submit(controller.signal, (w, id) => w.posted.push(id));
    controller.abort(new Error('gone'));
    await expect(job).rejects.toThrow('gone');
    expect(pool.workers[0].cancelled).toEqual([1]);
    expect(pool.pending).toBe(0);
    pool.resolve(1, 'late');
    expect(pool.pending).toBe(0);
  });

  it('fails only the crashed worker’s jobs, and dispose rejects the rest and terminates', async () => {
    const pool = makePool(2);
    const signal = new AbortController().signal;
    const a = pool.submit(signal, () => {});
    const b = pool.submit(signal, () => {});
    pool.failWorker(0, () => new Error('crashed'));
    await expect(a).rejects.toThrow('crashed');
    expect(pool.pending).toBe(1);
    const workers = [...pool.workers];
    pool.dispose(() => new Error('disposed'));
    await expect(b).rejects.toThrow('disposed');
    expect(pool.disposed).toBe(true);
    expect(workers.every((w) => w.terminated)).toBe(true);
    expect(pool.workers.length).toBe(0);
  });
  it('routes around a worker that failed to start, and rejects every job at once when none started', async () => {
    const pool = new WorkerJobPool<StubWorker, string>({
      size: 2,
      createWorker: () => new StubWorker(),
      startFailure: (reason) => new Error(`no worker: ${reason}`),
    });
    const signal = new AbortController().signal;
    const onFirst = pool.submit(signal, (w, id) => w.posted.push(id));
    pool.workerError(0, 'script 404', () => new Error('crash'));
    await expect(onFirst).rejects.toThrow('no worker: script 404');
    expect(pool.unavailable).toBeNull();
    // Worker 0 gets nothing again, though it is the least busy.
    const onSecond = pool.submit(signal, (w, id) => w.posted.push(id));
    const onThird = pool.submit(signal, (w, id) => w.posted.push(id));
    expect(pool.workers.map((w) => w.posted)).toEqual([[1], [2, 3]]);
    pool.resolve(2, 'two');
    expect(await onSecond).toBe('two');
    // Worker 1 answered, so its error is a crash: its jobs reject with the crash, it keeps serving.
    const crashed = pool.submit(signal, (w, id) => w.posted.push(id));
    pool.workerError(1, 'boom', () => new Error('crash'));
    await expect(crashed).rejects.toThrow('crash');
    await expect(onThird).rejects.toThrow('crash');
    expect(pool.unavailable).toBeNull();

    const none = new WorkerJobPool<StubWorker, string>({
      size: 2,
      createWorker: () => new StubWorker(),
      startFailure: (reason) => new Error(`no worker: ${reason}`),
    });
    none.workerError(0, 'csp', () => new Error('crash'));
    none.workerError(1, 'csp', () => new Error('crash'));
    expect(none.unavailable).toBe('csp');
    const posted: number[] = [];
    await expect(none.submit(signal, (_w, id) => posted.push(id))).rejects.toThrow('no worker: csp');
    expect(posted).toEqual([]);
    expect(none.pending).toBe(0);
  });

  it('classes an error from a worker that sent its ready handshake as a crash on a job, its first job included', async () => {
    const pool = new WorkerJobPool<StubWorker, string>({
      size: 2,
      createWorker: () => new StubWorker(),
      startFailure: (reason) => new Error(`could not start: ${reason}`),
    });
    const signal = new AbortController().signal;
    // Both workers ran their script; neither has answered a job yet.
    pool.markStarted(0);
    pool.markStarted(1);
    const first = pool.submit(signal, (w, id) => w.posted.push(id));
    const second = pool.submit(signal, (w, id) => w.posted.push(id));
    pool.workerError(0, 'Uncaught TypeError: boom', () => new Error('crashed on a job: boom'));
    pool.workerError(1, 'Uncaught TypeError: boom', () => new Error('crashed on a job: boom'));
    await expect(first).rejects.toThrow('crashed on a job: boom');
    await expect(second).rejects.toThrow('crashed on a job: boom');
    // Not "could not start": the pool still takes jobs, on both workers.
    expect(pool.unavailable).toBeNull();
    const third = pool.submit(signal, (w, id) => w.posted.push(id));
    expect(pool.workers.map((w) => w.posted)).toEqual([[1, 3], [2]]);
    pool.resolve(3, 'three');
    expect(await third).toBe('three');
  });

  it('recognizes the ready handshake and nothing else', () => {
    expect(isWorkerReady(structuredClone(WORKER_READY))).toBe(true);
    expect(isWorkerReady({ type: 'done', id: 1 })).toBe(false);
    expect(isWorkerReady({ id: 1, ok: true })).toBe(false);
    expect(isWorkerReady(null)).toBe(false);
    expect(isWorkerReady(undefined)).toBe(false);
  });
});
