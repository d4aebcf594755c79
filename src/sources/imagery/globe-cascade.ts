/**
 * Where the textures of a web-map globe go (pure arithmetic, no three.js): one whole-world virtual
 * texture down to the finest zoom that fits 4096 pages a side, and regional virtual textures of
 * the deeper zooms, each a window of 4096 x 4096 pages around the camera's ground point, aligned
 * to the pyramid's tile grid and moved when the camera nears its edge. `ImageryGlobe`
 * (src/three/imagery-globe.ts) streams them; the shader places each pixel relative to an anchor
 * under the camera with the constants {@link anchorFrame} and {@link levelUvTransform} give, so
 * that a texel of zoom 18 (2^-26 of the world) is placed with float32 arithmetic.
 */

import { TesseraConfigError } from '../../core/errors';
import { MAX_PAGES_PER_SIDE } from '../../core/vt/page-id';

/** Latitude where Web Mercator ends, radians (about 85.0511 degrees). */
export const MERCATOR_MAX_LATITUDE = 2 * Math.atan(Math.exp(Math.PI)) - Math.PI / 2;

/**
 * Zooms between the finest zooms of two nested regions. A region spans 12 zooms of mips (4096
 * pages), so consecutive regions share 4 zooms: the coarser one still holds the finer one's
 * surroundings at the zooms a view around its edge asks for.
 */
export const REGION_ZOOM_STEP = 8;

/** One texture of the cascade: the whole world (`region: false`) or a window of it. */
export interface GlobeCascadeLevel {
  /** Zoom of the texture's mip 0. */
  readonly zoom: number;
  /** True for a regional window, false for the whole world. */
  readonly region: boolean;
  /** Pages per side of the texture's mip 0 (a power of two). */
  readonly pages: number;
  /** Side of the texture's content at its mip 0, texels (the world's side at `zoom` for the whole world). */
  readonly texels: number;
}

/** The cascade for one pyramid and page geometry. */
export interface GlobeCascadePlan {
  /** Whole world first, then the regions from the coarsest to the finest. */
  readonly levels: readonly GlobeCascadeLevel[];
}

/**
 * The cascade of a web map whose zooms are `minZoom..maxZoom` with tiles of `tileSize` texels,
 * for pages of `payload` texels (page side less twice the border): the whole world at the finest
 * zoom that fits `maxPages` pages a side, then a region at `maxZoom`, at `maxZoom - 8`, ... while
 * deeper than the whole world.
 * @throws TesseraConfigError `too-large` when even `minZoom` does not fit `maxPages` pages;
 *   `invalid-option` for non-integer or inverted zooms, a payload below 1 or `maxPages` not a power
 *   of two in 1..4096.
 */
export function planGlobeCascade(
  minZoom: number,
  maxZoom: number,
  tileSize: number,
  payload: number,
  maxPages: number = MAX_PAGES_PER_SIDE,
): GlobeCascadePlan {
  if (
    !Number.isInteger(minZoom) ||
    !Number.isInteger(maxZoom) ||
    minZoom < 0 ||
    maxZoom < minZoom ||
    !Number.isInteger(payload) ||
    payload < 1 ||
    !Number.isInteger(maxPages) ||
    maxPages < 1 ||
    maxPages > MAX_PAGES_PER_SIDE ||
    (maxPages & (maxPages - 1)) !== 0
  ) {
    throw new TesseraConfigError(
      'invalid-option',
      `globe cascade: zooms ${minZoom}..${maxZoom}, payload ${payload}, ${maxPages} pages`,
    );
  }
  const capacity = maxPages * payload;
  let worldZoom = -1;
  for (let z = minZoom; z <= maxZoom && tileSize * 2 ** z <= capacity; z++) worldZoom = z;
  if (worldZoom < 0) {
    throw new TesseraConfigError(
      'too-large',
      `zoom ${minZoom} (${tileSize * 2 ** minZoom} texels) does not fit ${maxPages} pages of ${payload}`,
    );
  }
  const worldTexels = tileSize * 2 ** worldZoom;
  const levels: GlobeCascadeLevel[] = [
    {
      zoom: worldZoom,
      region: false,
      pages: nextPowerOfTwo(Math.ceil(worldTexels / payload)),
      texels: worldTexels,
    },
  ];
  const regions: GlobeCascadeLevel[] = [];
  for (let z = maxZoom; z > worldZoom; z -= REGION_ZOOM_STEP) {
    regions.push({ zoom: z, region: true, pages: maxPages, texels: maxPages * payload });
  }
  levels.push(...regions.reverse());
  return { levels };
}

