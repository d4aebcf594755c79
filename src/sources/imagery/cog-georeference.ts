/**
 * Where a GeoTIFF lies on the Earth, read from its first image file directory: the model type and
 * coordinate reference system (GeoKeys), the raster-to-model transform (`ModelTiepoint` +
 * `ModelPixelScale`, or `ModelTransformation`) and whether a texel is an area or a point. Only
 * the two systems a globe draws without a projection library are recognised: geographic
 * longitude / latitude on WGS 84 (EPSG:4326) and Web Mercator (EPSG:3857).
 */

import type { GeoTIFFImage } from 'geotiff';

/**
 * A GeoTIFF's georeferencing (see {@link CogPyramid.georeference}): its coordinate reference
 * system and the outer edges of its texels in that system and in degrees.
 */
export interface CogGeoreference {
  /**
   * `'EPSG:4326'`: x longitude, y latitude, degrees on WGS 84. `'EPSG:3857'`: Web Mercator x and
   * y, metres (also read from its deprecated code 3785).
   */
  readonly crs: 'EPSG:4326' | 'EPSG:3857';
  /**
   * `[west, south, east, north]` in the CRS's units (degrees or metres): the outer edges of the
   * image's corner texels (for a `PixelIsPoint` file, half a texel beyond the tie points, as GDAL
   * reads it). Longitudes stay as the file has them (a 0..360 grid keeps east up to 360); east is
   * always greater than west and north greater than south.
   */
  readonly bounds: readonly [west: number, south: number, east: number, north: number];
  /** {@link bounds} as longitude and latitude, degrees (the same numbers for EPSG:4326). */
  readonly lonLatBounds: readonly [west: number, south: number, east: number, north: number];
}

/** Semi-major axis of WGS 84, metres: the sphere radius of Web Mercator. */
const WEB_MERCATOR_RADIUS = 6378137;
/**
 * EPSG codes of Web Mercator: 3857 and its deprecated 3785 (a GeoKey is 16 bits, so the unofficial
 * 900913 and Esri's 102100 cannot be written there).
 */
const WEB_MERCATOR_CODES = new Set([3857, 3785]);
/** GeoKey values: `ModelTypeProjected`, `ModelTypeGeographic`, `RasterPixelIsPoint`. */
const MODEL_PROJECTED = 1;
const MODEL_GEOGRAPHIC = 2;
const RASTER_PIXEL_IS_POINT = 2;
/** Unit codes: metre and degree (GeoTIFF's defaults for these systems). */
const UNIT_METRE = 9001;
const UNIT_DEGREE = 9102;

/**
 * The georeferencing of `image`, or `null` when it has none this library places: no GeoKeys, a
 * system other than EPSG:4326 or EPSG:3857 (a UTM zone, a national grid, a user-defined system),
 * units other than degrees or metres, ground control points instead of one transform, a rotated,
 * sheared or flipped (south-up, east-left) transform, or values that cannot be read. Never throws.
 */
export function readCogGeoreference(image: GeoTIFFImage): CogGeoreference | null {
  try {
    return georeference(image);
  } catch {
    // geotiff throws on a GeoKey pointing at a missing parameter tag: a file to draw, unplaced.
    return null;
  }
}

function georeference(image: GeoTIFFImage): CogGeoreference | null {
  const keys = image.getGeoKeys() as Record<string, unknown> | null;
  if (keys === null) return null;
  const crs = crsOf(keys);
  if (crs === null) return null;
  const ifd = image.fileDirectory;
  const transform = rasterToModel(
    ifd.getValue('ModelTiepoint') as ArrayLike<number> | undefined,
    ifd.getValue('ModelPixelScale') as ArrayLike<number> | undefined,
    ifd.getValue('ModelTransformation') as ArrayLike<number> | undefined,
  );
  if (transform === null) return null;
  // PixelIsPoint ties texel centres: the image's outer edge is half a texel further out.
  const edge = keys.GTRasterTypeGeoKey === RASTER_PIXEL_IS_POINT ? -0.5 : 0;
  const width = image.getWidth();
  const height = image.getHeight();
  const west = transform.x0 + transform.dx * edge;
  const east = transform.x0 + transform.dx * (width + edge);
  const north = transform.y0 + transform.dy * edge;
  const south = transform.y0 + transform.dy * (height + edge);
  const bounds = [west, south, east, north] as const;
  if (!bounds.every(Number.isFinite)) return null;
  if (crs === 'EPSG:4326') return { crs, bounds, lonLatBounds: bounds };
  const lonLatBounds = [
    mercatorXToLongitude(west),
    mercatorYToLatitude(south),
    mercatorXToLongitude(east),
    mercatorYToLatitude(north),
  ] as const;
  return { crs, bounds, lonLatBounds };
}

/** The recognised system the GeoKeys name, or `null`. */
function crsOf(keys: Record<string, unknown>): CogGeoreference['crs'] | null {
  const model = keys.GTModelTypeGeoKey;
  const projected = keys.ProjectedCSTypeGeoKey;
  const geographic = keys.GeographicTypeGeoKey;
  if ((model === MODEL_PROJECTED || model === undefined) && typeof projected === 'number') {
    if (!WEB_MERCATOR_CODES.has(projected)) return null;
    const unit = keys.ProjLinearUnitsGeoKey;
    return unit === undefined || unit === UNIT_METRE ? 'EPSG:3857' : null;
  }
  if ((model === MODEL_GEOGRAPHIC || model === undefined) && geographic === 4326) {
    const unit = keys.GeogAngularUnitsGeoKey;
    return unit === undefined || unit === UNIT_DEGREE ? 'EPSG:4326' : null;
  }
  return null;
}

/**
 * Model coordinates of raster position (i, j) are `(x0 + dx i, y0 + dy j)`, with `dx > 0` (east
 * right) and `dy < 0` (north up); `null` for any other transform.
 */
function rasterToModel(
  tiepoint: ArrayLike<number> | undefined,
  scale: ArrayLike<number> | undefined,
  matrix: ArrayLike<number> | undefined,
): { x0: number; y0: number; dx: number; dy: number } | null {
  let transform: { x0: number; y0: number; dx: number; dy: number } | null = null;
  if (tiepoint !== undefined && tiepoint.length === 6 && scale !== undefined && scale.length >= 2) {
    // The tie point pairs raster (I, J) with model (X, Y); y grows up while rows grow down.
    const [i, j, , x, y] = Array.from(tiepoint);
    transform = { x0: x - i * scale[0], y0: y + j * scale[1], dx: scale[0], dy: -scale[1] };
  } else if (matrix !== undefined && matrix.length === 16) {
    // Row-major 4 x 4: x = m0 i + m1 j + m3, y = m4 i + m5 j + m7.
    if (matrix[1] !== 0 || matrix[4] !== 0) return null;
    transform = { x0: matrix[3], y0: matrix[7], dx: matrix[0], dy: matrix[5] };
  }
  if (transform === null || !(transform.dx > 0) || !(transform.dy < 0)) return null;
  return transform;
}

function mercatorXToLongitude(x: number): number {
  return (x / WEB_MERCATOR_RADIUS) * (180 / Math.PI);
}

function mercatorYToLatitude(y: number): number {
  return Math.atan(Math.sinh(y / WEB_MERCATOR_RADIUS)) * (180 / Math.PI);
}
