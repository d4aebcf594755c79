/** Where payload decoding runs: in the calling thread, or in a pool of workers. */

import type { PayloadEncodingName } from './payload-encoding';
import { decodeTilePayload, type ImageCodecs } from './tile-payload-decoder';

/**
 * One decoded image: rgba8 texels, rows top to bottom, `width x height x 4` bytes, not
 * premultiplied. It is what an {@link ImageDecoder} returns and what an imagery pyramid's
 * `loadTile` resolves (a tile may be larger than the part of its cell inside the level, as a
 * GeoTIFF's padded edge tiles are; only that part is read).
 */
export interface ImageryTile {
  /** Width, in texels. */
  readonly width: number;
  /** Height, in texels. */
  readonly height: number;
  /** `width x height x 4` bytes of rgba8. */
  readonly data: Uint8Array;
}

/**
 * Decodes payloads to `tileSize² x 4` rgba8 (UASTC encodings: to the tile's UASTC blocks);
 * rejects with a `TileSourceError`, or an abort error once `signal` aborts.
 */
export interface TileDecoder {
  /** `bytes` may be transferred to a worker: the caller must not use it afterwards. */
  decode(
    encoding: PayloadEncodingName,
    bytes: Uint8Array,
    tileSize: number,
    signal: AbortSignal,
  ): Promise<Uint8Array>;
  /** Stops workers, if any. */
  dispose?(): void;
}

/** A {@link TileDecoder} running in the calling thread (Node, tests, or inside a worker). */
export class InlineTileDecoder implements TileDecoder {
  constructor(private readonly codecs: ImageCodecs = {}) {}

  /**
   * Decodes one payload in this thread (see {@link TileDecoder.decode}).
   * @throws TileSourceError `decode-failed` (a bad payload, or an encoding without a codec here),
   *   `wrong-size`; `signal.reason` once it aborted.
   */
  async decode(encoding: PayloadEncodingName, bytes: Uint8Array, tileSize: number, signal: AbortSignal) {
    if (signal.aborted) throw signal.reason;
    const out = await decodeTilePayload(encoding, bytes, tileSize, this.codecs);
    if (signal.aborted) throw signal.reason;
    return out;
  }
}

/** Decodes whole images of any size to rgba8 (the tiles of imagery pyramids). */
export interface ImageDecoder {
  /**
   * Decodes a PNG, JPEG, WebP or AVIF (where the platform can). `bytes` may be transferred to a
   * worker: the caller must not use it afterwards.
   * @throws TileSourceError `decode-failed`, `oversized` (over `maxTexels`), `unsupported`; an
   *   abort error once `signal` aborts.
   */
  decodeImage(bytes: Uint8Array, maxTexels: number, signal: AbortSignal): Promise<ImageryTile>;
  /** Stops workers, if any. */
  dispose?(): void;
}

/** An {@link ImageDecoder} running in the calling thread, with the given platform function. */
export class InlineImageDecoder implements ImageDecoder {
  constructor(private readonly decode: (bytes: Uint8Array, maxTexels: number) => Promise<ImageryTile>) {}

  /**
   * Decodes one image in this thread with the platform function given (see
   * {@link ImageDecoder.decodeImage}).
   * @throws as that function: TileSourceError `decode-failed`, `oversized`, `unsupported`;
   *   `signal.reason` once it aborted.
   */
  async decodeImage(bytes: Uint8Array, maxTexels: number, signal: AbortSignal): Promise<ImageryTile> {
    if (signal.aborted) throw signal.reason;
    const out = await this.decode(bytes, maxTexels);
    if (signal.aborted) throw signal.reason;
    return out;
  }
}
