import type { TesseraError } from '../errors';
import type { TileData } from './tile-source';

/**
 * Writes one tile into pool slot `slot` of every layer. Return `false` if it could not (the slot is
 * freed and the page stays missing). `tile` is only valid during the call.
 */
export type TileUploadHandler = (
  vt: number,
  slot: number,
  pageId: number,
  tile: TileData,
) => boolean | undefined;

/**
 * Asked before a tile of texture `vt` takes a slot: `false` stops the upload pass for this frame
 * with the tile still waiting (nothing evicted, nothing lost), as when the per-frame bound is met.
 * A binding bounds work of its own per frame with it (pages rendered on the GPU, for instance).
 */
export type UploadAdmission = (vt: number) => boolean;

/** Payload of `page-loaded` / `page-refreshed` / `page-evicted` (one reused object: copy fields to keep them). */
export interface PageEvent {
  /** Texture index. */
  vt: number;
  /** Packed page id. */
  pageId: number;
  /** Pool slot it was written into / evicted from. */
  slot: number;
  /** Frame of the event. */
  frame: number;
}

/** Payload of `error`. */
export interface StreamerErrorEvent {
  /** What went wrong (code `tile-failed-permanently` with the source error as `cause`). */
  error: TesseraError;
  /** Texture index. */
  vt: number;
  /** Packed page id concerned. */
  pageId: number;
}

/** Events of a {@link VirtualTextureStreamer}. */
export interface StreamerEvents {
  /** A page was uploaded into a pool slot and mapped in its page table. */
  'page-loaded': PageEvent;
  /**
   * A resident page was loaded again, improved by its source (`TileSource.watchPages`), and written
   * over its slot (its mapping unchanged).
   */
  'page-refreshed': PageEvent;
  /** A page left the pool (evicted for another, released with its texture, or dropped by a shrink). */
  'page-evicted': PageEvent;
  /** A page failed for good (its fallback stays): `tile-failed-permanently`. */
  error: StreamerErrorEvent;
}
