/*
 * Transcode worker: fetches three's Basis transcoder (script and wasm) once, then turns UASTC
 * tiles into the pool's block format, and whole UASTC or ETC1S mip levels (streamed KTX2
 * textures) into the device's (`TranscodeJobRunner`). Buffers travel both ways by transfer (the main thread reuses them), so
 * steady state copies each tile only inside the wasm call.
 */
import { WORKER_READY } from '../../sources/worker-job-pool';
import { TranscodeJobRunner } from './transcode-job-runner';
import type { TranscodeRequest, TranscodeResponse } from './transcode-messages';
import { loadBasisTranscoder } from './uastc-transcode';

/** The slice of the worker's global scope used here (the DOM lib has no worker typings). */
const scope = self as unknown as {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<TranscodeRequest>) => void) | null;
};
let ready: Promise<TranscodeJobRunner> | null = null;

/** The body of `url`; rejects naming the URL when the fetch fails or answers other than 2xx. */
async function fetchFile(url: string, as: 'text'): Promise<string>;
async function fetchFile(url: string, as: 'arrayBuffer'): Promise<ArrayBuffer>;
async function fetchFile(url: string, as: 'text' | 'arrayBuffer'): Promise<string | ArrayBuffer> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (cause) {
    throw new Error(`${url}: ${String(cause)}`);
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return as === 'text' ? response.text() : response.arrayBuffer();
}

function post(message: TranscodeResponse, transfer: Transferable[] = []): void {
  scope.postMessage(message, transfer);
}

scope.onmessage = async (event: MessageEvent<TranscodeRequest>) => {
  const message = event.data;
  if (message.type === 'init') {
    ready = Promise.all([fetchFile(message.scriptUrl, 'text'), fetchFile(message.wasmUrl, 'arrayBuffer')])
      .then(([script, wasm]) => loadBasisTranscoder(script, wasm))
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

// The script ran: from now on an error event is a crash on a job, not a failure to start.
scope.postMessage(WORKER_READY, []);
