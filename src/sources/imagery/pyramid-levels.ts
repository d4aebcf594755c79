/**
 * The level list of a pyramid whose every level halves the one above, rounding up (as Deep Zoom,
 * IIIF and libvips do), so that every pyramid adapter states the same sizes for the same image.
 */

import type { ImageryLevel } from './imagery-pyramid';

/**
 * Size in texels of level `level` of an image `size` texels wide (or high) when every level
 * halves the one above, rounding up: `ceil(size / 2^level)`, which equals halving with rounding
 * up `level` times.
 */
export function halvedSize(size: number, level: number): number {
  return Math.ceil(size / 2 ** level);
}

/**
 * Levels from full resolution down to one texel by one texel: `ceil(log2(max(width, height))) + 1`
 * (a 1 x 1 image has one level).
 */
export function levelCountToOneTexel(width: number, height: number): number {
  const largest = Math.max(width, height);
  let count = 1;
  while (2 ** (count - 1) < largest) count++;
  return count;
}

/**
 * The first `count` levels of an image `width x height` texels with tiles of `tileWidth x
 * tileHeight` texels, level `i` being `ceil(width / 2^i) x ceil(height / 2^i)`.
 */
export function halvingLevels(
  width: number,
  height: number,
  tileWidth: number,
  tileHeight: number,
  count: number,
): ImageryLevel[] {
  const levels: ImageryLevel[] = [];
  for (let i = 0; i < count; i++) {
    levels.push({ width: halvedSize(width, i), height: halvedSize(height, i), tileWidth, tileHeight });
  }
  return levels;
}
