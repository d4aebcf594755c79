/**
 * Builds the mip pyramid of one layer in memory: each level is the 2x2 box average of the level
 * above, in linear light for sRGB layers (averaging encoded values darkens edges and highlights).
 * Levels are whole-page sized, so tiles cut from them line up with the page grid.
 */

import { LINEAR_TABLE_STEPS, LINEAR_TO_SRGB_BYTE, SRGB_BYTE_TO_LINEAR } from '../color/srgb';

/** One rgba8 level of a layer. */
export interface MipImage {
  /** Texels, rgba8, row-major. */
  data: Uint8Array;
  /** Size in texels. */
  width: number;
  height: number;
}

/**
 * Averages `src` down to `width x height` texels (each an exact half of the source size, or the
 * same size on an axis that cannot shrink further). `srgb` averages colour in linear light; alpha
 * is always linear. Deterministic: rounds to nearest through fixed tables.
 */
export function downsample(src: MipImage, width: number, height: number, srgb: boolean): MipImage {
  const fx = src.width / width;
  const fy = src.height / height;
  const out = new Uint8Array(width * height * 4);
  const data = src.data;
  const rowBytes = src.width * 4;
  for (let y = 0; y < height; y++) {
    const row0 = y * fy * rowBytes;
    const row1 = fy === 2 ? row0 + rowBytes : row0;
    for (let x = 0; x < width; x++) {
      const a = row0 + x * fx * 4;
      const b = fx === 2 ? a + 4 : a;
      const c = row1 + x * fx * 4;
      const d = fx === 2 ? c + 4 : c;
      const o = (y * width + x) * 4;
      // With a factor of 1 on an axis the same texel is counted twice: the average is unchanged.
      for (let k = 0; k < 3; k++) {
        if (srgb) {
          const sum =
            SRGB_BYTE_TO_LINEAR[data[a + k]] +
            SRGB_BYTE_TO_LINEAR[data[b + k]] +
            SRGB_BYTE_TO_LINEAR[data[c + k]] +
            SRGB_BYTE_TO_LINEAR[data[d + k]];
          out[o + k] = LINEAR_TO_SRGB_BYTE[Math.round(sum * 0.25 * LINEAR_TABLE_STEPS)];
        } else {
          out[o + k] = (data[a + k] + data[b + k] + data[c + k] + data[d + k] + 2) >> 2;
        }
      }
      out[o + 3] = (data[a + 3] + data[b + 3] + data[c + 3] + data[d + 3] + 2) >> 2;
    }
  }
  return { data: out, width, height };
}

/**
 * Copies page (`x`, `y`) of `level` (tile `tileSize` texels with `border` on each side) into
 * `out`; texels past the level's edge repeat the edge texel (clamp), matching sampler clamping.
 * `rowOffset` shifts the rows read (for a band whose first row is not the level's row 0).
 */
export function extractTile(
  level: MipImage,
  x: number,
  y: number,
  tileSize: number,
  border: number,
  out: Uint8Array,
  rowOffset = 0,
): void {
  const payload = tileSize - 2 * border;
  const x0 = x * payload - border;
  const y0 = y * payload - border;
  for (let j = 0; j < tileSize; j++) {
    const sy = Math.min(Math.max(y0 + j + rowOffset, 0), level.height - 1);
    for (let i = 0; i < tileSize; i++) {
      const sx = Math.min(Math.max(x0 + i, 0), level.width - 1);
      const s = (sy * level.width + sx) * 4;
      const d = (j * tileSize + i) * 4;
      out[d] = level.data[s];
      out[d + 1] = level.data[s + 1];
      out[d + 2] = level.data[s + 2];
      out[d + 3] = level.data[s + 3];
    }
  }
}

/** Copies `src` into a `width x height` image, repeating its last row and column past its edge. */
export function padToSize(src: MipImage, width: number, height: number): MipImage {
  if (src.width === width && src.height === height) return src;
  const out = new Uint8Array(width * height * 4);
  const srcRow = src.width * 4;
  const lastTexel = srcRow - 4;
  for (let y = 0; y < height; y++) {
    const s = Math.min(y, src.height - 1) * srcRow;
    const d = y * width * 4;
    out.set(src.data.subarray(s, s + srcRow), d);
    for (let x = src.width; x < width; x++) out.copyWithin(d + x * 4, d + lastTexel, d + lastTexel + 4);
  }
  return { data: out, width, height };
}
