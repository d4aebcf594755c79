/**
 * {@link ImageCodecs} for Node: JPEG with jpeg-js (pure JS, with memory caps), WebP with sharp
 * (loaded on first use, so code paths that never see WebP never load the native module).
 */

import { TileSourceError } from '../../core/errors';
import type { ImageCodecs } from './tile-payload-decoder';

// The main entry reaches these codecs (the default decoder's Node branch), so an application's
// browser bundle sees this module too: the specifiers are kept out of bundlers' sight, or they
// would try to bundle the native sharp module for the browser. Node resolves them as usual.
const JPEG_JS_MODULE = 'jpeg-js';
const SHARP_MODULE = 'sharp';

function loadJpegJs(): Promise<{ default: typeof import('jpeg-js') }> {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ JPEG_JS_MODULE);
}

function loadSharp(): Promise<typeof import('sharp')> {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ SHARP_MODULE);
}

/** Creates the Node codecs. */
export function createNodeImageCodecs(): ImageCodecs {
  return {
    async jpeg(bytes, size) {
      const { default: jpeg } = await loadJpegJs();
      try {
        const image = jpeg.decode(bytes, {
          useTArray: true,
          formatAsRGBA: true,
          maxResolutionInMP: Math.max(1, (size * size) / 1e6),
          maxMemoryUsageInMB: 64,
        });
        return new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength).slice();
      } catch (e) {
        throw new TileSourceError('decode-failed', 'JPEG: decoder failed', false, { cause: e });
      }
    },
    async webp(bytes, size) {
      const { default: sharp } = await loadSharp();
      try {
        const { data, info } = await sharp(bytes, { limitInputPixels: size * size, failOn: 'error' })
          .ensureAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        if (info.width !== size || info.height !== size || info.channels !== 4) {
          throw new TileSourceError(
            'wrong-size',
            `WebP decoded to ${info.width}x${info.height}x${info.channels}`,
            false,
          );
        }
        return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
      } catch (e) {
        if (e instanceof TileSourceError) throw e;
        throw new TileSourceError('decode-failed', 'WebP: decoder failed', false, { cause: e });
      }
    },
  };
}
