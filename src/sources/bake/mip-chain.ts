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
  const out: MipImage = { data: new Uint8Array(width * height * 4), width, height };
  downsampleRows(src, out, 0, height, srgb);
  return out;
}

/**
 * Rows [`y0`, `y1`) of {@link downsample}`(src, out.width, out.height, srgb)`, written into `out`:
 * a level built a band at a time is byte-identical to one built at once.
 */
export function downsampleRows(src: MipImage, out: MipImage, y0: number, y1: number, srgb: boolean): void {
  const { width, height } = out;
  const rowBytes = src.width * 4;
  // A factor of 1 on an axis reads the same texel twice: the average is unchanged.
  const dx = src.width === width ? 0 : 4;
  const dy = src.height === height ? 0 : rowBytes;
  const average = srgb ? averageRowSrgb : averageRowLinear;
  for (let y = y0; y < y1; y++) {
    const row0 = (dy === 0 ? y : 2 * y) * rowBytes;
    average(src.data, row0, row0 + dy, dx, out.data, y * width * 4, width);
  }
}

/**
 * Averages `width` 2x2 (or 1x2, 2x1) groups of texels starting at `row0` and `row1` into `out` at
 * `o`; colour in linear light. One function per mode keeps the loop free of branches (the bake's
 * serial part: 5x faster than a per-channel branch, the same bytes).
 */
function averageRowSrgb(
  data: Uint8Array,
  row0: number,
  row1: number,
  dx: number,
  out: Uint8Array,
  o: number,
  width: number,
): void {
  const toLinear = SRGB_BYTE_TO_LINEAR;
  const toSrgb = LINEAR_TO_SRGB_BYTE;
  const step = dx === 0 ? 4 : 8;
  for (let x = 0, a = row0, c = row1; x < width; x++, a += step, c += step, o += 4) {
    const b = a + dx;
    const d = c + dx;
    const r = toLinear[data[a]] + toLinear[data[b]] + toLinear[data[c]] + toLinear[data[d]];
    out[o] = toSrgb[Math.round(r * 0.25 * LINEAR_TABLE_STEPS)];
    const g = toLinear[data[a + 1]] + toLinear[data[b + 1]] + toLinear[data[c + 1]] + toLinear[data[d + 1]];
    out[o + 1] = toSrgb[Math.round(g * 0.25 * LINEAR_TABLE_STEPS)];
    const bl = toLinear[data[a + 2]] + toLinear[data[b + 2]] + toLinear[data[c + 2]] + toLinear[data[d + 2]];
    out[o + 2] = toSrgb[Math.round(bl * 0.25 * LINEAR_TABLE_STEPS)];
    out[o + 3] = (data[a + 3] + data[b + 3] + data[c + 3] + data[d + 3] + 2) >> 2;
  }
}

/** {@link averageRowSrgb} for data: every channel averaged as stored. */
function averageRowLinear(
  data: Uint8Array,
  row0: number,
  row1: number,
  dx: number,
  out: Uint8Array,
  o: number,
  width: number,
): void {
  const step = dx === 0 ? 4 : 8;
  for (let x = 0, a = row0, c = row1; x < width; x++, a += step, c += step, o += 4) {
    const b = a + dx;
    const d = c + dx;
    for (let k = 0; k < 4; k++) out[o + k] = (data[a + k] + data[b + k] + data[c + k] + data[d + k] + 2) >> 2;
  }
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
  const inside = x0 >= 0 && x0 + tileSize <= level.width;
  for (let j = 0; j < tileSize; j++) {
    const sy = Math.min(Math.max(y0 + j + rowOffset, 0), level.height - 1);
    if (inside) {
      // No column clamps: the row is one copy (the bake's main process does this per tile).
      const s = (sy * level.width + x0) * 4;
      out.set(level.data.subarray(s, s + tileSize * 4), j * tileSize * 4);
      continue;
    }
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
