/**
 * Entry of a decode Web Worker. Create it with
 * `new Worker(new URL('./decode-worker.ts', import.meta.url), { type: 'module' })` (bundlers
 * emit it as its own chunk) and hand the factory to {@link WorkerDecoderPool}.
 */

import { createBrowserImageCodecs } from './browser-image-codecs';
import { type CancelRequest, type DecodeRequest, handleDecodeRequest } from './decode-protocol';

const codecs = createBrowserImageCodecs();
const cancelled = new Set<number>();
const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<DecodeRequest | CancelRequest>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

scope.onmessage = async (event) => {
  const message = event.data;
  if (message.type === 'cancel') {
    cancelled.add(message.id);
    return;
  }
  const { reply, transfer } = await handleDecodeRequest(message, codecs);
  if (cancelled.delete(message.id)) return;
  scope.postMessage(reply, transfer);
};
