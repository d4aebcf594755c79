/**
 * Does the hand-written PNG codec (decoder `src/sources/io/png-codec.ts`, encoder
 * `test/support/png-encoder.ts`) earn its place in Node? The same 128² photograph-like tiles
 * encoded and decoded by it and by sharp (libpng/spng through libvips), one tile at a time on this thread's view (sharp runs on its own thread pool): median
 * microseconds per tile and bytes per tile. (The browser side, createImageBitmap against the JS
 * decoder in the decode workers, needs a browser benchmark and is not measured here.)
 */

import { decodePng } from '../src/sources/io/png-codec';
import { encodePng } from '../test/support/png-encoder';
import { median } from './median';

function tiles(count: number, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let s = 99;
  for (let t = 0; t < count; t++) {
    const data = new Uint8Array(size * size * 4);
    for (let i = 0; i < size * size; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const x = i % size;
      const y = (i / size) | 0;
      data[i * 4] = (128 + 90 * Math.sin((x + t * 13) / 11) + (s >>> 29)) & 0xff;
      data[i * 4 + 1] = (128 + 80 * Math.cos((y + t * 7) / 17) + (s >>> 28)) & 0xff;
      data[i * 4 + 2] = ((x * y) >> 6) & 0xff;
      data[i * 4 + 3] = 255;
    }
    out.push(data);
  }
  return out;
}

async function timePerTile(inputs: Uint8Array[], fn: (input: Uint8Array) => unknown): Promise<number> {
  const times: number[] = [];
  for (let rep = 0; rep < 3; rep++) {
    for (const input of inputs) {
      const started = performance.now();
      await fn(input);
      times.push((performance.now() - started) * 1000);
    }
  }
  return median(times);
}

export default {
  name: 'png-codec',
  async run() {
    const { default: sharp } = await import('sharp');
    const size = 128;
    const raw = tiles(24, size);
    const sharpEncode = async (rgba: Uint8Array) =>
      sharp(rgba, { raw: { width: size, height: size, channels: 4 } })
        .png({ compressionLevel: 6, adaptiveFiltering: true })
        .toBuffer();
    const jsPngs = raw.map((t) => encodePng(t, size, size));
    const sharpPngs = await Promise.all(raw.map(sharpEncode));
    const bytes = (xs: Uint8Array[]) => xs.reduce((n, x) => n + x.length, 0) / xs.length;
    return {
      'png_codec.encode.js_us': await timePerTile(raw, (t) => encodePng(t, size, size)),
      'png_codec.encode.sharp_us': await timePerTile(raw, sharpEncode),
      'png_codec.encode.js_bytes': bytes(jsPngs),
      'png_codec.encode.sharp_bytes': bytes(sharpPngs),
      'png_codec.decode.js_us': await timePerTile(jsPngs, (p) => decodePng(p, size, size)),
      'png_codec.decode.sharp_us': await timePerTile(jsPngs, (p) => sharp(p).ensureAlpha().raw().toBuffer()),
    };
  },
};
