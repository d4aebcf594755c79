import { TileSourceError } from '../../core/errors';
import { etc1sTargetBytes } from '../../core/streaming/planning/etc1s-target';
import type { UastcTarget } from '../../core/vt/residency/pool-format';
import { isWorkerReady, WorkerJobPool } from '../../sources/worker-job-pool';
import type { TranscodeEtc1sJobMessage, TranscodeRequest, TranscodeResponse } from './transcode-messages';
import { transcoderUrls } from './transcoder-path';
import { transcodedImageBytes, transcodedTileBytes } from './uastc-transcode';

/** The part of a Worker the pool uses (tests may pass their own). */
export interface TranscodeWorker {
  postMessage(message: TranscodeRequest, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<TranscodeResponse>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  terminate(): void;
}

/** Options of {@link BasisTranscoderPool}. */
export interface BasisTranscoderPoolOptions {
  /**
   * Folder (URL, relative to the page) holding three's `basis_transcoder.js` and
   * `basis_transcoder.wasm`, as `KTX2Loader.setTranscoderPath` takes it. Default: the copy shipped
   * with the library, beside its own files.
   */
  transcoderPath?: string;
  /** Workers, 1..16. Default: hardware threads - 1, at most 4. */
  size?: number;
  /** Creates one worker (default: the library's transcode worker). */
  createWorker?: () => TranscodeWorker;
}

/** What {@link BasisTranscoderPool.transcodeEtc1sLevel} sends besides the level's bytes. */
export type Etc1sLevelJob = Omit<TranscodeEtc1sJobMessage, 'type' | 'id' | 'input' | 'output'>;

/**
 * Transcodes UASTC tiles, and whole UASTC and ETC1S levels of streamed textures, in a pool of
 * workers, each running three's Basis transcoder. Buffers
 * are reused: the tile's UASTC bytes and an output buffer are transferred to the worker and back,
 * and {@link recycle} returns an output buffer once its blocks are uploaded, so steady streaming
 * allocates no tile buffers. Aborting a job rejects it at once (its late answer only refills the
 * rings).
 */
export class BasisTranscoderPool {
  private readonly jobs: WorkerJobPool<TranscodeWorker, Uint8Array>;
  /** Free output buffers by byte length (16 KiB block tiles, 64 KiB rgba8 tiles of 128²). */
  private readonly free = new Map<number, ArrayBuffer[]>();
  /** Why the pool cannot transcode (the transcoder did not load, or a worker failed). */
  private fatal: TileSourceError | null = null;
  /** Jobs transcoding whole levels: their inputs are not kept as staging (odd, large sizes). */
  private readonly levelJobs = new Set<number>();
  private readonly urls: { script: string; wasm: string };

  /** @throws TesseraConfigError('invalid-option') when `transcoderPath` is not a URL. */
  constructor(options: BasisTranscoderPoolOptions = {}) {
    const create = options.createWorker ?? createTranscodeWorker;
    const urls = transcoderUrls(options.transcoderPath);
    const from =
      options.transcoderPath === undefined ? "the library's own copy" : `'${options.transcoderPath}'`;
    this.urls = urls;
    this.jobs = new WorkerJobPool<TranscodeWorker, Uint8Array>({
      size: options.size,
      createWorker: (index) => {
        const worker = create();
        worker.onmessage = (event) => {
          if (isWorkerReady(event.data)) this.jobs.markStarted(index);
          else this.onMessage(index, event.data, from);
        };
        worker.onerror = (event) => {
          event.preventDefault?.();
          const reason = event.message || 'the worker script did not load';
          this.jobs.workerError(index, reason, () => {
            return new TileSourceError(
              'decode-failed',
              `transcode worker crashed on a job: ${reason}`,
              false,
            );
          });
          if (this.jobs.unavailable !== null && this.fatal === null) {
            this.fatal = this.startFailure(this.jobs.unavailable);
            warnOnce(urls.script, this.fatal.message);
          }
        };
        worker.postMessage({ type: 'init', scriptUrl: urls.script, wasmUrl: urls.wasm }, []);
        return worker;
      },
      startFailure: (reason) => this.startFailure(reason),
    });
  }

