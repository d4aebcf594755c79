import type { UastcTarget } from '../../core/vt/pool-format';

/** Main thread -> transcode worker: load the transcoder (first message). */
export interface TranscodeInitMessage {
  type: 'init';
  /** basis_transcoder.js source text. */
  scriptText: string;
  /** URL of basis_transcoder.wasm. */
  wasmUrl: string;
}

/** Main thread -> transcode worker: transcode one tile layer. Both buffers are transferred. */
export interface TranscodeJobMessage {
  type: 'job';
  id: number;
  target: UastcTarget;
  /** A square tile's edge in texels; 0 for a whole image (a mip level) of {@link width} x {@link height}. */
  tileSize: number;
  /** Image width in texels (tileSize 0 only). */
  width: number;
  /** Image height in texels (tileSize 0 only). */
  height: number;
  hasAlpha: boolean;
  /** Exactly the tile's (or image's) UASTC blocks. */
  input: ArrayBuffer;
  /** Exactly `transcodedTileBytes(target, tileSize)` (or `transcodedImageBytes`) bytes, overwritten. */
  output: ArrayBuffer;
}

/** Transcode worker -> main thread: the job's answer; both buffers come back (transferred). */
export interface TranscodeResultMessage {
  type: 'result';
  id: number;
  ok: boolean;
  /** Why it failed (`ok` false). */
  error?: string;
  input: ArrayBuffer;
  output: ArrayBuffer;
}

/** Transcode worker -> main thread: the transcoder could not be loaded; every job fails. */
export interface TranscodeFatalMessage {
  type: 'fatal';
  error: string;
}

export type TranscodeRequest = TranscodeInitMessage | TranscodeJobMessage;
export type TranscodeResponse = TranscodeResultMessage | TranscodeFatalMessage;
