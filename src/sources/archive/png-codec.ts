/**
 * A small PNG codec for tiles: encodes rgba8 (per-row adaptive filter, DEFLATE via fflate) and
 * decodes 8-bit greyscale/RGB/grey-alpha/RGBA, non-interlaced, to rgba8. Pure JS, exact, and
 * usable in a worker without a canvas (a canvas would premultiply alpha).
 */

import { deflateSync, unzlibSync, zlibSync } from 'fflate';
import { TileSourceError } from '../../core/errors';
import { crc32 } from './crc32';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const CHANNELS_BY_COLOR_TYPE: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** Encodes `width x height` rgba8 texels as a PNG. Deterministic (same texels, same bytes). */
export function encodePng(rgba: Uint8Array, width: number, height: number): Uint8Array {
  const stride = width * 4;
  const filtered = new Uint8Array((stride + 1) * height);
  const candidate = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    let best = 0;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let filter = 0; filter < 5; filter++) {
      let cost = 0;
      for (let i = 0; i < stride; i++) {
        const v = (rgba[row + i] - predict(rgba, filter, row, i, stride, y)) & 0xff;
        candidate[i] = v;
        cost += v < 128 ? v : 256 - v;
      }
      if (cost < bestCost) {
        bestCost = cost;
        best = filter;
      }
    }
    const out = y * (stride + 1);
    filtered[out] = best;
    for (let i = 0; i < stride; i++) {
      filtered[out + 1 + i] = (rgba[row + i] - predict(rgba, best, row, i, stride, y)) & 0xff;
    }
  }
  const idat = zlibSync(filtered, { level: 6 });
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const chunks = [chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))];
  const total = SIGNATURE.length + chunks.reduce((s, c) => s + c.length, 0);
  const png = new Uint8Array(total);
  png.set(SIGNATURE, 0);
  let at = SIGNATURE.length;
  for (const c of chunks) {
    png.set(c, at);
    at += c.length;
  }
  return png;
}

function predict(px: Uint8Array, filter: number, row: number, i: number, stride: number, y: number): number {
  const a = i >= 4 ? px[row + i - 4] : 0;
  const b = y > 0 ? px[row - stride + i] : 0;
  switch (filter) {
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4:
      return paeth(a, b, i >= 4 && y > 0 ? px[row - stride + i - 4] : 0);
    default:
      return 0;
  }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}

/**
 * Decodes a PNG whose IHDR must say `width x height` into rgba8. Dimensions are checked before
 * inflating (a decompression bomb is refused with `oversized`, other sizes with `wrong-size`),
 * and the inflated size is capped at what those dimensions need.
 */
export function decodePng(png: Uint8Array, width: number, height: number): Uint8Array<ArrayBuffer> {
  const fail = (why: string) => new TileSourceError('decode-failed', `PNG: ${why}`, false);
  for (let i = 0; i < 8; i++) if (png[i] !== SIGNATURE[i]) throw fail('bad signature');
  if (png.length < 33) throw new TileSourceError('truncated', 'PNG: shorter than its header', false);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const w = view.getUint32(16);
  const h = view.getUint32(20);
  checkDimensions('PNG', w, h, width, height);
  const depth = png[24];
  const colorType = png[25];
  const channels = CHANNELS_BY_COLOR_TYPE[colorType];
  if (depth !== 8 || channels === undefined || png[28] !== 0)
    throw fail('only 8-bit non-interlaced grey/RGB/RGBA');
  const parts: Uint8Array[] = [];
  let idatBytes = 0;
  let at = 8;
  for (;;) {
    if (at + 12 > png.length) throw new TileSourceError('truncated', 'PNG: ends before IEND', false);
    const length = view.getUint32(at);
    const type = view.getUint32(at + 4);
    if (length > png.length - at - 12)
      throw new TileSourceError('truncated', 'PNG: chunk past the end', false);
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
      else throw fail(`unknown filter ${filter}`);
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