  /** The error of jobs whose transcode worker could not start (a CSP without `worker-src blob:`). */
  private startFailure(reason: string): TileSourceError {
    return new TileSourceError(
      'transcoder-unavailable',
      `the transcode worker could not start (${reason}); a Content-Security-Policy must allow ` +
        "'worker-src blob:'; Basis textures stay on their placeholders",
      false,
    );
  }

  /**
   * Transcodes one tile's UASTC blocks to `target`. `input` must be exactly the tile's blocks (the
   * caller checks the size); when it spans its whole buffer that buffer is transferred (detached
   * here), else it is copied into a reused staging buffer.
   * @param yInAlpha a normal map stored with y in alpha: two-channel targets transcode directly.
   * @returns a buffer of `transcodedTileBytes(target, tileSize)` bytes, to {@link recycle} after use.
   * @throws (rejects) TileSourceError('decode-failed') when the transcoder rejects the blocks;
   *   'transcoder-unavailable' when the transcoder could not be fetched or started (every job of
   *   the pool then fails with it); the signal's reason when aborted; 'source-disposed' after
   *   {@link dispose}.
   */
  transcode(
    input: Uint8Array,
    target: UastcTarget,
    tileSize: number,
    hasAlpha: boolean,
    signal: AbortSignal,
    yInAlpha = false,
  ): Promise<Uint8Array> {
    return this.submit(input, target, tileSize, tileSize, tileSize, hasAlpha, signal, yInAlpha);
  }

  /**
   * Transcodes one whole `width` x `height` image of UASTC blocks (a streamed texture's mip level;
   * 2x2 and 1x1 levels are one block) to a four-channel `target`. `input` must be exactly
   * `ceil(width / 4) * ceil(height / 4)` blocks (the caller checks); transferred or copied as in
   * {@link transcode}. The result belongs to the caller (levels are cached, never recycled).
   * @returns a buffer of `transcodedImageBytes(target, width, height)` bytes.
   * @throws (rejects) as {@link transcode}; 'decode-failed' for a two-channel target.
   */
  transcodeLevel(
    input: Uint8Array,
    target: UastcTarget,
    width: number,
    height: number,
    hasAlpha: boolean,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    return this.submit(input, target, 0, width, height, hasAlpha, signal);
  }

  /**
   * Transcodes one ETC1S level (`input`: its stored bytes, whose slices `job.slices` locates) with
   * its file's codebooks (`job.codebooks`, decoded once per worker and file) to `job.target`.
   * The result belongs to the caller.
   * @returns a buffer of `etc1sTargetBytes(job.target, job.width, job.height)` bytes.
   * @throws (rejects) as {@link transcode}.
   */
  transcodeEtc1sLevel(input: Uint8Array, job: Etc1sLevelJob, signal: AbortSignal): Promise<Uint8Array> {
    const refused = this.refusal(signal);
    if (refused !== null) return refused;
    const staged = this.stage(input, 0);
    const output = new ArrayBuffer(etc1sTargetBytes(job.target, job.width, job.height));
    return this.jobs.submit(signal, (worker, id) => {
      this.levelJobs.add(id);
      worker.postMessage({ type: 'etc1s', id, ...job, input: staged, output }, [staged, output]);
    });
  }

  /** A rejection when no job may start (disposed, transcoder failed, aborted), else null. */
  private refusal(signal: AbortSignal): Promise<Uint8Array> | null {
    if (this.jobs.disposed) {
      return Promise.reject(
        new TileSourceError('source-disposed', 'the transcoder pool was disposed', false),
      );
    }
    if (this.fatal !== null) return Promise.reject(copyOf(this.fatal));
    if (signal.aborted) return Promise.reject(signal.reason);
    return null;
  }

  /** `input`'s own buffer when it spans it (transferred), else a copy (reused for tiles). */
  private stage(input: Uint8Array, tileSize: number): ArrayBuffer {
    const whole = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength;
    if (whole && input.buffer instanceof ArrayBuffer) return input.buffer;
    const staged = tileSize > 0 ? this.take(input.byteLength) : new ArrayBuffer(input.byteLength);
    new Uint8Array(staged).set(input);
    return staged;
  }

