/** Messages between {@link WorkerDecoderPool} and a decode worker. */

import type { TileSourceErrorCode } from '../../../core/errors';
import type { PayloadEncodingName } from '../payload-encoding';
import type { ImageryTile } from '../tile-decoder';
import { decodeTilePayload, type ImageCodecs } from '../tile-payload-decoder';

/** Pool -> worker: decode `bytes` (transferred). */
export interface DecodeRequest {
  /** The message's kind. */
  type: 'decode';
  /** The job's id, echoed by the reply. */
  id: number;
  /** How the payload is stored. */
  encoding: PayloadEncodingName;
  /** The tile's side, texels (the decoded size is checked against it). */
  tileSize: number;
  /** The payload (transferred). */
  bytes: Uint8Array;
}

/** Pool -> worker: decode a whole image of any size (`bytes` transferred), at most `maxTexels`. */
export interface DecodeImageRequest {
  /** The message's kind. */
  type: 'decode-image';
  /** The job's id, echoed by the reply. */
  id: number;
  /** Most texels the image may have (width x height); larger is refused as `oversized`. */
  maxTexels: number;
  /** The encoded image (transferred). */
  bytes: Uint8Array;
}

/** Pool -> worker: the job's result is no longer wanted. */
export interface CancelRequest {
  /** The message's kind. */
  type: 'cancel';
  /** The job no longer wanted. */
  id: number;
}

/** Worker -> pool: decoded texels (transferred) or a typed failure. */
export type DecodeReply =
  | { type: 'done'; id: number; texels: Uint8Array; width?: number; height?: number }
  | { type: 'failed'; id: number; code: TileSourceErrorCode; message: string; retryable: boolean };

/** The worker side: decodes one request into a reply (and the buffers to transfer). */
export async function handleDecodeRequest(
  request: DecodeRequest | DecodeImageRequest,
  codecs: ImageCodecs,
  decodeImage: (bytes: Uint8Array, maxTexels: number) => Promise<ImageryTile>,
): Promise<{ reply: DecodeReply; transfer: ArrayBuffer[] }> {
  try {
    if (request.type === 'decode-image') {
      const { width, height, data } = await decodeImage(request.bytes, request.maxTexels);
      return {
        reply: { type: 'done', id: request.id, texels: data, width, height },
        transfer: [data.buffer as ArrayBuffer],
      };
    }
    const texels = await decodeTilePayload(request.encoding, request.bytes, request.tileSize, codecs);
    return { reply: { type: 'done', id: request.id, texels }, transfer: [texels.buffer] };
  } catch (error) {
    const e = error as { code?: TileSourceErrorCode; message?: string; retryable?: boolean };
    return {
      reply: {
        type: 'failed',
        id: request.id,
        code: e.code ?? 'decode-failed',
        message: e.message ?? String(error),
        retryable: e.retryable ?? false,
      },
      transfer: [],
    };
  }
}
