/*
 * Image pyramid worker: decodes an encoded image with `createImageBitmap` (the browser's decoders,
 * off the main thread), reads its RGBA8 texels through an OffscreenCanvas and builds every mip
 * level by 2x2 box filtering (`box-downsample.ts`), once per image. Levels are transferred back.
 */
import { WORKER_READY } from '../worker-job-pool';
import { buildRgba8MipChain } from './box-downsample';
import type { ImagePyramidRequest, ImagePyramidResponse } from './image-pyramid-messages';

const scope = self as unknown as {
  postMessage(message: ImagePyramidResponse | typeof WORKER_READY, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<ImagePyramidRequest>) => void) | null;
};

scope.onmessage = async (event: MessageEvent<ImagePyramidRequest>) => {
  const { id, bytes, mimeType, srgb } = event.data;
  try {
    // Texels exactly as stored: no colour-space conversion, no premultiplication, no flip.
    const bitmap = await createImageBitmap(new Blob([bytes], { type: mimeType }), {
      colorSpaceConversion: 'none',
      premultiplyAlpha: 'none',
      imageOrientation: 'from-image',
    });
    const { width, height } = bitmap;
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d', {
      willReadFrequently: true,
    }) as OffscreenCanvasRenderingContext2D;
    context.drawImage(bitmap, 0, 0);
    bitmap.close();
    const pixels = context.getImageData(0, 0, width, height).data;
    const level0 = new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength);
    const levels = buildRgba8MipChain(level0, width, height, srgb).map((level) =>
      level.byteOffset === 0 && level.byteLength === level.buffer.byteLength
        ? level.buffer
        : level.slice().buffer,
    ) as ArrayBuffer[];
    scope.postMessage({ id, ok: true, width, height, levels }, levels);
  } catch (error) {
    scope.postMessage({ id, ok: false, error: String(error), width: 0, height: 0, levels: [] }, []);
  }
};

// The script ran: from now on an error event is a crash on a job, not a failure to start.
scope.postMessage(WORKER_READY, []);
