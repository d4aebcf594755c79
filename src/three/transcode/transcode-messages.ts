import type { Etc1sTarget } from '../../core/streaming/planning/etc1s-target';
import type { UastcTarget } from '../../core/vt/residency/pool-format';
import type { Etc1sCodebooks, Etc1sSlices } from './etc1s-transcode';

/** Main thread -> transcode worker: load the transcoder (first message). */
export interface TranscodeInitMessage {
  type: 'init';
  /** Absolute URL of basis_transcoder.js (the worker runs from a Blob URL: nothing relative resolves). */
  scriptUrl: string;
  /** Absolute URL of basis_transcoder.wasm. */
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
  /** A normal map stored with y in alpha (`NormalChannels` 'red-alpha'): two-channel targets transcode directly. */
  yInAlpha: boolean;
  /** Exactly the tile's (or image's) UASTC blocks. */
  input: ArrayBuffer;
  /** Exactly `transcodedTileBytes(target, tileSize)` (or `transcodedImageBytes`) bytes, overwritten. */
  output: ArrayBuffer;
}

/**
 * Main thread -> transcode worker: transcode one ETC1S level. The codebooks are copied with every
 * job (a few KiB to some 100 KiB, once per level) and decoded only on a worker's first job of
 * that file (`codebookId`); the level's bytes and the output are transferred.
 */
export interface TranscodeEtc1sJobMessage {
  type: 'etc1s';
  id: number;
  target: Etc1sTarget;
  /** Identifies the file whose codebooks these are (one per source). */
  codebookId: number;
  codebooks: Etc1sCodebooks;
  slices: Etc1sSlices;
  level: number;
  width: number;
  height: number;
  /** The level's stored bytes (its slices). */
  input: ArrayBuffer;
  /** Exactly `etc1sTargetBytes(target, width, height)` bytes, overwritten. */
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

/** Transcode worker -> main thread: the transcoder could not be fetched or started; every job fails. */
export interface TranscodeFatalMessage {
  type: 'fatal';
  error: string;
}

export type TranscodeRequest = TranscodeInitMessage | TranscodeJobMessage | TranscodeEtc1sJobMessage;
export type TranscodeResponse = TranscodeResultMessage | TranscodeFatalMessage;
