/**
 * Entry of a procedural-generation Web Worker. {@link WorkerProceduralTileSource} starts it by
 * itself (in the published package from a Blob URL of this entry bundled into one script, see
 * vite.config.ts); a factory of your own can start it as a module worker from the package's
 * `workers/procedural` entry.
 */

import { WORKER_READY } from '../worker-job-pool';
import { type GenerateRequest, handleGenerateRequest } from './procedural-worker-protocol';

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<GenerateRequest>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

scope.onmessage = (event) => {
  const { reply, transfer } = handleGenerateRequest(event.data);
  scope.postMessage(reply, transfer);
};

// The script ran: from now on an error event is a crash on a job, not a failure to start.
scope.postMessage(WORKER_READY, []);
