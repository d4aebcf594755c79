/** BC4 and EAC R11 decoders (test references), and the PSNR of a two-channel encoding. */

/** Independent decoders (from the BC4 and EAC specifications), per texel, 0..255 floats. */
export function decodeBc4(block: Uint8Array, o: number, out: Float64Array): void {
  const e0 = block[o];
  const e1 = block[o + 1];
  const palette = [e0, e1];
  if (e0 > e1) for (let k = 1; k <= 6; k++) palette.push(((7 - k) * e0 + k * e1) / 7);
  else {
    for (let k = 1; k <= 4; k++) palette.push(((5 - k) * e0 + k * e1) / 5);
    palette.push(0, 255);
  }
  let bits = 0n;
  for (let i = 0; i < 6; i++) bits |= BigInt(block[o + 2 + i]) << BigInt(8 * i);
  for (let i = 0; i < 16; i++) out[i] = palette[Number((bits >> BigInt(3 * i)) & 7n)];
}

/** The EAC modifier tables (R11/RG11 and the 8-bit alpha of ETC2 RGBA8 share them). */
export const EAC_MODIFIER_TABLES: readonly (readonly number[])[] = [
  [-3, -6, -9, -15, 2, 5, 8, 14],
  [-3, -7, -10, -13, 2, 6, 9, 12],
  [-2, -5, -8, -13, 1, 4, 7, 12],
  [-2, -4, -6, -13, 1, 3, 5, 12],
  [-3, -6, -8, -12, 2, 5, 7, 11],
  [-3, -7, -9, -11, 2, 6, 8, 10],
  [-4, -7, -8, -11, 3, 6, 7, 10],
  [-3, -5, -8, -11, 2, 4, 7, 10],
  [-2, -6, -8, -10, 1, 5, 7, 9],
  [-2, -5, -8, -10, 1, 4, 7, 9],
  [-2, -4, -8, -10, 1, 3, 7, 9],
  [-2, -5, -7, -10, 1, 4, 6, 9],
  [-3, -4, -7, -10, 2, 3, 6, 9],
  [-1, -2, -3, -10, 0, 1, 2, 9],
  [-4, -6, -8, -9, 3, 5, 7, 8],
  [-3, -5, -7, -9, 2, 4, 6, 8],
];

export function decodeEacR11(block: Uint8Array, o: number, out: Float64Array): void {
  let bits = 0n;
  for (let i = 0; i < 8; i++) bits = (bits << 8n) | BigInt(block[o + i]);
  const base = Number(bits >> 56n);
  const multiplier = Number((bits >> 52n) & 15n);
  const table = EAC_MODIFIER_TABLES[Number((bits >> 48n) & 15n)];
  for (let p = 0; p < 16; p++) {
    const index = Number((bits >> BigInt(45 - 3 * p)) & 7n);
    const value = base * 8 + 4 + table[index] * (multiplier === 0 ? 1 : multiplier * 8);
    const x = p >> 2;
    const y = p & 3;
    out[y * 4 + x] = (Math.min(2047, Math.max(0, value)) * 255) / 2047;
  }
}

/**
 * PSNR (dB) of the red and green decoded from two-channel `blocks` (16 bytes per 4x4 block: red
 * then green) against `rgba`'s red and green.
 */
export function psnrOf(
  rgba: Uint8Array,
  size: number,
  blocks: Uint8Array,
  decode: (b: Uint8Array, o: number, out: Float64Array) => void,
): number {
  const texels = new Float64Array(16);
  let squared = 0;
  const perRow = size / 4;
  for (let by = 0; by < perRow; by++) {
    for (let bx = 0; bx < perRow; bx++) {
      for (let channel = 0; channel < 2; channel++) {
        decode(blocks, (by * perRow + bx) * 16 + channel * 8, texels);
        for (let i = 0; i < 16; i++) {
          const x = bx * 4 + (i & 3);
          const y = by * 4 + (i >> 2);
          squared += (texels[i] - rgba[(y * size + x) * 4 + channel]) ** 2;
        }
      }
    }
  }
  return 10 * Math.log10((255 * 255) / (squared / (size * size * 2)));
}
