/**
 * A PNG encoder for tests and benchmarks (the library only decodes PNG; the baker encodes with
 * sharp): rgba8, a per-row adaptive filter, DEFLATE via fflate. Deterministic, exact.
 */

import { zlibSync } from 'fflate';
import { crc32 } from '../../src/sources/archive/crc32';
import { PNG_SIGNATURE, paeth } from '../../src/sources/io/png-codec';

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
  const total = PNG_SIGNATURE.length + chunks.reduce((s, c) => s + c.length, 0);
  const png = new Uint8Array(total);
  png.set(PNG_SIGNATURE, 0);
  let at = PNG_SIGNATURE.length;
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

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}