  private submit(
    input: Uint8Array,
    target: UastcTarget,
    tileSize: number,
    width: number,
    height: number,
    hasAlpha: boolean,
    signal: AbortSignal,
    yInAlpha = false,
  ): Promise<Uint8Array> {
    const refused = this.refusal(signal);
    if (refused !== null) return refused;
    const staged = this.stage(input, tileSize);
    const output =
      tileSize > 0
        ? this.take(transcodedTileBytes(target, tileSize))
        : new ArrayBuffer(transcodedImageBytes(target, width, height));
    return this.jobs.submit(signal, (worker, id) => {
      if (tileSize === 0) this.levelJobs.add(id);
      const job = {
        type: 'job',
        id,
        target,
        tileSize,
        width,
        height,
        hasAlpha,
        yInAlpha,
        input: staged,
        output,
      } as const;
      worker.postMessage(job, [staged, output]);
    });
  }

  /** Returns a transcoded tile's buffer for reuse once its bytes were written to the GPU. */
  recycle(bytes: Uint8Array): void {
    const buffer = bytes.buffer;
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength === 0) return;
    let list = this.free.get(buffer.byteLength);
    if (list === undefined) {
      list = [];
      this.free.set(buffer.byteLength, list);
    }
    // Bounded: more free buffers than a few frames of uploads would only hold memory.
    if (list.length < 64) list.push(buffer);
  }

  /** Jobs sent and not yet answered. */
  get pending(): number {
    return this.jobs.pending;
  }

  /** Rejects every pending job with 'source-disposed' and terminates the workers. */
  dispose(): void {
    if (this.jobs.disposed) return;
    this.jobs.dispose(
      () => new TileSourceError('source-disposed', 'the transcoder pool was disposed', false),
    );
    this.free.clear();
    this.levelJobs.clear();
  }

  private take(bytes: number): ArrayBuffer {
    return this.free.get(bytes)?.pop() ?? new ArrayBuffer(bytes);
  }

  /** @param from where the transcoder came from, for the error message. */
  private onMessage(worker: number, message: TranscodeResponse, from: string): void {
    if (message.type === 'fatal') {
      const reason =
        `the Basis transcoder did not load from ${from} (${message.error}), so Basis textures stay ` +
        "on their placeholders: copy three's examples/jsm/libs/basis/ (basis_transcoder.js and " +
        'basis_transcoder.wasm) where your app serves files and set the transcoderPath option to that folder';
      const error = new TileSourceError('transcoder-unavailable', reason, false);
      if (this.fatal === null) warnOnce(this.urls.script, `Tessera: ${reason}`);
      this.failAll(worker, error);
      return;
    }
    // A tile's input comes back too: it becomes a staging buffer (a level's is dropped).
    const level = this.levelJobs.delete(message.id);
    if (!level) this.recycle(new Uint8Array(message.input));
    if (message.ok) this.jobs.resolve(message.id, new Uint8Array(message.output));
    else {
      if (!level) this.recycle(new Uint8Array(message.output));
      this.jobs.reject(
        message.id,
        new TileSourceError('decode-failed', `Basis transcode failed: ${message.error ?? 'unknown'}`, false),
      );
    }
  }

  private failAll(worker: number, error: TileSourceError): void {
    this.fatal = error;
    this.jobs.failWorker(worker, () => copyOf(error));
  }
}

/** Script URLs of transcoders already reported on the console (one warning per page and URL). */
const warnedTranscoders = new Set<string>();

/**
 * One console warning per transcoder URL and page: every pool using it (each system has one)
 * and every job fails with the same typed error on the systems' `error` events, which a page
 * may not listen to; a warning, not an error, as the page keeps rendering with placeholders.
 */
function warnOnce(scriptUrl: string, message: string): void {
  if (warnedTranscoders.has(scriptUrl)) return;
  warnedTranscoders.add(scriptUrl);
  console.warn(message);
}

/** A fresh error per rejected job (each with its own stack), as the pool's other rejections are. */
function copyOf(error: TileSourceError): TileSourceError {
  return new TileSourceError(error.code, error.message, error.retryable);
}

function createTranscodeWorker(): TranscodeWorker {
  // A module worker from the sources; the library build starts it from a Blob URL (vite.config.ts).
  return new Worker(new URL('./transcode-worker.ts', import.meta.url), {
    type: 'module',
    name: 'tessera-transcode',
  }) as unknown as TranscodeWorker;
}
