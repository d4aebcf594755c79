/**
 * Entry of a decode Web Worker. The default decoder starts it by itself (in the published package
 * from a Blob URL of this entry bundled into one script, see vite.config.ts); a
 * {@link WorkerDecoderPool} of your own can start it as a module worker from the package's
 * `workers/decode` entry.
 */

import { WORKER_READY } from '../../worker-job-pool';
import { decodeImageInBrowser } from '../image-decoding';
import { createBrowserImageCodecs } from './browser-image-codecs';
import {
  type CancelRequest,
  type DecodeImageRequest,
  type DecodeRequest,
  handleDecodeRequest,
} from './decode-protocol';

const codecs = createBrowserImageCodecs();
const cancelled = new Set<number>();
const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<DecodeRequest | DecodeImageRequest | CancelRequest>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

scope.onmessage = async (event) => {
  const message = event.data;
  if (message.type === 'cancel') {
    cancelled.add(message.id);
    return;
  }
  const { reply, transfer } = await handleDecodeRequest(message, codecs, decodeImageInBrowser);
  if (cancelled.delete(message.id)) return;
  scope.postMessage(reply, transfer);
};

// The script ran: from now on an error event is a crash on a job, not a failure to start.
scope.postMessage(WORKER_READY, []);
