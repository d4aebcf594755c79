/**
 * Sharpness of a capture as its high-frequency energy: the mean absolute luminance difference
 * between neighbouring pixels (right and down), on sRGB-encoded 0..255 values. A blurred image of
 * the same scene scores lower: magnified texels are flat inside and change only at their edges.
 * Pure functions (no DOM, no three), so the figure is unit-tested on known images.
 */

/** Linear 0..255 to sRGB-encoded 0..255, one entry per byte value (render targets hold linear light). */
export const LINEAR_TO_SRGB_BYTE: Uint8Array = (() => {
  const table = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    const linear = i / 255;
    const encoded = linear <= 0.0031308 ? linear * 12.92 : 1.055 * linear ** (1 / 2.4) - 0.055;
    table[i] = Math.round(encoded * 255);
  }
  return table;
})();

/**
 * Converts `pixels` (RGBA8, linear light, rows in `width` texels) to sRGB bytes in place, and flips
 * the rows when `flipRows` (a WebGL2 readback runs bottom-up), so the result is top-down.
 */
export function encodeCapture(pixels: Uint8Array, width: number, height: number, flipRows: boolean): void {
  for (let i = 0; i < pixels.length; i += 4) {
    pixels[i] = LINEAR_TO_SRGB_BYTE[pixels[i]];
    pixels[i + 1] = LINEAR_TO_SRGB_BYTE[pixels[i + 1]];
    pixels[i + 2] = LINEAR_TO_SRGB_BYTE[pixels[i + 2]];
  }
  if (!flipRows) return;
  const rowBytes = width * 4;
  for (let top = 0, bottom = height - 1; top < bottom; top++, bottom--) {
    for (let b = 0; b < rowBytes; b++) {
      const a = top * rowBytes + b;
      const c = bottom * rowBytes + b;
      const t = pixels[a];
      pixels[a] = pixels[c];
      pixels[c] = t;
    }
  }
}

/**
 * Mean absolute luminance gradient of an RGBA8 image (sRGB bytes), luminance units (0..255) per
 * pixel step: the sum of |dL/dx| and |dL/dy| over all pixel pairs, divided by the number of pairs.
 * @throws RangeError when `pixels` is shorter than `width * height * 4` or the image is under 2x2.
 */
export function meanLuminanceGradient(pixels: ArrayLike<number>, width: number, height: number): number {
  if (width < 2 || height < 2) throw new RangeError(`image ${width}x${height} is under 2x2`);
  if (pixels.length < width * height * 4)
    throw new RangeError(`${pixels.length} bytes for a ${width}x${height} RGBA8 image`);
  let sum = 0;
  let pairs = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const l = luminance(pixels, i);
      if (x + 1 < width) {
        sum += Math.abs(luminance(pixels, i + 4) - l);
        pairs++;
      }
      if (y + 1 < height) {
        sum += Math.abs(luminance(pixels, i + width * 4) - l);
        pairs++;
      }
    }
  }
  return sum / pairs;
}

function luminance(pixels: ArrayLike<number>, i: number): number {
  return 0.2126 * pixels[i] + 0.7152 * pixels[i + 1] + 0.0722 * pixels[i + 2];
}
