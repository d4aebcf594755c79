/**
 * Worker-thread entry of the {@link TileEncodePool}: encodes the tiles it is sent, one at a time,
 * with its own encoders (sharp, the Basis and zstd wasm modules are loaded once per worker), and
 * answers each with its payload, transferred rather than copied.
 */

import { parentPort } from 'node:worker_threads';
import { TesseraError } from '../../core/errors';
import type { TileEncodeReply, TileEncodeRequest } from './tile-encode-messages';
import { encodeTile } from './tile-encoder';

const port = parentPort;
if (port === null) throw new Error('tile-encode-worker must run in a worker thread');

port.on('message', async (request: TileEncodeRequest) => {
  let reply: TileEncodeReply;
  try {
    const payload = await encodeTile(request.encoding, request.rgba, request.size, request.options);
    // sharp and the wasm encoders may return views of larger buffers: send exactly the payload.
    const owned =
      payload.byteOffset === 0 && payload.byteLength === payload.buffer.byteLength
        ? payload
        : payload.slice();
    reply = { id: request.id, payload: owned };
    port.postMessage(reply, [owned.buffer as ArrayBuffer]);
  } catch (error) {
    reply = {
      id: request.id,
      error: {
        message: error instanceof Error ? error.message : String(error),
        code: error instanceof TesseraError ? error.code : undefined,
        name: error instanceof Error ? error.name : undefined,
      },
    };
    port.postMessage(reply);
  }
});
