/**
 * Entry of a procedural-generation Web Worker. Create it with
 * `new Worker(new URL('./procedural-worker.ts', import.meta.url), { type: 'module' })` and pass the
 * factory to {@link WorkerProceduralTileSource}.
 */

import { type GenerateRequest, handleGenerateRequest } from './procedural-worker-protocol';

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<GenerateRequest>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

scope.onmessage = (event) => {
  const { reply, transfer } = handleGenerateRequest(event.data);
  scope.postMessage(reply, transfer);
};
