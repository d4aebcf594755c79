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
  postMessage(message: DecodeRequest | DecodeImageRequest | CancelRequest, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<DecodeReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
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

  decodeImage(bytes: Uint8Array, maxTexels: number, signal: AbortSignal): Promise<ImageryTile> {
    if (this.pool.disposed) return Promise.reject(disposedError());
    if (signal.aborted) return Promise.reject(signal.reason);
    const owned = ownedBytes(bytes);
    return this.pool.submit(signal, (worker, id) =>
      worker.postMessage({ type: 'decode-image', id, maxTexels, bytes: owned }, [owned.buffer]),
    ) as Promise<ImageryTile>;
  }

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
