/**
 * The camera path of the imagery benchmark, shared by its pages (both renderers fly exactly the
 * same views) and by the Node driver (which pre-encodes the tiles those views can ask for). Pure
 * arithmetic: no three, no DOM, no Node.
 *
 * World coordinates are Web Mercator's unit square, x east and y south, (0, 0) the north-west
 * corner, as XYZ tile numbers run. A view's zoom `Z` is the web map's: the whole world is
 * `256 x 2^Z` screen pixels wide, so tiles of zoom `Z` show one texel per pixel.
 */

/** Default canvas size of both pages, CSS pixels (device pixel ratio 1); `?width=&height=` change it. */
export const VIEW_WIDTH = 960;
export const VIEW_HEIGHT = 540;
/** Side of an XYZ tile, texels. */
export const XYZ_TILE_SIZE = 256;
/**
 * Deepest zoom of the server and of the path: one virtual texture has at most 4096 pages per
 * side, and with 256-texel pages whose border is 4 (248-texel payload) the whole world at z11
 * (2^19 texels) needs 2114 of them, while z12 would need 4228.
 */
export const MAX_ZOOM = 11;
/** Where the path zooms to: Paris (degrees). */
export const CITY = { lon: 2.3522, lat: 48.8566 } as const;

/** A point of the Mercator unit square. */
export interface WorldPoint {
  x: number;
  y: number;
}

/** What one step of the path shows. */
export interface PathView {
  /** The web map zoom of the view (whole world = 256 x 2^zoom pixels). */
  zoom: number;
  /** World point at the centre of the canvas. */
  center: WorldPoint;
  /** Screen pixels per world unit. */
  pixelsPerWorld: number;
  /** Canvas size, CSS pixels. */
  width: number;
  height: number;
}

/** A rectangle of the Mercator unit square (x0 < x1, y0 < y1). */
export interface WorldRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Web Mercator (EPSG:3857) of a longitude and latitude in degrees, in the unit square. */
export function mercator(lon: number, lat: number): WorldPoint {
  const phi = (lat * Math.PI) / 180;
  return {
    x: (lon + 180) / 360,
    y: (1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2,
  };
}

/**
 * The view of step `step` (0 .. {@link MAX_ZOOM}): zoom = step, zoomed about the city as a
 * scroll wheel zooms about the pointer, so the city keeps the screen position it has in the
 * whole-world view (centred on the world) and every view lies inside the previous one.
 */
export function viewAt(step: number, width = VIEW_WIDTH, height = VIEW_HEIGHT): PathView {
  const city = mercator(CITY.lon, CITY.lat);
  const shrink = 2 ** -step;
  return {
    zoom: step,
    center: { x: city.x + (0.5 - city.x) * shrink, y: city.y + (0.5 - city.y) * shrink },
    pixelsPerWorld: XYZ_TILE_SIZE * 2 ** step,
    width,
    height,
  };
}

/** The world rectangle the canvas shows for `view`, grown by `marginPixels` on every side. */
export function visibleRect(view: PathView, marginPixels = 0): WorldRect {
  const halfW = (view.width / 2 + marginPixels) / view.pixelsPerWorld;
  const halfH = (view.height / 2 + marginPixels) / view.pixelsPerWorld;
  return {
    x0: view.center.x - halfW,
    y0: view.center.y - halfH,
    x1: view.center.x + halfW,
    y1: view.center.y + halfH,
  };
}

/** Calls `visit(x, y)` for each tile of zoom `z` that `rect` overlaps (inside the world). */
export function tilesInRect(z: number, rect: WorldRect, visit: (x: number, y: number) => void): void {
  const n = 2 ** z;
  const tx0 = Math.max(0, Math.floor(rect.x0 * n));
  const ty0 = Math.max(0, Math.floor(rect.y0 * n));
  const tx1 = Math.min(n - 1, Math.ceil(rect.x1 * n) - 1);
  const ty1 = Math.min(n - 1, Math.ceil(rect.y1 * n) - 1);
  for (let y = ty0; y <= ty1; y++) for (let x = tx0; x <= tx1; x++) visit(x, y);
}
