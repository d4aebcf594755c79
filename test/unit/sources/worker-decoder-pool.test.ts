import { describe, expect, it } from 'vitest';
import { isAbortError, TileSourceError } from '../../../src/core/errors';
import { decodeImageInNode } from '../../../src/sources/io/image-decoding';
import {
  type CancelRequest,
  type DecodeReply,
  type DecodeRequest,
  handleDecodeRequest,
} from '../../../src/sources/io/worker/decode-protocol';
import { WorkerDecoderPool, type WorkerLike } from '../../../src/sources/io/worker/worker-decoder-pool';
import { WORKER_READY } from '../../../src/sources/worker-job-pool';
import { encodePng } from '../../support/png-encoder';

/** A Web-Worker-shaped fake: messages cross by structuredClone with transfer, as postMessage does. */
class FakeWorker implements WorkerLike {
  static created: FakeWorker[] = [];
  received: (DecodeRequest | CancelRequest)[] = [];
  terminated = false;
  private listeners: ((event: MessageEvent<DecodeReply>) => void)[] = [];

  constructor() {
    FakeWorker.created.push(this);
  }

  postMessage(message: DecodeRequest | CancelRequest, transfer: Transferable[] = []): void {
    const copy = structuredClone(message, { transfer: transfer as Transferable[] });
    this.received.push(copy);
    if (copy.type !== 'decode') return;
    setTimeout(async () => {
      const { reply, transfer: back } = await handleDecodeRequest(copy, {}, decodeImageInNode);
      const delivered = structuredClone(reply, { transfer: back });
      for (const l of this.listeners) l({ data: delivered } as MessageEvent<DecodeReply>);
    }, 5);
  }

  addEventListener(type: string, listener: (event: never) => void): void {
    if (type === 'message') this.listeners.push(listener as (event: MessageEvent<DecodeReply>) => void);
  }

  terminate(): void {
    this.terminated = true;
  }
}

const texels = new Uint8Array(16 * 16 * 4).map((_, i) => i & 0xff);

describe('WorkerDecoderPool', () => {
  it('decodes in workers, transferring the compressed bytes away from the caller', async () => {
    FakeWorker.created = [];
    const pool = new WorkerDecoderPool({ createWorker: () => new FakeWorker(), size: 2 });
    const a = encodePng(texels, 16, 16);
    const b = encodePng(texels, 16, 16);
    const out = await Promise.all([
      pool.decode('png', a, 16, new AbortController().signal),
      pool.decode('png', b, 16, new AbortController().signal),
    ]);
    expect(out[0]).toEqual(texels);
    expect(out[1]).toEqual(texels);
    expect(a.byteLength).toBe(0); // detached: transferred, not copied
    expect(FakeWorker.created.map((w) => w.received.length)).toEqual([1, 1]); // spread over both workers
    pool.dispose();
    expect(FakeWorker.created.every((w) => w.terminated)).toBe(true);
  });

  it('passes typed decode errors back across the worker boundary', async () => {
    const pool = new WorkerDecoderPool({ createWorker: () => new FakeWorker(), size: 1 });
    const error = await pool
      .decode('raw', new Uint8Array(10), 16, new AbortController().signal)
      .catch((e) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect(error.code).toBe('wrong-size');
    pool.dispose();
  });

  it('aborting rejects at once and tells the worker to drop the job', async () => {
    FakeWorker.created = [];
    const pool = new WorkerDecoderPool({ createWorker: () => new FakeWorker(), size: 1 });
    const controller = new AbortController();
    const promise = pool.decode('png', encodePng(texels, 16, 16), 16, controller.signal);
    controller.abort();
    expect(isAbortError(await promise.catch((e) => e))).toBe(true);
    expect(FakeWorker.created[0].received.map((m) => m.type)).toEqual(['decode', 'cancel']);
    expect(pool.pending).toBe(0);
    await new Promise((r) => setTimeout(r, 20)); // the late reply is ignored
    pool.dispose();
  });
  it('rejects its jobs with a typed error, never hangs, when no worker script can start', async () => {
    /** A worker whose script does not load: an error event (no message) and never an answer. */
    class UnstartableWorker extends FakeWorker {
      private errorListeners: ((event: ErrorEvent) => void)[] = [];
      override postMessage(message: DecodeRequest | CancelRequest): void {
        this.received.push(message);
        setTimeout(() => {
          for (const l of this.errorListeners) l({ message: '' } as ErrorEvent);
        }, 1);
      }
      override addEventListener(type: string, listener: (event: never) => void): void {
        if (type === 'error') this.errorListeners.push(listener as (event: ErrorEvent) => void);
        else super.addEventListener(type, listener);
      }
    }
    const pool = new WorkerDecoderPool({ createWorker: () => new UnstartableWorker(), size: 2 });
    const signal = new AbortController().signal;
    const jobs = [0, 1].map(() => pool.decode('png', encodePng(texels, 16, 16), 16, signal));
    for (const job of jobs) {
      await expect(job).rejects.toMatchObject({
        code: 'decode-failed',
        retryable: false,
        message: expect.stringMatching(/could not start/),
      });
    }
    // Every worker failed to start: a new job rejects at once, sent to none.
    await expect(pool.decode('png', encodePng(texels, 16, 16), 16, signal)).rejects.toBeInstanceOf(
      TileSourceError,
    );
    expect(pool.pending).toBe(0);
    pool.dispose();
  });

  it('rejects a job its started worker crashed on as a crash, not as a worker that could not start', async () => {
    /**
     * A worker whose script ran (it posts the ready handshake, as decode-worker.ts does) and whose
     * first job throws uncaught: an error event with the exception's message.
     */
    class CrashingWorker extends FakeWorker {
      private errorListeners: ((event: ErrorEvent) => void)[] = [];
      private messageListeners: ((event: MessageEvent) => void)[] = [];
      override postMessage(message: DecodeRequest | CancelRequest): void {
        this.received.push(message);
        setTimeout(() => {
          for (const l of this.errorListeners)
            l({ message: 'Uncaught RangeError: out of memory' } as ErrorEvent);
        }, 1);
      }
      override addEventListener(type: string, listener: (event: never) => void): void {
        if (type === 'error') this.errorListeners.push(listener as (event: ErrorEvent) => void);
        else {
          this.messageListeners.push(listener as (event: MessageEvent) => void);
          // The handshake arrives after the listener is set, as a worker's first message does.
          queueMicrotask(() => {
            for (const l of this.messageListeners) l({ data: structuredClone(WORKER_READY) } as MessageEvent);
          });
        }
      }
    }
    const pool = new WorkerDecoderPool({ createWorker: () => new CrashingWorker(), size: 1 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    const signal = new AbortController().signal;
    const error = await pool.decode('png', encodePng(texels, 16, 16), 16, signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TileSourceError);
    expect(error).toMatchObject({
      code: 'decode-failed',
      retryable: true,
      message: expect.stringMatching(/crashed on a job: Uncaught RangeError: out of memory/),
    });
    expect((error as Error).message).not.toMatch(/could not start/);
    // The worker still takes jobs (it is not written off as unable to start).
    const again = pool.decode('png', encodePng(texels, 16, 16), 16, signal).catch((e: unknown) => e);
    expect(((await again) as Error).message).toMatch(/crashed on a job/);
    pool.dispose();
  });
});
