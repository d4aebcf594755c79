/**
 * Normal-map texel layouts: an rgb normal map's x and y (red, green) rewritten as Basis
 * Universal lays normal maps out (`NormalChannels` 'red-alpha': x in red, green and blue, y in
 * alpha), whose UASTC blocks its transcoder turns straight into BC5 and EAC RG11.
 */

/** A copy of rgba8 normal-map texels with x (red) in red, green and blue and y (green) in alpha. */
export function normalToRedAlpha(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    const x = rgba[i];
    out[i] = x;
    out[i + 1] = x;
    out[i + 2] = x;
    out[i + 3] = rgba[i + 1];
  }
  return out;
}
