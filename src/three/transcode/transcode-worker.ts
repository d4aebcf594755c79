/*
 * Transcode worker: loads three's Basis transcoder once, then turns UASTC tiles into the pool's
 * block format, and whole UASTC mip levels (streamed KTX2 textures) into the device's. Buffers travel both ways by transfer (the main thread reuses them), so steady
 * state copies each tile only inside the wasm call.
 */
import type { UastcTarget } from '../../core/vt/pool-format';
import type { TranscodeRequest, TranscodeResponse } from './transcode-messages';
import {
  type BasisTranscoderModule,
  basisFormatOf,
  loadBasisTranscoder,
  transcodeUastcImage,
  transcodeUastcTile,
} from './uastc-transcode';

/** The slice of the worker's global scope used here (the DOM lib has no worker typings). */
const scope = self as unknown as {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<TranscodeRequest>) => void) | null;
};
let ready: Promise<BasisTranscoderModule> | null = null;
const formats = new Map<UastcTarget, number>();

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
      .then((wasm) => loadBasisTranscoder(message.scriptText, wasm));
    ready.catch((error: unknown) => post({ type: 'fatal', error: String(error) }));
    return;
  }
  const { id, target, tileSize, width, height, hasAlpha, input, output } = message;
  let ok = false;
  let error: string | undefined;
  try {
    const module = await (ready as Promise<BasisTranscoderModule>);
    let format = formats.get(target);
    if (format === undefined) {
      format = basisFormatOf(module, target);
      formats.set(target, format);
    }
    const blocks = new Uint8Array(input);
    const out = new Uint8Array(output);
    ok =
      tileSize > 0
        ? transcodeUastcTile(module, format, target, blocks, out, tileSize, hasAlpha)
        : transcodeUastcImage(module, format, target, blocks, out, width, height, hasAlpha);
    if (!ok) error = 'the transcoder rejected the UASTC blocks';
  } catch (cause) {
    error = String(cause);
  }
  post({ type: 'result', id, ok, error, input, output }, [input, output]);
};
