/**
 * A small PNG decoder for tiles: 8-bit greyscale/RGB/grey-alpha/RGBA, non-interlaced, to rgba8.
 * Pure JS, exact, and usable in a worker without a canvas (a canvas would premultiply alpha). The
 * baker encodes PNG with sharp; tests and benchmarks encode with `test/support/png-encoder.ts`.
 */

import { deflateSync, unzlibSync } from 'fflate';
import { TileSourceError } from '../../core/errors';

/** The eight bytes every PNG starts with. */
export const PNG_SIGNATURE: readonly number[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const CHANNELS_BY_COLOR_TYPE: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** The Paeth predictor of PNG filter type 4 (shared with the test encoder). */
export function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Decodes a PNG whose IHDR must say `width x height` into rgba8. Dimensions are checked before
 * inflating (a decompression bomb is refused with `oversized`, other sizes with `wrong-size`),
 * and the inflated size is capped at what those dimensions need.
 */
export function decodePng(png: Uint8Array, width: number, height: number): Uint8Array<ArrayBuffer> {
  const fail = (why: string) => new TileSourceError('decode-failed', `PNG: ${why}`, false);
  for (let i = 0; i < 8; i++) if (png[i] !== PNG_SIGNATURE[i]) throw fail('bad signature');
  if (png.length < 33) throw new TileSourceError('truncated', 'PNG: shorter than its header', false);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const w = view.getUint32(16);
  const h = view.getUint32(20);
  checkDimensions('PNG', w, h, width, height);
  const depth = png[24];
  const colorType = png[25];
  const channels = CHANNELS_BY_COLOR_TYPE[colorType];
  if (depth !== 8 || channels === undefined || png[28] !== 0) {
    throw fail('only 8-bit non-interlaced grey/RGB/RGBA');
  }
  const parts: Uint8Array[] = [];
  let idatBytes = 0;
  let at = 8;
  for (;;) {
    if (at + 12 > png.length) throw new TileSourceError('truncated', 'PNG: ends before IEND', false);
    const length = view.getUint32(at);
    const type = view.getUint32(at + 4);
    if (length > png.length - at - 12) {
      throw new TileSourceError('truncated', 'PNG: chunk past the end', false);
    }
    if (type === 0x49444154) {
      parts.push(png.subarray(at + 8, at + 8 + length));
      idatBytes += length;
    } else if (type === 0x49454e44) break;
    at += 12 + length;
  }
  const idat = new Uint8Array(idatBytes);
  let o = 0;
  for (const p of parts) {
    idat.set(p, o);
    o += p.length;
  }
  const stride = width * channels;
  const expected = (stride + 1) * height;
  // One spare byte tells "too much data" from "exactly right"; fflate never grows a given buffer.
  let raw: Uint8Array;
  try {
    raw = unzlibSync(idat, { out: new Uint8Array(expected + 1) });
  } catch (e) {
    throw new TileSourceError('decode-failed', 'PNG: bad zlib stream', false, { cause: e });
  }
  if (raw.length !== expected) throw fail(`image data is ${raw.length} bytes, expected ${expected}`);
  return unfilter(raw, width, height, channels, fail);
}

function unfilter(
  raw: Uint8Array,
  width: number,
  height: number,
  channels: number,
  fail: (why: string) => Error,
): Uint8Array<ArrayBuffer> {
  const stride = width * channels;
  const px = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? px[row + i - channels] : 0;
      const b = y > 0 ? px[row - stride + i] : 0;
      let p: number;
      if (filter === 0) p = 0;
      else if (filter === 1) p = a;
      else if (filter === 2) p = b;
      else if (filter === 3) p = (a + b) >> 1;
      else if (filter === 4) p = paeth(a, b, i >= channels && y > 0 ? px[row - stride + i - channels] : 0);
      else {
        throw fail(`unknown filter ${filter}`);
      }
      px[row + i] = (raw[src + i] + p) & 0xff;
    }
  }
  if (channels === 4) return px;
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0, n = width * height; i < n; i++) {
    const s = i * channels;
    const d = i * 4;
    if (channels < 3) {
      rgba[d] = rgba[d + 1] = rgba[d + 2] = px[s];
      rgba[d + 3] = channels === 2 ? px[s + 1] : 255;
    } else {
      rgba[d] = px[s];
      rgba[d + 1] = px[s + 1];
      rgba[d + 2] = px[s + 2];
      rgba[d + 3] = 255;
    }
  }
  return rgba;
}

/** Throws `oversized` for dimensions past the expected ones (refused before decoding), `wrong-size` for others. */
export function checkDimensions(format: string, w: number, h: number, width: number, height: number): void {
  if (w > width || h > height) {
    throw new TileSourceError('oversized', `${format}: ${w}x${h} exceeds the ${width}x${height} tile`, false);
  }
  if (w !== width || h !== height) {
    throw new TileSourceError('wrong-size', `${format}: ${w}x${h}, expected ${width}x${height}`, false);
  }
}

/** Exposed for the deflate payload: raw DEFLATE of rgba8. */
export const deflateRaw = (bytes: Uint8Array): Uint8Array => deflateSync(bytes, { level: 6 });
