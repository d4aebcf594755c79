/**
 * One 2x2 box-filter step of an RGBA8 image: what an image without stored mips becomes level by
 * level, once, when it is streamed. Colour channels of sRGB images are averaged in linear light
 * (decoded through a table, encoded back by a 4096-entry table), so dark and bright texels
 * blend as the GPU would filter them; alpha and linear data are averaged as stored. Odd edges
 * clamp (the last row or column is counted twice), so a level is `max(1, floor(edge / 2))`.
 * Pure and allocation-bounded (one output array per call), shared by the worker and Node tests.
 */

/** sRGB byte -> linear [0, 1]. */
const SRGB_TO_LINEAR = new Float32Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  SRGB_TO_LINEAR[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Linear [0, 1] in 4096 steps -> sRGB byte (rounded). */
const LINEAR_STEPS = 4096;
const LINEAR_TO_SRGB = new Uint8Array(LINEAR_STEPS + 1);
for (let i = 0; i <= LINEAR_STEPS; i++) {
  const l = i / LINEAR_STEPS;
  const c = l <= 0.0031308 ? l * 12.92 : 1.055 * l ** (1 / 2.4) - 0.055;
  LINEAR_TO_SRGB[i] = Math.round(Math.min(1, Math.max(0, c)) * 255);
}

/**
 * The next level of `src` (`width` x `height` RGBA8 texels, rows in order).
 * @param srgb true when the colour channels are sRGB-encoded (average in linear light).
 * @returns `max(1, width >> 1)` x `max(1, height >> 1)` RGBA8 texels.
 */
export function downsampleRgba8(src: Uint8Array, width: number, height: number, srgb: boolean): Uint8Array {
  const w = Math.max(1, width >> 1);
  const h = Math.max(1, height >> 1);
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    const y0 = Math.min(height - 1, y * 2);
    const y1 = Math.min(height - 1, y * 2 + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.min(width - 1, x * 2);
      const x1 = Math.min(width - 1, x * 2 + 1);
      const a = (y0 * width + x0) * 4;
      const b = (y0 * width + x1) * 4;
      const c = (y1 * width + x0) * 4;
      const d = (y1 * width + x1) * 4;
      const o = (y * w + x) * 4;
      for (let ch = 0; ch < 3; ch++) {
        if (srgb) {
          const l =
            (SRGB_TO_LINEAR[src[a + ch]] +
              SRGB_TO_LINEAR[src[b + ch]] +
              SRGB_TO_LINEAR[src[c + ch]] +
              SRGB_TO_LINEAR[src[d + ch]]) *
            0.25;
          out[o + ch] = LINEAR_TO_SRGB[Math.round(l * LINEAR_STEPS)];
        } else {
          out[o + ch] = (src[a + ch] + src[b + ch] + src[c + ch] + src[d + ch] + 2) >> 2;
        }
      }
      out[o + 3] = (src[a + 3] + src[b + 3] + src[c + 3] + src[d + 3] + 2) >> 2;
    }
  }
  return out;
}

/**
 * The next level of an image whose texels with alpha 0 hold no data (no-data, outside the image,
 * a missing area of a map): each output texel averages only the texels that have data, weighted
 * by their alpha (the average of premultiplied colour, divided by the average alpha), so colour
 * never darkens or bleeds towards the empty texels' black, as a coastline beside no-data would
 * under {@link downsampleRgba8}. Alpha is the plain average (the fraction of the block covered),
 * and a block without data stays transparent black. Where the texels of a block share one alpha
 * (an opaque image) the result is exactly {@link downsampleRgba8}'s. sRGB colour is averaged in
 * linear light.
 * @param srgb true when the colour channels are sRGB-encoded (average in linear light).
 * @param alongX halve the width (default true); false keeps it, averaging pairs along y only.
 * @param alongY halve the height (default true).
 * @returns RGBA8 texels, `max(1, width >> 1)` (or `width`) x `max(1, height >> 1)` (or `height`).
 */
export function downsampleRgba8SkippingNoData(
  src: Uint8Array,
  width: number,
  height: number,
  srgb: boolean,
  alongX = true,
  alongY = true,
): Uint8Array {
  const w = alongX ? Math.max(1, width >> 1) : width;
  const h = alongY ? Math.max(1, height >> 1) : height;
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    // Along an axis that is kept, a block is the texel twice: the same average, one code path.
    const y0 = alongY ? Math.min(height - 1, y * 2) : y;
    const y1 = alongY ? Math.min(height - 1, y * 2 + 1) : y;
    for (let x = 0; x < w; x++) {
      const x0 = alongX ? Math.min(width - 1, x * 2) : x;
      const x1 = alongX ? Math.min(width - 1, x * 2 + 1) : x;
      const a = (y0 * width + x0) * 4;
      const b = (y0 * width + x1) * 4;
      const c = (y1 * width + x0) * 4;
      const d = (y1 * width + x1) * 4;
      const o = (y * w + x) * 4;
      const wa = src[a + 3];
      const wb = src[b + 3];
      const wc = src[c + 3];
      const wd = src[d + 3];
      const coverage = wa + wb + wc + wd;
      if (coverage === 0) continue;
      out[o + 3] = (coverage + 2) >> 2;
      const uniform = wa === wb && wa === wc && wa === wd;
      for (let ch = 0; ch < 3; ch++) {
        if (srgb) {
          const l = uniform
            ? (SRGB_TO_LINEAR[src[a + ch]] +
                SRGB_TO_LINEAR[src[b + ch]] +
                SRGB_TO_LINEAR[src[c + ch]] +
                SRGB_TO_LINEAR[src[d + ch]]) *
              0.25
            : (wa * SRGB_TO_LINEAR[src[a + ch]] +
                wb * SRGB_TO_LINEAR[src[b + ch]] +
                wc * SRGB_TO_LINEAR[src[c + ch]] +
                wd * SRGB_TO_LINEAR[src[d + ch]]) /
              coverage;
          out[o + ch] = LINEAR_TO_SRGB[Math.round(l * LINEAR_STEPS)];
        } else {
          out[o + ch] = uniform
            ? (src[a + ch] + src[b + ch] + src[c + ch] + src[d + ch] + 2) >> 2
            : Math.round(
                (wa * src[a + ch] + wb * src[b + ch] + wc * src[c + ch] + wd * src[d + ch]) / coverage,
              );
        }
      }
    }
  }
  return out;
}

/**
 * Every level of an image from `level0` down to 1x1 (level 0 included, as given).
 * @returns levels finest first.
 */
export function buildRgba8MipChain(
  level0: Uint8Array,
  width: number,
  height: number,
  srgb: boolean,
): Uint8Array[] {
  const levels = [level0];
  let w = width;
  let h = height;
  while (w > 1 || h > 1) {
    levels.push(downsampleRgba8(levels[levels.length - 1], w, h, srgb));
    w = Math.max(1, w >> 1);
    h = Math.max(1, h >> 1);
  }
  return levels;
}