/**
 * Where a region's texels start, `[x, y]` in texels of its zoom: centred on (`groundX`,
 * `groundY`) (the camera's ground point, texels of that zoom), rounded to `alignment` texels and
 * kept inside the world (`worldTexels` a side). `alignment` must be a multiple of the texture's
 * coarsest mip scale (`ImageryTileSource`'s `region` rule) and of the source tile size, so that
 * every source tile lies whole on the region's pages grid at mip 0.
 */
export function placeRegion(
  groundX: number,
  groundY: number,
  regionTexels: number,
  alignment: number,
  worldTexels: number,
): [number, number] {
  const place = (ground: number): number => {
    const ideal = Math.round((ground - regionTexels / 2) / alignment) * alignment;
    return Math.min(Math.max(0, ideal), Math.max(0, worldTexels - regionTexels));
  };
  return [place(groundX), place(groundY)];
}

/**
 * True when a region starting at (`originX`, `originY`) should move for a camera whose ground
 * point is (`groundX`, `groundY`): the point is within a quarter of the region of its edge, and
 * {@link placeRegion} would put it elsewhere (at the world's edges it cannot move further, so it
 * stays). After a move the point is near the centre again, so a camera must travel a quarter of
 * the region before the next one: no back-and-forth.
 */
export function regionShouldMove(
  originX: number,
  originY: number,
  groundX: number,
  groundY: number,
  regionTexels: number,
  alignment: number,
  worldTexels: number,
): boolean {
  const margin = regionTexels / 4;
  const nearEdge =
    groundX < originX + margin ||
    groundX > originX + regionTexels - margin ||
    groundY < originY + margin ||
    groundY > originY + regionTexels - margin;
  if (!nearEdge) return false;
  const [x, y] = placeRegion(groundX, groundY, regionTexels, alignment, worldTexels);
  return x !== originX || y !== originY;
}

/** Web Mercator y of latitude `lat` (radians): `ln(tan(pi/4 + lat/2))`, the latitude clamped. */
export function mercatorY(lat: number): number {
  const clamped = Math.min(MERCATOR_MAX_LATITUDE, Math.max(-MERCATOR_MAX_LATITUDE, lat));
  return Math.log(Math.tan(Math.PI / 4 + clamped / 2));
}

/**
 * Texel of the world at a zoom whose world is `worldTexels` a side, `[x, y]` (x east from the
 * antimeridian, y south from the top of the Mercator square; fractional), for longitude `lon` and
 * latitude `lat` in radians.
 */
export function worldTexel(lon: number, lat: number, worldTexels: number): [number, number] {
  return [(lon / (2 * Math.PI) + 0.5) * worldTexels, (0.5 - mercatorY(lat) / (2 * Math.PI)) * worldTexels];
}

/**
 * The frame of the point under the camera (the anchor), from the camera's position relative to
 * the globe's centre in radii (`x`, `y`, `z`; y the north pole, longitude 0 on +x, 90 degrees
 * east on -z: `SphereGeometry`'s uv). The shader intersects each pixel's ray with the unit sphere
 * in this frame, where every quantity it adds is small near the camera, so float32 keeps the
 * ground point to a fraction of a zoom-18 texel.
 */
export interface AnchorFrame {
  /** Longitude and latitude of the anchor, radians. */
  lon: number;
  lat: number;
  /** Distance of the camera from the centre, radii. */
  distance: number;
  /** `distance^2 - 1`, computed as `(distance - 1)(distance + 1)` (exact near the ground). */
  c: number;
  /**
   * East, north and up unit vectors at the anchor in the globe's axes, row after row (a 3x3
   * row-major matrix taking a world direction to east/north/up components).
   */
  basis: [number, number, number, number, number, number, number, number, number];
}

