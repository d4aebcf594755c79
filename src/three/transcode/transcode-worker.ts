/*
 * Transcode worker: loads three's Basis transcoder once, then turns UASTC tiles into the pool's
 * block format, and whole UASTC or ETC1S mip levels (streamed KTX2 textures) into the device's
 * (`TranscodeJobRunner`). Buffers travel both ways by transfer (the main thread reuses them), so
 * steady state copies each tile only inside the wasm call.
 */
import { TranscodeJobRunner } from './transcode-job-runner';
import type { TranscodeRequest, TranscodeResponse } from './transcode-messages';
import { loadBasisTranscoder } from './uastc-transcode';

/** The slice of the worker's global scope used here (the DOM lib has no worker typings). */
const scope = self as unknown as {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<TranscodeRequest>) => void) | null;
};
let ready: Promise<TranscodeJobRunner> | null = null;

function post(message: TranscodeResponse, transfer: Transferable[] = []): void {
  scope.postMessage(message, transfer);
}

scope.onmessage = async (event: MessageEvent<TranscodeRequest>) => {
  const message = event.data;
  if (message.type === 'init') {
    ready = fetch(message.wasmUrl)
      .then((response) => {
        if (!response.ok) throw new Error(`basis_transcoder.wasm: HTTP ${response.status}`);
        return response.arrayBuffer();
      })
      .then((wasm) => loadBasisTranscoder(message.scriptText, wasm))
      .then((module) => new TranscodeJobRunner(module));
    ready.catch((error: unknown) => post({ type: 'fatal', error: String(error) }));
    return;
  }
  const { id, input, output } = message;
  let error: string | undefined;
  try {
    error = (await (ready as Promise<TranscodeJobRunner>)).run(message);
  } catch (cause) {
    error = String(cause);
  }
  post({ type: 'result', id, ok: error === undefined, error, input, output }, [input, output]);
};
