/**
 * `TESSERA_texture_prefix`: a glTF image extension that carries the first bytes of the image's own
 * `.ktx2` file (its metadata and its pinned levels) in a bufferView of the glTF's buffer, so the
 * coarse levels of every texture arrive with the glTF in one request. Written by the baker
 * (`TesseraTexturePrefix`, a glTF-Transform extension), read by the glTF plugin; this file holds
 * what both agree on, and imports nothing of either.
 */

import { pinnedMipLevel } from '../../core/streaming/streamed-texture-table';
import type { Ktx2Layout } from './ktx2-layout';

/**
 * The glTF image extension by which a KTX2 image with a `uri` carries its file's first bytes:
 * `"extensions": { "TESSERA_texture_prefix": { "bufferView": <index>, "byteLength": <bytes>,
 * "fileByteLength": <bytes> } }` on the image, listed in `extensionsUsed` only (a loader that does
 * not know it reads the `.ktx2` file as usual).
 */
export const TESSERA_TEXTURE_PREFIX = 'TESSERA_texture_prefix';

/** The JSON of {@link TESSERA_TEXTURE_PREFIX} on a glTF image. */
export interface TexturePrefixJson {
  /**
   * The bufferView holding bytes [0, `byteLength`) of the image's file, then zeros up to a
   * multiple of 4 bytes.
   */
  bufferView: number;
  /** Bytes of the file the bufferView holds, from its start. */
  byteLength: number;
  /** Bytes of the whole file (what the first HTTP Range answer must say). */
  fileByteLength: number;
}

/**
 * Bytes from the start of a KTX2 file of `layout` worth carrying in the glTF: its metadata (header,
 * level index, DFD, key/value and global data) and, when they are stored right after it (as
 * `tesseraTextures` writes, coarsest first), its pinned levels, those whose edge is at most
 * `PINNED_MAX_EDGE` texels (64): the streamer loads exactly these before the texture first
 * renders, so carrying them adds no byte the first frame would not download anyway, and nothing a
 * closer view needs. KTX2 stores levels smallest first; a file that did not (finer levels between
 * the metadata and the pinned ones) would carry its metadata only.
 */
export function ktx2CoarsePrefixBytes(layout: Ktx2Layout): number {
  const pinned = pinnedMipLevel(layout.width, layout.height, layout.levelCount);
  let pinnedEnd = layout.prefixBytes;
  for (let level = pinned; level < layout.levelCount; level++) {
    pinnedEnd = Math.max(pinnedEnd, layout.levelOffsets[level] + layout.levelLengths[level]);
  }
  for (let level = 0; level < pinned; level++) {
    if (layout.levelOffsets[level] < pinnedEnd) return layout.prefixBytes;
  }
  return pinnedEnd;
}
