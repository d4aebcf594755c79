/**
 * Colours of mip levels in debug images and debug shading: hue steps of the golden angle, so
 * neighbouring mips differ clearly, at saturation {@link MIP_PALETTE_SATURATION} and full value.
 * The shader side (`src/three/sampling/virtual-texture-debug.ts`) evaluates the same formula.
 */

/** Hue step between consecutive mips, in turns (1 - 1/golden ratio). */
export const MIP_HUE_STEP = 0.381966;
/** Saturation of mip colours (0..1). */
export const MIP_PALETTE_SATURATION = 0.8;

function channel(hue: number, offset: number): number {
  const f = hue + offset;
  const t = Math.abs((f - Math.floor(f)) * 6 - 3) - 1;
  const pure = Math.min(1, Math.max(0, t));
  return 1 - MIP_PALETTE_SATURATION + MIP_PALETTE_SATURATION * pure;
}

/** RGBA8 colour of every mip (0..15) at full brightness, 4 bytes per mip. */
export const MIP_COLOURS: Uint8Array = (() => {
  const table = new Uint8Array(16 * 4);
  for (let mip = 0; mip < 16; mip++) {
    const hue = mip * MIP_HUE_STEP;
    table[mip * 4] = Math.round(255 * channel(hue, 1));
    table[mip * 4 + 1] = Math.round(255 * channel(hue, 2 / 3));
    table[mip * 4 + 2] = Math.round(255 * channel(hue, 1 / 3));
    table[mip * 4 + 3] = 255;
  }
  return table;
})();

/**
 * Writes the colour of `mip` (0..15) scaled by `brightness` (0..1) as RGBA8 bytes at
 * `out[offset..offset+3]` (alpha 255). Allocates nothing.
 */
export function writeMipColour(
  mip: number,
  brightness: number,
  out: Uint8Array | Uint8ClampedArray,
  offset: number,
): void {
  const m = (mip & 15) * 4;
  out[offset] = MIP_COLOURS[m] * brightness;
  out[offset + 1] = MIP_COLOURS[m + 1] * brightness;
  out[offset + 2] = MIP_COLOURS[m + 2] * brightness;
  out[offset + 3] = 255;
}
