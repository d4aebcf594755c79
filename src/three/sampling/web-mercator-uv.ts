import { clamp, log, tan, uv, vec2 } from 'three/tsl';
import type { Node } from 'three/webgpu';

// biome-ignore lint/suspicious/noExplicitAny: TSL node graph values.
type Expr = any;

/**
 * Latitude where Web Mercator (EPSG:3857) ends, in radians (about 85.0511 degrees): the latitude
 * whose Mercator y equals pi, so that the projected world is a square.
 */
export const WEB_MERCATOR_MAX_LATITUDE = 2 * Math.atan(Math.exp(Math.PI)) - Math.PI / 2;

/**
 * TSL node turning equirectangular texture coordinates into Web Mercator ones, for drawing a web
 * map's imagery (XYZ, PMTiles, WMTS in EPSG:3857) on a globe:
 *
 * ```ts
 * const globe = new Mesh(new SphereGeometry(1, 128, 64), material);
 * material.colorNode = virtualTexture(vt, webMercatorUv());
 * ```
 *
 * `uvNode` (default: the mesh's first uv set) is a `SphereGeometry`'s uv: u = longitude from
 * -180 degrees (0) to 180 degrees (1), v = latitude, linear, from the south pole (0) to the north
 * pole (1). The result keeps u and replaces v by the Mercator y of that latitude, oriented as
 * three's `flipY` textures are (v = 1 the image's top row, the map's north edge), so it suits
 * `virtualTexture`'s default `flipY: true` and a plain `Texture` loaded by `TextureLoader`.
 *
 * The mapping is computed per pixel, not per vertex, so a coarse sphere still places every texel
 * where it belongs; the sampler's mip comes from the derivatives of the mapped uv (the feedback
 * pass requests from the same graph), so the stretch towards the poles picks coarser mips, as it
 * should. Beyond +/-{@link WEB_MERCATOR_MAX_LATITUDE} (the web map's edge) the latitude is
 * clamped: the caps repeat the map's top and bottom rows. An application wanting a polar colour
 * instead masks those latitudes itself (`uv().y` beyond the limit).
 *
 * @param uvNode equirectangular uv (vec2), as `SphereGeometry` makes them.
 * @returns a vec2 node: u unchanged, v = 0.5 + ln(tan(pi/4 + lat/2)) / (2 pi) with lat the clamped
 *   latitude in radians.
 */
export function webMercatorUv(uvNode: Node<'vec2'> = uv()): Node<'vec2'> {
  const equirectangular: Expr = uvNode;
  const latitude: Expr = clamp(
    equirectangular.y.sub(0.5).mul(Math.PI),
    -WEB_MERCATOR_MAX_LATITUDE,
    WEB_MERCATOR_MAX_LATITUDE,
  );
  const mercatorY: Expr = log(tan(latitude.mul(0.5).add(Math.PI / 4)));
  return vec2(equirectangular.x, mercatorY.div(2 * Math.PI).add(0.5)) as Node<'vec2'>;
}
