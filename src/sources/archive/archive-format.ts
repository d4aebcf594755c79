/**
 * Constants and types of the Tessera tile archive, versions 1 and 2 (see docs/FORMAT.md). All
 * integers are little-endian; offsets are unsigned 53-bit values stored as two u32 (low word first).
 * Version 2 adds the UASTC encodings and a per-layer usage; a writer emits version 1 whenever the
 * archive needs neither, so older readers keep reading what they always could.
 */

import type { NormalChannels } from '../../core/vt/tile-source';
import { isUastcEncoding, type PayloadEncodingName } from '../io/payload-encoding';

/** "TSVA" read as bytes. */
export const ARCHIVE_MAGIC = [0x54, 0x53, 0x56, 0x41] as const;
/** The newest version this reader understands (it reads every version from 1). */
export const ARCHIVE_VERSION = 2;
/** Bytes of the fixed header before the layer records. */
export const FIXED_HEADER_BYTES = 48;
/** Bytes of one layer record. */
export const LAYER_RECORD_BYTES = 40;
/** Bytes of the UTF-8, zero-padded layer name inside a layer record. */
export const LAYER_NAME_BYTES = 32;
/** Bytes of one index entry: offset (u32 low, u32 high) and length (u32). */
export const INDEX_ENTRY_BYTES = 12;
/** Most layers an archive may have. */
export const MAX_LAYERS = 16;
/** Largest offset/file length the format allows (2^53 - 1 bytes). */
export const MAX_FILE_BYTES = Number.MAX_SAFE_INTEGER;

/** Colour space of a layer's texels. */
export type LayerColorSpace = 'linear' | 'srgb';

/** What a layer's texels mean (version 2; a version-1 layer is always 'color'). */
export type ArchiveLayerUsage = 'color' | 'normal';

/** One layer as described in an archive. */
export interface ArchiveLayer {
  /** 1..32 bytes of UTF-8. */
  name: string;
  /** How each tile's payload of this layer is stored (raw, deflate, PNG, JPEG, WebP, UASTC ...). */
  encoding: PayloadEncodingName;
  /** Whether the texels are sRGB colour or linear data (the pool layer's format follows). */
  colorSpace: LayerColorSpace;
  /** Default 'color'. 'normal': a tangent-space normal map whose x and y are read. */
  usage?: ArchiveLayerUsage;
  /** Where a normal map's x and y are (usage 'normal' only). Default 'red-green'. */
  normalChannels?: NormalChannels;
}

/** The version an archive with `layers` is written as: 2 only when it needs version 2. */
export function archiveVersionFor(layers: readonly ArchiveLayer[]): 1 | 2 {
  return layers.some((l) => isUastcEncoding(l.encoding) || (l.usage ?? 'color') !== 'color') ? 2 : 1;
}

/** The header of an archive: everything but the index and the payloads. */
export interface ArchiveHeader {
  /** Mip-0 width in pages (a power of two, 1..4096). */
  widthPages: number;
  /** Mip-0 height in pages (a power of two, 1..4096). */
  heightPages: number;
  /** Tile side including border, texels (8..1024). */
  tileSize: number;
  /** Border on each side inside the tile, texels (0..(tileSize - 4) / 2). */
  border: number;
  /** Mip levels stored (1..log2(max(widthPages, heightPages)) + 1). */
  mipCount: number;
  /** Texels of mip 0 holding image content (the rest is edge padding), 1..widthPages x payload. */
  contentWidth: number;
  /** Rows of mip 0 holding image content, 1..heightPages x payload. */
  contentHeight: number;
  /** The layers every page stores, in order (1..16, `MAX_LAYERS`). */
  layers: ArchiveLayer[];
}

/** Where each mip's pages start in the index, in pages, plus the total. */
export interface MipLayout {
  /** Pages across at each mip. */
  pagesWide: number[];
  /** Pages down at each mip. */
  pagesHigh: number[];
  /** Index (in pages) of page (0, 0) of each mip. */
  firstPage: number[];
  /** Pages over all mips. */
  pageCount: number;
}

/** Computes the page layout of every mip. */
export function mipLayout(widthPages: number, heightPages: number, mipCount: number): MipLayout {
  const layout: MipLayout = { pagesWide: [], pagesHigh: [], firstPage: [], pageCount: 0 };
  for (let m = 0; m < mipCount; m++) {
    const w = Math.max(1, widthPages >> m);
    const h = Math.max(1, heightPages >> m);
    layout.pagesWide.push(w);
    layout.pagesHigh.push(h);
    layout.firstPage.push(layout.pageCount);
    layout.pageCount += w * h;
  }
  return layout;
}

/** True when page (`x`, `y`) (in pages) of mip `mip` exists in `layout`; false for any other input. */
export function layoutHasPage(layout: MipLayout, mip: number, x: number, y: number): boolean {
  return (
    mip >= 0 &&
    mip < layout.pagesWide.length &&
    x >= 0 &&
    x < layout.pagesWide[mip] &&
    y >= 0 &&
    y < layout.pagesHigh[mip]
  );
}

/** Bytes from the start of the file to the first payload byte. */
export function dataStartOffset(layerCount: number, pageCount: number): number {
  return FIXED_HEADER_BYTES + layerCount * LAYER_RECORD_BYTES + pageCount * layerCount * INDEX_ENTRY_BYTES;
}