/**
 * The anchor frame of a camera at (`x`, `y`, `z`) radii from the globe's centre (see
 * {@link AnchorFrame}), written into `out` when given.
 */
export function anchorFrame(x: number, y: number, z: number, out?: AnchorFrame): AnchorFrame {
  const distance = Math.sqrt(x * x + y * y + z * z);
  const lon = Math.atan2(-z, x);
  const lat = Math.asin(Math.max(-1, Math.min(1, y / distance)));
  const sinLon = Math.sin(lon);
  const cosLon = Math.cos(lon);
  const sinLat = Math.sin(lat);
  const cosLat = Math.cos(lat);
  const frame: AnchorFrame = out ?? { lon: 0, lat: 0, distance: 0, c: 0, basis: [0, 0, 0, 0, 0, 0, 0, 0, 0] };
  frame.lon = lon;
  frame.lat = lat;
  frame.distance = distance;
  frame.c = (distance - 1) * (distance + 1);
  const b = frame.basis;
  // East, north, up rows (allocation-free when `out` is given: called every frame).
  b[0] = -sinLon;
  b[1] = 0;
  b[2] = -cosLon;
  b[3] = -sinLat * cosLon;
  b[4] = cosLat;
  b[5] = sinLat * sinLon;
  b[6] = cosLat * cosLon;
  b[7] = sinLat;
  b[8] = -cosLat * sinLon;
  return frame;
}

/**
 * The affine map from the anchor-relative ground offset the shader computes (longitude
 * difference, Mercator y difference; radians) to one texture's virtual uv: `uv = offset + scale *
 * (dLon, -dMercator)`. `origin` is where the texture's content starts (texels at `zoom`; 0, 0 for
 * the whole world), `paddedTexels` the side of its whole virtual texture (pages times payload).
 * Computed in doubles: `offset` is the anchor's place in the texture, the one large number.
 */
export function levelUvTransform(
  anchor: Pick<AnchorFrame, 'lon' | 'lat'>,
  worldTexels: number,
  originX: number,
  originY: number,
  paddedTexels: number,
): { offsetX: number; offsetY: number; scale: number } {
  const [x, y] = worldTexel(anchor.lon, anchor.lat, worldTexels);
  return {
    offsetX: (x - originX) / paddedTexels,
    offsetY: (y - originY) / paddedTexels,
    scale: worldTexels / (2 * Math.PI * paddedTexels),
  };
}

/**
 * The anchor-relative offset of the point where a ray meets the unit sphere, as the shader
 * computes it (`ImageryGlobe`'s graph follows these steps, in float32): `dirEnu` the ray's
 * direction in the anchor's east/north/up components (unit length), from a camera
 * `frame.distance` radii from the centre straight above the anchor. Returns `[dLon, dMercator]`
 * in radians, or null when the ray misses. Exposed so that a test can run the same steps in
 * float32 and in doubles.
 */
