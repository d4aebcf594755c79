import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Plugin, ViteDevServer } from 'vite';

/** Path the test pages POST rgba8 tiles to (see test/browser/support/uastc-encode-client.ts). */
export const UASTC_ENCODE_PATH = '/__tessera/uastc-encode';

type EncodeBlocks = (
  rgba: Uint8Array,
  width: number,
  height: number,
  options: { srgb: boolean; normal: boolean; quality: number },
) => Promise<Uint8Array>;

function readBody(request: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    request.on('error', reject);
  });
}

/**
 * A Vite plugin for the test server: encodes rgba8 tiles to UASTC blocks with Basis's own encoder
 * (test/support/uastc-encoder.ts, the same wasm the pages would run) in the server, and keeps each
 * result for the rest of the run, keyed by the tile's bytes and the encoder options. The
 * compressed-pool specs ask for the same tiles on every test and both backends; encoding each once
 * (about 80 ms a tile) instead of on each page's main thread took most of their time.
 */
export function uastcEncodeService(): Plugin {
  const cache = new Map<string, Promise<Uint8Array>>();
  let encodeBlocks: Promise<EncodeBlocks> | null = null;
  const encoder = (server: ViteDevServer): Promise<EncodeBlocks> => {
    encodeBlocks ??= server
      .ssrLoadModule('/test/support/uastc-encoder.ts')
      .then((module) => module.encodeUastcBlocks as EncodeBlocks);
    return encodeBlocks;
  };
  return {
    name: 'tessera-uastc-encode-service',
    configureServer(server) {
      server.middlewares.use(UASTC_ENCODE_PATH, (request, response) => {
        const url = new URL(request.url ?? '', 'http://localhost');
        const width = Number(url.searchParams.get('width'));
        const height = Number(url.searchParams.get('height'));
        const options = {
          srgb: url.searchParams.get('srgb') === '1',
          normal: url.searchParams.get('normal') === '1',
          quality: Number(url.searchParams.get('quality') ?? 1),
        };
        readBody(request)
          .then((rgba) => {
            if (request.method !== 'POST' || !(width > 0 && height > 0) || rgba.length !== width * height * 4)
              throw new Error(`expected a POST of ${width}x${height} rgba8 texels, got ${rgba.length} bytes`);
            const key = `${createHash('sha1').update(rgba).digest('hex')}:${width}x${height}:${url.search}`;
            let blocks = cache.get(key);
            if (blocks === undefined) {
              blocks = encoder(server).then((encode) => encode(rgba, width, height, options));
              cache.set(key, blocks);
              blocks.catch(() => cache.delete(key));
            }
            return blocks;
          })
          .then(
            (blocks) => {
              response.setHeader('Content-Type', 'application/octet-stream');
              response.end(blocks);
            },
            (error: unknown) => {
              response.statusCode = 400;
              response.end(String(error));
            },
          );
      });
    },
  };
}
