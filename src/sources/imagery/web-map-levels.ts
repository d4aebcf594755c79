/**
 * The levels of a web map (XYZ / TMS / WMTS servers, PMTiles archives): zoom `z` is the whole
 * world in `2^z x 2^z` square tiles, so the finest zoom is level 0 and each coarser zoom halves it
 * exactly. One place for the zoom <-> level mapping, so every web-map pyramid agrees on it.
 */

import { TesseraConfigError } from '../../core/errors';
import type { ImageryLevel } from './imagery-pyramid';

/**
 * Finest zoom a web-map pyramid accepts: the world is then `tileSize x 2^30` texels wide, still
 * exact in a double, and PMTiles' tile ids stop at 26 anyway.
 */
export const MAX_WEB_MAP_ZOOM = 30;

/**
 * Levels of a web map from `maxZoom` (level 0) to `minZoom` (level `maxZoom - minZoom`): level
 * `i` is `2^(maxZoom - i)` tiles of `tileSize x tileSize` texels per side.
 * @throws TesseraConfigError `invalid-option` unless `0 <= minZoom <= maxZoom <=`
 *   {@link MAX_WEB_MAP_ZOOM} are integers; `not-power-of-two` unless `tileSize` is a power of two.
 */
export function webMapLevels(minZoom: number, maxZoom: number, tileSize: number): ImageryLevel[] {
  if (
    !Number.isInteger(minZoom) ||
    !Number.isInteger(maxZoom) ||
    minZoom < 0 ||
    minZoom > maxZoom ||
    maxZoom > MAX_WEB_MAP_ZOOM
  ) {
    throw new TesseraConfigError(
      'invalid-option',
      `zooms ${minZoom}..${maxZoom}: need integers 0 <= minZoom <= maxZoom <= ${MAX_WEB_MAP_ZOOM}`,
    );
  }
  if (!Number.isInteger(tileSize) || tileSize < 1 || (tileSize & (tileSize - 1)) !== 0) {
    throw new TesseraConfigError('not-power-of-two', `tileSize ${tileSize} is not a power of two`);
  }
  const levels: ImageryLevel[] = [];
  for (let z = maxZoom; z >= minZoom; z--) {
    const side = tileSize * 2 ** z;
    levels.push({ width: side, height: side, tileWidth: tileSize, tileHeight: tileSize });
  }
  return levels;
}

/**
 * The zoom of level `level` of a web map whose finest zoom is `maxZoom`.
 * @throws RangeError unless `level` is an index into `levelCount` levels.
 */
export function zoomOfLevel(level: number, maxZoom: number, levelCount: number): number {
  if (!Number.isInteger(level) || level < 0 || level >= levelCount) {
    throw new RangeError(`level ${level} is not in 0..${levelCount - 1}`);
  }
  return maxZoom - level;
}

/** True when (`x`, `y`) is a tile of zoom `z` (`0 <= x, y < 2^z`, integers). */
export function isTileOfZoom(z: number, x: number, y: number): boolean {
  const n = 2 ** z;
  return Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < n && y < n;
}
