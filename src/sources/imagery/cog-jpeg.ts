/**
 * JPEG tiles of a TIFF (compression 7, "new-style" JPEG) as complete JPEG streams, so the
 * platform's own decoder (the browser's, in the decode workers; sharp in Node) decodes them as
 * libjpeg does for GDAL: chroma interpolated, libjpeg's IDCT. geotiff's decoder replicates chroma
 * samples, which puts errors of tens of levels along every colour edge of a YCbCr tile.
 *
 * A TIFF keeps the tables that every tile shares (quantisation, often Huffman) in the IFD's
 * `JPEGTables` tag, an abbreviated stream `SOI tables EOI`, and each tile as an abbreviated stream
 * without them. Spliced, `SOI tables tile-segments`, they are one ordinary JPEG.
 */

import { TileSourceError } from '../../core/errors';
import type { CogTexelLayout } from './cog-texels';

/** How a tile's three JPEG components are to be read: as YCbCr (converted to RGB) or as RGB. */
export type CogJpegColour = 'ycbcr' | 'rgb';

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const APP0 = 0xe0;
const APP14 = 0xee;

/**
 * The colour a level's JPEG tiles decode to with an image decoder, or `null` where geotiff keeps
 * decoding them: only 8-bit, three-sample YCbCr (the usual GDAL JPEG COG) or RGB without alpha,
 * which is what a JPEG image decoder returns; grey and four-component tiles stay with geotiff.
 */
export function cogJpegColour(layout: CogTexelLayout): CogJpegColour | null {
  if (layout.sampleType !== 'uint8' || layout.samplesPerPixel !== 3 || layout.alpha !== 'none') return null;
  return layout.kind === 'ycbcr' || layout.kind === 'rgb' ? layout.kind : null;
}

/**
 * One complete JPEG stream from a TIFF's `JPEGTables` (or `null` where the IFD has none: the tile
 * is then complete itself) and one tile's stream. TIFF's `PhotometricInterpretation` says what the
 * components are, as libtiff takes it, whatever markers the streams carry; so JFIF (`APP0`) and
 * Adobe (`APP14`) markers are dropped and one Adobe marker stating the transform is written: 0
 * (none) for RGB, 1 for YCbCr. Without it a decoder would convert an RGB tile from YCbCr (libtiff
 * and GDAL write RGB tiles with no marker).
 * @param tables the `JPEGTables` value: `SOI`, tables, `EOI`.
 * @param tile the tile's bytes: `SOI`, the frame and its scans, `EOI`.
 * @throws TileSourceError `decode-failed` when either is not a JPEG stream (no `SOI`, a segment
 *   running past its end, no scan in the tile).
 */
export function spliceCogJpeg(
  tables: Uint8Array | null,
  tile: Uint8Array,
  colour: CogJpegColour,
): Uint8Array<ArrayBuffer> {
  const tableSegments =
    tables === null || tables.length === 0 ? [] : headerSegments(tables, 'JPEGTables').segments;
  const tileSegments = headerSegments(tile, 'tile');
  const scan = tileSegments.scanAt;
  if (scan < 0) throw new TileSourceError('decode-failed', 'JPEG tile: no scan (SOS)', false);
  const kept = [...tableSegments, ...tileSegments.segments].filter((s) => !isColourMarker(s));
  const adobe = adobeSegment(colour === 'rgb' ? 0 : 1);
  let size = 2 + adobe.length + (tile.length - scan);
  for (const s of kept) size += s.length;
  const out = new Uint8Array(size);
  out[0] = 0xff;
  out[1] = SOI;
  let at = 2;
  out.set(adobe, at);
  at += adobe.length;
  for (const s of kept) {
    out.set(s, at);
    at += s.length;
  }
  out.set(tile.subarray(scan), at);
  return out;
}

/**
 * Sets alpha 0 where all three colour samples equal `nodata`, as {@link CogTexelConverter} does
 * for 8-bit RGB (it never applies `nodata` to YCbCr, whose values it sees only after conversion).
 */
export function applyRgbNodata(rgba: Uint8Array, nodata: number | null): void {
  if (nodata === null) return;
  for (let o = 0; o < rgba.length; o += 4) {
    if (rgba[o] === nodata && rgba[o + 1] === nodata && rgba[o + 2] === nodata) rgba[o + 3] = 0;
  }
}

/**
 * The marker segments of a stream after its `SOI`, up to its first `SOS` or `EOI`, each with its
 * `FF xx` marker; `scanAt` is where the `SOS` starts (-1 when the stream ends before one).
 */
function headerSegments(bytes: Uint8Array, what: string): { segments: Uint8Array[]; scanAt: number } {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== SOI) {
    throw new TileSourceError('decode-failed', `JPEG ${what}: no SOI marker`, false);
  }
  const segments: Uint8Array[] = [];
  let at = 2;
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) throw new TileSourceError('decode-failed', `JPEG ${what}: bad marker`, false);
    const marker = bytes[at + 1];
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === EOI) return { segments, scanAt: -1 };
    if (marker === SOS) return { segments, scanAt: at };
    if (at + 4 > bytes.length) break;
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    if (length < 2 || at + 2 + length > bytes.length) break;
    segments.push(bytes.subarray(at, at + 2 + length));
    at += 2 + length;
  }
  throw new TileSourceError('decode-failed', `JPEG ${what}: a segment runs past the end`, false);
}

/** A JFIF `APP0` or Adobe `APP14` segment: they say how to read the components, which TIFF says. */
function isColourMarker(segment: Uint8Array): boolean {
  const marker = segment[1];
  if (marker === APP0) return hasIdentifier(segment, 'JFIF');
  if (marker === APP14) return hasIdentifier(segment, 'Adobe');
  return false;
}

function hasIdentifier(segment: Uint8Array, id: string): boolean {
  if (segment.length < 4 + id.length) return false;
  for (let i = 0; i < id.length; i++) if (segment[4 + i] !== id.charCodeAt(i)) return false;
  return true;
}

/** An Adobe `APP14` segment (DCTEncode version 100, no flags) with the given colour transform. */
function adobeSegment(transform: 0 | 1): Uint8Array {
  // FF EE, length 14, "Adobe", version 100, flags0, flags1, transform.
  return Uint8Array.of(0xff, APP14, 0, 14, 0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, transform);
}
