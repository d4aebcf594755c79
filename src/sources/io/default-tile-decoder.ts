/**
 * The decoder {@link ArchiveTileSource} uses when given none, chosen so that every encoding the
 * baker writes (raw, DEFLATE, PNG, JPEG, WebP) decodes wherever the source runs:
 * - where `Worker` exists (browsers): a {@link WorkerDecoderPool} whose workers use the browser's
 *   own image codecs, so decoding never blocks the render thread;
 * - where it does not but the browser codecs do (a worker without nested workers): inline, with
 *   those codecs;
 * - otherwise (Node): inline, with the Node codecs (jpeg-js, sharp).
 */

import { decodeImageInBrowser, decodeImageInNode } from './image-decoding';
import { createNodeImageCodecs } from './node-image-codecs';
import { type ImageDecoder, InlineImageDecoder, InlineTileDecoder, type TileDecoder } from './tile-decoder';
import { createBrowserImageCodecs } from './worker/browser-image-codecs';
import { WorkerDecoderPool, type WorkerLike } from './worker/worker-decoder-pool';

interface PlatformGlobals {
  Worker?: unknown;
  createImageBitmap?: unknown;
  OffscreenCanvas?: unknown;
  navigator?: { hardwareConcurrency?: number };
}

/** Workers in the default pool: one core is left to the render thread; more than 4 gain little. */
export function defaultDecodeWorkerCount(hardwareConcurrency: number | undefined): number {
  return Math.max(1, Math.min(4, (hardwareConcurrency ?? 2) - 1));
}

/** Creates the default decoder for this platform (see the module comment for the choice). */
export function createDefaultTileDecoder(): TileDecoder {
  const platform = globalThis as PlatformGlobals;
  if (typeof platform.Worker === 'function') {
    try {
      return new WorkerDecoderPool({
        createWorker: createDecodeWorker,
        size: defaultDecodeWorkerCount(platform.navigator?.hardwareConcurrency),
      });
    } catch {
      // A page whose CSP forbids workers throws here; decoding inline still works.
    }
  }
  if (typeof platform.createImageBitmap === 'function' && typeof platform.OffscreenCanvas === 'function') {
    return new InlineTileDecoder(createBrowserImageCodecs());
  }
  return new InlineTileDecoder(createNodeImageCodecs());
}

function createDecodeWorker(): WorkerLike {
  // A module worker from the sources; the library build starts it from a Blob URL (vite.config.ts).
  return new Worker(new URL('./worker/decode-worker.ts', import.meta.url), {
    type: 'module',
    name: 'tessera-decode',
  }) as unknown as WorkerLike;
}

/**
 * Creates the default decoder of whole images (imagery pyramids) for this platform: the same
 * worker pool as {@link createDefaultTileDecoder} where `Worker` exists, else inline with the
 * browser's codecs, else Node's.
 */
export function createDefaultImageDecoder(): ImageDecoder {
  const platform = globalThis as PlatformGlobals;
  if (typeof platform.Worker === 'function') {
    try {
      return new WorkerDecoderPool({
        createWorker: createDecodeWorker,
        size: defaultDecodeWorkerCount(platform.navigator?.hardwareConcurrency),
      });
    } catch {
      // As above: no workers under this page's CSP.
    }
  }
  if (typeof platform.createImageBitmap === 'function' && typeof platform.OffscreenCanvas === 'function') {
    return new InlineImageDecoder(decodeImageInBrowser);
  }
  return new InlineImageDecoder(decodeImageInNode);
}
