/** Compares two screenshots texel by texel. */

import sharp from 'sharp';

/** Peak signal-to-noise ratio of the RGB channels of two same-sized PNGs, dB (Infinity when equal). */
export async function psnrOfPngs(
  a: Uint8Array,
  b: Uint8Array,
): Promise<{ psnr: number; width: number; height: number }> {
  const [left, right] = await Promise.all(
    [a, b].map((png) => sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })),
  );
  if (left.info.width !== right.info.width || left.info.height !== right.info.height) {
    throw new Error(
      `screenshots differ in size: ${left.info.width}x${left.info.height} vs ${right.info.width}x${right.info.height}`,
    );
  }
  let squared = 0;
  for (let i = 0; i < left.data.length; i++) {
    const d = left.data[i] - right.data[i];
    squared += d * d;
  }
  const mse = squared / left.data.length;
  const psnr = mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse);
  return { psnr, width: left.info.width, height: left.info.height };
}
