/** Messages between the {@link TileEncodePool} and its worker threads (structured-cloned). */

import type { PayloadEncodingName } from '../io/payload-encoding';
import type { TileEncoderOptions } from './tile-encoder';

/** One tile to encode; `rgba` is transferred to the worker. */
export interface TileEncodeRequest {
  id: number;
  encoding: PayloadEncodingName;
  rgba: Uint8Array;
  size: number;
  options: TileEncoderOptions;
}

/** The worker's answer to request `id`: the payload, or why encoding failed. */
export type TileEncodeReply =
  | { id: number; payload: Uint8Array; error?: undefined }
  | { id: number; payload?: undefined; error: { message: string; code?: string; name?: string } };
