/**
 * A {@link TileDecoder} spreading decodes over Web Workers: compressed bytes go to the least busy
 * worker as a transferred buffer and texels come back the same way, so the main thread neither
 * copies nor decodes. Aborting a job rejects it at once and tells its worker to drop the result.
 */

import { TileSourceError } from '../../../core/errors';
import { isWorkerReady, WorkerJobPool } from '../../worker-job-pool';
import type { PayloadEncodingName } from '../payload-encoding';
import type { ImageDecoder, ImageryTile, TileDecoder } from '../tile-decoder';
import type { CancelRequest, DecodeImageRequest, DecodeReply, DecodeRequest } from './decode-protocol';

/** The part of the Web Worker API the pool uses (a `Worker` satisfies it). */
export interface WorkerLike {
  /** Sends a job or a cancel to the worker, transferring `transfer`. */
  postMessage(message: DecodeRequest | DecodeImageRequest | CancelRequest, transfer?: Transferable[]): void;
  /** Receives the worker's replies (and its ready handshake). */
  addEventListener(type: 'message', listener: (event: MessageEvent<DecodeReply>) => void): void;
  /** Receives the worker's failure to start, or a crash on a job. */
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  /** Stops the worker. */
  terminate(): void;
}

/** Options of {@link WorkerDecoderPool}. */
export interface WorkerDecoderPoolOptions {
  /** Creates one worker running the decode worker entry (`workers/decode` in the package). */
  createWorker: () => WorkerLike;
  /** Workers in the pool, 1..16. Default: `navigator.hardwareConcurrency - 1`, at most 4. */
  size?: number;
}

/** A pool of decode workers, for archive tiles and for whole images. */
export class WorkerDecoderPool implements TileDecoder, ImageDecoder {
  private readonly pool: WorkerJobPool<WorkerLike, Uint8Array | ImageryTile>;

  constructor(options: WorkerDecoderPoolOptions) {
    this.pool = new WorkerJobPool({
      size: options.size,
      createWorker: (index) => {
        const worker = options.createWorker();
        worker.addEventListener('message', (event) => {
          if (isWorkerReady(event.data)) this.pool.markStarted(index);
          else this.onReply(event.data);
        });
        worker.addEventListener('error', (event) => {
          const reason = event.message || 'the worker script did not load';
          this.pool.workerError(
            index,
            reason,
            () => new TileSourceError('decode-failed', `decode worker crashed on a job: ${reason}`, true),
          );
        });
        return worker;
      },
      onAbort: (worker, id) => worker.postMessage({ type: 'cancel', id }),
      startFailure: (reason) =>
        new TileSourceError(
          'decode-failed',
          `the decode worker could not start (${reason}); a Content-Security-Policy must allow 'worker-src blob:'`,
          false,
        ),
    });
  }

  /** Jobs sent and not yet answered. */
  get pending(): number {
    return this.pool.pending;
  }

  /**
   * Decodes one payload in the least busy worker (see {@link TileDecoder.decode}); `bytes` is
   * transferred (or copied when it shares its buffer).
   * @throws (rejects) TileSourceError: the worker's `decode-failed`, `wrong-size`;
   *   `decode-failed` when its worker could not start or crashed on the job (the message says
   *   which); `source-disposed` after {@link dispose}; `signal.reason` once it aborts.
   */
  decode(
    encoding: PayloadEncodingName,
    bytes: Uint8Array,
    tileSize: number,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    if (this.pool.disposed) return Promise.reject(disposedError());
    if (signal.aborted) return Promise.reject(signal.reason);
    const owned = ownedBytes(bytes);
    return this.pool.submit(signal, (worker, id) =>
      worker.postMessage({ type: 'decode', id, encoding, tileSize, bytes: owned }, [owned.buffer]),
    ) as Promise<Uint8Array>;
  }

  /**
   * Decodes one image in the least busy worker (see {@link ImageDecoder.decodeImage}); `bytes`
   * is transferred (or copied when it shares its buffer).
   * @throws (rejects) as {@link decode}.
   */
  decodeImage(bytes: Uint8Array, maxTexels: number, signal: AbortSignal): Promise<ImageryTile> {
    if (this.pool.disposed) return Promise.reject(disposedError());
    if (signal.aborted) return Promise.reject(signal.reason);
    const owned = ownedBytes(bytes);
    return this.pool.submit(signal, (worker, id) =>
      worker.postMessage({ type: 'decode-image', id, maxTexels, bytes: owned }, [owned.buffer]),
    ) as Promise<ImageryTile>;
  }

  /** Terminates the workers; pending and later jobs reject with `source-disposed`. */
  dispose(): void {
    this.pool.dispose(disposedError);
  }

  private onReply(reply: DecodeReply): void {
    if (reply.type === 'done') {
      const { texels, width, height } = reply;
      this.pool.resolve(
        reply.id,
        width === undefined ? texels : { width, height: height ?? 0, data: texels },
      );
    } else this.pool.reject(reply.id, new TileSourceError(reply.code, reply.message, reply.retryable));
  }
}

/** Transfer needs a buffer owned by these bytes alone. */
function ownedBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

function disposedError(): TileSourceError {
  return new TileSourceError('source-disposed', 'decoder pool disposed', false);
}