export function groundOffset(
  frame: Pick<AnchorFrame, 'lat' | 'distance' | 'c'>,
  dirEast: number,
  dirNorth: number,
  dirUp: number,
  round: (v: number) => number = (v) => v,
): [number, number] | null {
  const f = round;
  const sinA = f(Math.sin(frame.lat));
  const cosA = f(Math.cos(frame.lat));
  const b = f(f(frame.distance) * dirUp);
  const disc = f(f(b * b) - f(frame.c));
  if (disc < 0 || b >= 0) return null;
  // The stable root: c / (-b + sqrt(b^2 - c)) loses nothing when the camera is near the ground.
  const t = f(f(frame.c) / f(-b + f(Math.sqrt(disc))));
  const east = f(t * dirEast);
  const north = f(t * dirNorth);
  const up = f(f(frame.distance) + f(t * dirUp));
  const equatorial = f(f(cosA * up) - f(sinA * north));
  const dLon = preciseAtan2(east, equatorial, f);
  const cosH = f(Math.sqrt(f(f(equatorial * equatorial) + f(east * east))));
  const halfLon = preciseSin(f(dLon * 0.5), f);
  // sin(latH - latA), from the north component and the small longitude term, not a difference of sines.
  const sinD = f(north - f(f(f(sinA * cosH) * 2) * f(halfLon * halfLon)));
  const sinH = f(f(up * sinA) + f(north * cosA));
  const cosD = f(f(cosH * cosA) + f(sinH * sinA));
  let dLat = preciseAtan2(sinD, cosD, f);
  const latH = f(frame.lat + dLat);
  if (Math.abs(latH) > MERCATOR_MAX_LATITUDE) {
    dLat = f(Math.sign(latH) * MERCATOR_MAX_LATITUDE - frame.lat);
  }
  return [dLon, mercatorDifference(frame.lat, dLat, round)];
}

/**
 * Below this magnitude (radians, or a ratio for atan) sin, cos and atan are taken from their
 * series, in the shader and here: GPU sines need only be within 2^-11 absolute (WGSL), no
 * precision at all for the 1e-5-radian angles of a street-level view.
 */
export const SERIES_LIMIT = 0.01;

function preciseSin(x: number, f: (v: number) => number): number {
  if (Math.abs(x) >= SERIES_LIMIT) return f(Math.sin(x));
  const x2 = f(x * x);
  return f(x * f(1 - f(f(x2 / 6) * f(1 - f(x2 / 20)))));
}

function preciseCos(x: number, f: (v: number) => number): number {
  if (Math.abs(x) >= SERIES_LIMIT) return f(Math.cos(x));
  const x2 = f(x * x);
  return f(1 - f(f(x2 * 0.5) * f(1 - f(x2 / 12))));
}

function preciseAtan2(y: number, x: number, f: (v: number) => number): number {
  const r = f(y / x);
  if (!(x > 0 && Math.abs(r) < SERIES_LIMIT)) return f(Math.atan2(y, x));
  const r2 = f(r * r);
  return f(r * f(1 - f(r2 * f(f(1 / 3) - f(r2 * 0.2)))));
}

/**
 * `mercatorY(lat + dLat) - mercatorY(lat)` without subtracting two large numbers:
 * `atanh((sin b - sin a) / (1 - sin a sin b))` with `sin b - sin a = 2 cos(a + d/2) sin(d/2)`,
 * the atanh by its series where its argument is small.
 */
export function mercatorDifference(
  lat: number,
  dLat: number,
  round: (v: number) => number = (v) => v,
): number {
  const f = round;
  const sinA = f(Math.sin(lat));
  const cosA = f(Math.cos(lat));
  const half = f(dLat * 0.5);
  const sinHalf = preciseSin(half, f);
  const cosHalf = preciseCos(half, f);
  const sinB = f(f(sinA * preciseCos(dLat, f)) + f(cosA * preciseSin(dLat, f)));
  // sin b - sin a = 2 cos(a + d/2) sin(d/2), the cosine expanded about the anchor's exact sin and cos.
  const diff = f(f(f(f(cosA * cosHalf) - f(sinA * sinHalf)) * 2) * sinHalf);
  const x = f(diff / f(1 - f(sinA * sinB)));
  if (Math.abs(x) < ATANH_SERIES_LIMIT) {
    const x2 = f(x * x);
    return f(x * f(1 + f(x2 * f(f(1 / 3) + f(x2 * 0.2)))));
  }
  return f(0.5 * f(Math.log(f(f(1 + x) / f(1 - x)))));
}

/**
 * Below this argument atanh is taken from its series x + x^3/3 + x^5/5 (error under x^7/7, 1e-15
 * relative here); above, from logarithms, whose float32 error (1e-7 absolute) is then far below
 * a texel of the coarse mips such distant ground reads.
 */
export const ATANH_SERIES_LIMIT = 0.01;

function nextPowerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}
