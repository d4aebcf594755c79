import { clamp, float, floor, log, step, tan, uv, vec2 } from 'three/tsl';
import type { Node } from 'three/webgpu';
import { TesseraConfigError } from '../../core/errors';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/**
 * Where georeferenced imagery lies, as {@link geographicUv} takes it: a `CogPyramid`'s
 * `georeference` (`@tessera-vt/tessera/imagery`) is one, and so is any object with these fields.
 */
export interface GeographicExtent {
  /** `'EPSG:4326'`: bounds in degrees of longitude and latitude; `'EPSG:3857'`: Web Mercator metres. */
  readonly crs: 'EPSG:4326' | 'EPSG:3857';
  /**
   * `[west, south, east, north]` in the CRS's units: the outer edges of the image (its first and
   * last texels' far sides), east greater than west, north greater than south. Longitudes may run
   * past 180 degrees (170..190 crosses the antimeridian; a 0..360 grid is whole).
   */
  readonly bounds: readonly [west: number, south: number, east: number, north: number];
}

/** What {@link geographicUv} returns: where to sample the imagery, and whether it covers the pixel. */
export interface GeographicPlacement {
  /**
   * vec2 node: the imagery's texture uv, (0, 0) its south-west corner and (1, 1) its north-east
   * one, oriented as three's `flipY` textures (v = 1 the image's top row, its north edge), so it
   * suits `virtualTexture`'s default `flipY: true` and a plain `Texture` from `TextureLoader`.
   * Outside the bounds it runs on past [0, 1] (where samplers clamp): mask it with {@link inside}.
   */
  readonly uv: Node<'vec2'>;
  /**
   * float node: 1 where the pixel's longitude and latitude lie within the bounds (edges included),
   * 0 elsewhere: the weight to `mix` the imagery over what lies under it, or to multiply into its
   * alpha.
   */
  readonly inside: Node<'float'>;
}

/** Web Mercator's sphere radius, metres (WGS 84's semi-major axis). */
const WEB_MERCATOR_RADIUS = 6378137;
/**
 * Latitude where the Mercator y is evaluated at most, radians (0.0001 rad short of the pole,
 * where it is infinite): any bounds end before it, so the polar caps come out outside.
 */
const MAX_MERCATOR_EVALUATION_LATITUDE = Math.PI / 2 - 1e-4;

/**
 * TSL node placing georeferenced imagery on a globe: turns a `SphereGeometry`'s equirectangular uv
 * into the imagery's texture uv, with a mask of where the imagery lies, for a COG (or any image)
 * in EPSG:4326 or EPSG:3857 that covers part of the Earth:
 *
 * ```ts
 * const cog = await openCogPyramid(url); // cog.georeference: EPSG:4326 or 3857 bounds, or null
 * const placed = geographicUv(cog.georeference!);
 * const imagery = virtualTexture(vts.add(new ImageryTileSource(cog)), placed.uv);
 * material.colorNode = mix(basemap, imagery, placed.inside.mul(imagery.a));
 * ```
 *
 * `uvNode` (default: the mesh's first uv set) is a `SphereGeometry`'s uv: u = longitude from
 * -180 degrees (0) to 180 degrees (1), v = latitude, linear, from the south pole (0) to the north
 * pole (1), as {@link webMercatorUv} reads it. For EPSG:4326 the imagery's uv is linear in
 * longitude and latitude over the bounds; for EPSG:3857 u is linear in longitude and v in the
 * Mercator y of the latitude, ln(tan(pi/4 + lat/2)), over the bounds in metres. Longitudes are
 * taken within 180 degrees of the bounds' centre, so bounds crossing the antimeridian place
 * correctly and the wrap (where the uv jumps) falls on the far side of the globe, never inside
 * the imagery.
 *
 * Computed per pixel, so a coarse sphere still places every texel where it belongs, and a virtual
 * texture's mip and feedback follow the mapped uv's derivatives. A virtual texture sampled at
 * {@link GeographicPlacement.uv} still requests its edge pages for pixels outside the bounds (the
 * uv is clamped there); draw the imagery on its own mesh with `alphaTest` (or a discard) on
 * `inside` where that matters, since discarded fragments request nothing.
 *
 * @param extent the imagery's CRS and bounds (a `CogPyramid`'s non-null `georeference`).
 * @param uvNode equirectangular uv (vec2), as `SphereGeometry` makes them.
 * @returns the imagery's uv node and the 0/1 `inside` node.
 * @throws TesseraConfigError `invalid-option` for a CRS other than the two, bounds that are not
 *   finite numbers, or east not greater than west or north not greater than south.
 */
export function geographicUv(extent: GeographicExtent, uvNode: Node<'vec2'> = uv()): GeographicPlacement {
  const { crs, bounds } = extent;
  if (crs !== 'EPSG:4326' && crs !== 'EPSG:3857') {
    throw new TesseraConfigError('invalid-option', `geographicUv places EPSG:4326 or EPSG:3857, got ${crs}`);
  }
  if (
    bounds.length !== 4 ||
    !bounds.every(Number.isFinite) ||
    !(bounds[2] > bounds[0]) ||
    !(bounds[3] > bounds[1])
  ) {
    throw new TesseraConfigError(
      'invalid-option',
      `bounds must be finite [west, south, east, north] with east > west and north > south, got [${bounds.join(', ')}]`,
    );
  }
  // x in degrees of longitude for both systems; y in degrees (4326) or Mercator y in radii (3857).
  const toDegrees = crs === 'EPSG:4326' ? 1 : 180 / (Math.PI * WEB_MERCATOR_RADIUS);
  const toY = crs === 'EPSG:4326' ? 1 : 1 / WEB_MERCATOR_RADIUS;
  const west = bounds[0] * toDegrees;
  const east = bounds[2] * toDegrees;
  const south = bounds[1] * toY;
  const north = bounds[3] * toY;
  const centre = (west + east) / 2;

  const equirectangular: Expr = uvNode;
  // Longitude relative to the bounds' centre, wrapped into [-180, 180).
  const fromCentre: Expr = equirectangular.x.mul(360).sub(180 + centre);
  const wrapped: Expr = fromCentre.sub(floor(fromCentre.add(180).div(360)).mul(360));
  const u: Expr = wrapped.add(centre - west).div(east - west);
  let y: Expr;
  if (crs === 'EPSG:4326') {
    y = equirectangular.y.sub(0.5).mul(180);
  } else {
    const latitude: Expr = clamp(
      equirectangular.y.sub(0.5).mul(Math.PI),
      -MAX_MERCATOR_EVALUATION_LATITUDE,
      MAX_MERCATOR_EVALUATION_LATITUDE,
    );
    y = log(tan(latitude.mul(0.5).add(Math.PI / 4)));
  }
  const v: Expr = y.sub(south).div(north - south);
  const inside: Expr = step(float(0), u)
    .mul(step(u, float(1)))
    .mul(step(float(0), v))
    .mul(step(v, float(1)));
  return { uv: vec2(u, v) as Node<'vec2'>, inside: inside as Node<'float'> };
}
