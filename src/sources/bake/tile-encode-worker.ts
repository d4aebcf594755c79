/**
 * Child-process entry of the {@link TileEncodePool}: encodes the tiles it is sent, one at a time,
 * with its own encoders (sharp, the Basis and zstd wasm modules are loaded once per worker), and
 * answers each with its payload. Exits when its parent goes (the IPC channel closes).
 */

import { TesseraError } from '../../core/errors';
import type { TileEncodeReply, TileEncodeRequest } from './tile-encode-messages';
import { encodeTile } from './tile-encoder';

if (process.send === undefined) throw new Error('tile-encode-worker must run as a forked child process');
const send = process.send.bind(process);
process.on('disconnect', () => process.exit(0));

// The pool sends the next tile ahead: encode strictly one after another, in the order sent.
let encoding: Promise<void> = Promise.resolve();
process.on('message', (request: TileEncodeRequest) => {
  encoding = encoding.then(() => encodeAndReply(request));
});

async function encodeAndReply(request: TileEncodeRequest): Promise<void> {
  let reply: TileEncodeReply;
  try {
    const payload = await encodeTile(request.encoding, request.rgba, request.size, request.options);
    reply = { id: request.id, payload };
  } catch (error) {
    reply = {
      id: request.id,
      error: {
        message: error instanceof Error ? error.message : String(error),
        code: error instanceof TesseraError ? error.code : undefined,
        name: error instanceof Error ? error.name : undefined,
      },
    };
  }
  send(reply);
}
