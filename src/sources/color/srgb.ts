/**
 * sRGB <-> linear conversions through lookup tables, so per-texel colour work (baking mips,
 * procedural shading) costs a table read instead of a `Math.pow`.
 */

/** Linear-light value (0..1) of each sRGB-encoded byte. */
export const SRGB_BYTE_TO_LINEAR: Float32Array = (() => {
  const table = new Float32Array(256);
  for (let i = 0; i < 256; i++) table[i] = srgbToLinear(i / 255);
  return table;
})();

/** Entries of {@link LINEAR_TO_SRGB_BYTE}: linear values are quantised to 1/4095 steps. */
export const LINEAR_TABLE_STEPS = 4095;

/** sRGB-encoded byte of each linear value `i / LINEAR_TABLE_STEPS`, rounded to nearest. */
export const LINEAR_TO_SRGB_BYTE: Uint8Array = (() => {
  const table = new Uint8Array(LINEAR_TABLE_STEPS + 1);
  for (let i = 0; i <= LINEAR_TABLE_STEPS; i++) {
    table[i] = Math.round(linearToSrgb(i / LINEAR_TABLE_STEPS) * 255);
  }
  return table;
})();

/** Exact sRGB transfer function, encoded (0..1) to linear (0..1). */
export function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Exact inverse sRGB transfer function, linear (0..1) to encoded (0..1). */
export function linearToSrgb(l: number): number {
  return l <= 0.0031308 ? l * 12.92 : 1.055 * l ** (1 / 2.4) - 0.055;
}

/** sRGB byte of a linear value; values outside 0..1 are clamped. */
export function linearToSrgbByte(l: number): number {
  const i = (l * LINEAR_TABLE_STEPS + 0.5) | 0;
  return LINEAR_TO_SRGB_BYTE[i < 0 ? 0 : Math.min(i, LINEAR_TABLE_STEPS)];
}
