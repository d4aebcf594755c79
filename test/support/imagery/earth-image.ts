/**
 * The real Earth map the imagery tests, examples and benchmarks are made from: Debian's
 * `xplanet-images` (`/usr/share/xplanet/images/earth.jpg`, 2048 x 1024, equirectangular), installed
 * by `test/ensure-system-packages.mjs`. Never downloaded.
 */

import { existsSync } from 'node:fs';

/** Where Debian's xplanet-images puts its Earth map. */
export const EARTH_JPG = '/usr/share/xplanet/images/earth.jpg';

/** An rgba8 image in memory, rows top to bottom. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * The Earth map as rgba8 at `width x height` (default its own 2048 x 1024), resized with sharp
 * (Lanczos) when another size is asked for. Adds a seeded per-texel grain of +/-`grain` levels
 * (default 0), so magnified content keeps detail at every scale (a seam or a misplaced texel then
 * shows, where a smooth upscale would hide it).
 * @throws Error naming the Debian package when the file is missing.
 */
export async function loadEarthImage(width = 2048, height = width / 2, grain = 0): Promise<RgbaImage> {
  if (!existsSync(EARTH_JPG)) {
    throw new Error(
      `${EARTH_JPG} is missing: install Debian's xplanet-images (node test/ensure-system-packages.mjs)`,
    );
  }
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(EARTH_JPG)
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const out = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  if (grain > 0) {
    let seed = 0x9e3779b9;
    for (let i = 0; i < out.length; i += 4) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const n = ((seed >>> 24) / 255 - 0.5) * 2 * grain;
      for (let c = 0; c < 3; c++) out[i + c] = Math.max(0, Math.min(255, Math.round(out[i + c] + n)));
    }
  }
  return { width: info.width, height: info.height, data: out };
}

/**
 * Reprojects an equirectangular (plate carrée) world image to Web Mercator (EPSG:3857, +/-85.0511
 * degrees), `size x size`, bilinear, for the web-map tile pyramids (XYZ, PMTiles).
 */
export function equirectangularToMercator(source: RgbaImage, size: number): RgbaImage {
  const out = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    const mercY = Math.PI * (1 - (2 * (y + 0.5)) / size);
    const lat = Math.atan(Math.sinh(mercY));
    const sy = Math.min(source.height - 1, Math.max(0, (0.5 - lat / Math.PI) * source.height - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(source.height - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < size; x++) {
      const sx = ((x + 0.5) / size) * source.width - 0.5;
      const x0 = Math.floor(sx);
      const fx = sx - x0;
      const xa = (x0 + source.width) % source.width;
      const xb = (x0 + 1) % source.width;
      for (let c = 0; c < 4; c++) {
        const a =
          source.data[(y0 * source.width + xa) * 4 + c] * (1 - fx) +
          source.data[(y0 * source.width + xb) * 4 + c] * fx;
        const b =
          source.data[(y1 * source.width + xa) * 4 + c] * (1 - fx) +
          source.data[(y1 * source.width + xb) * 4 + c] * fx;
        out[(y * size + x) * 4 + c] = Math.round(a * (1 - fy) + b * fy);
      }
    }
  }
  return { width: size, height: size, data: out };
}
