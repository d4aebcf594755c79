import { describe, expect, it } from 'vitest';
import { encodeBc5, encodeEacRg11 } from '../../../src/three/transcode/two-channel-encoder';
import { decodeBc4, decodeEacR11, psnrOf } from '../../support/two-channel-decoders';

/** A 32² tile of smooth normal-like x/y with some sharp steps, alpha unrelated (constant 255). */
function tile(size: number): Uint8Array {
  const rgba = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const o = (y * size + x) * 4;
      rgba[o] = Math.round(128 + 90 * Math.sin(x / 5) + (x > 20 ? 20 : 0));
      rgba[o + 1] = Math.round(128 + 80 * Math.cos(y / 7 + x / 31));
      rgba[o + 2] = 255;
      rgba[o + 3] = 255;
    }
  }
  return rgba;
}

describe('two-channel encoders (a normal map’s x and y)', () => {
  const size = 32;
  const rgba = tile(size);

  it('encodes red and green as BC5 within 40 dB of the texels', () => {
    const out = new Uint8Array((size / 4) ** 2 * 16);
    encodeBc5(rgba, size, out);
    expect(psnrOf(rgba, size, out, decodeBc4)).toBeGreaterThan(40);
  });

  it('encodes red and green as EAC RG11 within 40 dB of the texels', () => {
    const out = new Uint8Array((size / 4) ** 2 * 16);
    encodeEacRg11(rgba, size, out);
    expect(psnrOf(rgba, size, out, decodeEacR11)).toBeGreaterThan(40);
  });

  it('keeps flat blocks exact', () => {
    const flat = new Uint8Array(16 * 16 * 4).fill(77);
    const out = new Uint8Array(16 * 16);
    encodeBc5(flat, 16, out);
    expect(psnrOf(flat, 16, out, decodeBc4)).toBeGreaterThan(60);
    encodeEacRg11(flat, 16, out);
    expect(psnrOf(flat, 16, out, decodeEacR11)).toBeGreaterThan(45);
  });
});
