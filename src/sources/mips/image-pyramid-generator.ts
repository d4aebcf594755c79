import { TileSourceError } from '../../core/errors';
import { isWorkerReady, WorkerJobPool } from '../worker-job-pool';
import type { ImagePyramidRequest, ImagePyramidResponse } from './image-pyramid-messages';
import { LevelListSource } from './level-list-source';

/** The part of a Worker the generator uses (tests may pass their own). */
export interface ImagePyramidWorker {
  /** Sends a request, transferring the listed buffers. */
  postMessage(message: ImagePyramidRequest, transfer: Transferable[]): void;
  /** Receives the worker's responses (set by the generator). */
  onmessage: ((event: MessageEvent<ImagePyramidResponse>) => void) | null;
  /** Receives an error the worker failed with (set by the generator: its jobs then reject). */
  onerror: ((event: ErrorEvent) => void) | null;
  /** Stops the worker. */
  terminate(): void;
}

/** Options of {@link ImagePyramidGenerator}. */
export interface ImagePyramidGeneratorOptions {
  /** Workers, 1..16. Default: hardware threads - 1, at most 4 (started on the first image). */
  size?: number;
  /** Creates one worker (default: the library's image pyramid worker). */
  createWorker?: () => ImagePyramidWorker;
}

/** What an image becomes: its full mip chain in memory, as a streamed texture's source. */
export interface GeneratedPyramid {
  /** The mip chain, as a source for `TextureStreamingSystem`. */
  readonly source: LevelListSource;
  /** Bytes held on the CPU for it (every level, RGBA8). */
  readonly cpuBytes: number;
}

/**
 * Turns encoded images without stored mips (PNG, JPEG, WebP) into full mip pyramids, once per
 * image, in a pool of workers (`createImageBitmap` decodes, a 2x2 box filter downsamples, in
 * linear light for sRGB colour). The levels stay in memory (a {@link LevelListSource}), so the
 * streamer can drop a texture's finest mips under budget pressure and bring them back without
 * decoding again.
 */
export class ImagePyramidGenerator {
  private jobs: WorkerJobPool<ImagePyramidWorker, ImagePyramidResponse> | null = null;
  private readonly options: ImagePyramidGeneratorOptions;
  private disposed = false;

  constructor(options: ImagePyramidGeneratorOptions = {}) {
    this.options = options;
  }

  /**
   * The mip pyramid of the encoded image `bytes` (consumed: its buffer may be transferred).
   * @param srgb the image holds sRGB colour (format `rgba8unorm-srgb`, downsampled in linear light).
   * @throws (rejects) TileSourceError('decode-failed') for an image the browser cannot decode,
   *   ('source-disposed') after {@link dispose}; the signal's reason when aborted.
   */
  async generate(
    bytes: Uint8Array,
    mimeType: string,
    srgb: boolean,
    signal: AbortSignal,
  ): Promise<GeneratedPyramid> {
    if (this.disposed)
      throw new TileSourceError('source-disposed', 'the image pyramid generator was disposed', false);
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const buffer = whole && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : bytes.slice().buffer;
    const answer = await this.pool().submit(signal, (worker, id) => {
      worker.postMessage({ id, bytes: buffer, mimeType, srgb }, [buffer]);
    });
    if (!answer.ok)
      throw new TileSourceError('decode-failed', `image decode failed: ${answer.error ?? 'unknown'}`, false);
    const levels = answer.levels.map((level) => new Uint8Array(level));
    let cpuBytes = 0;
    for (const level of levels) cpuBytes += level.byteLength;
    const source = new LevelListSource(levels, {
      width: answer.width,
      height: answer.height,
      format: srgb ? 'rgba8unorm-srgb' : 'rgba8unorm',
    });
    return { source, cpuBytes };
  }

  /** Terminates the workers; pending images reject with 'source-disposed'. */
  dispose(): void {
    this.disposed = true;
    this.jobs?.dispose(
      () => new TileSourceError('source-disposed', 'the image pyramid generator was disposed', false),
    );
    this.jobs = null;
  }

  private pool(): WorkerJobPool<ImagePyramidWorker, ImagePyramidResponse> {
    if (this.jobs !== null) return this.jobs;
    const create = this.options.createWorker ?? createImagePyramidWorker;
    const jobs = new WorkerJobPool<ImagePyramidWorker, ImagePyramidResponse>({
      size: this.options.size,
      createWorker: (index) => {
        const worker = create();
        worker.onmessage = (event) => {
          if (isWorkerReady(event.data)) jobs.markStarted(index);
          else jobs.resolve(event.data.id, event.data);
        };
        worker.onerror = (event) => {
          event.preventDefault?.();
          const reason = event.message || 'the worker script did not load';
          jobs.workerError(
            index,
            reason,
            () =>
              new TileSourceError('decode-failed', `image pyramid worker crashed on a job: ${reason}`, false),
          );
        };
        return worker;
      },
      startFailure: (reason) =>
        new TileSourceError(
          'decode-failed',
          `the image pyramid worker could not start (${reason}); a Content-Security-Policy must allow 'worker-src blob:'`,
          false,
        ),
    });
    this.jobs = jobs;
    return jobs;
  }
}

function createImagePyramidWorker(): ImagePyramidWorker {
  // A module worker from the sources; the library build starts it from a Blob URL (vite.config.ts).
  return new Worker(new URL('./image-pyramid-worker.ts', import.meta.url), {
    type: 'module',
    name: 'tessera-image-pyramid',
  }) as unknown as ImagePyramidWorker;
}
