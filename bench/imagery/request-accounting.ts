/**
 * Where a renderer's tile requests in the imagery benchmark went, from the server's log (each
 * request with the path step the page had marked when it arrived). Pure arithmetic over the path
 * (zoom-path.ts): no three, no DOM.
 *
 * Each request of step `s` (view zoom `s`) falls in one class:
 * - `view`: a tile of zoom `s` the view shows (what a web map needs, the floor);
 * - `ring`: a tile of zoom `s` outside the view (borders of pages reaching past it, feedback
 *   jitter at the view's edge);
 * - `coarser`: a tile of a coarser zoom (fallback ancestors, trilinear's coarser mip, stand-ins);
 * - `finer`: a tile of a finer zoom;
 * - `startup`: before the path's first step (pinned coarse mips at `add()`).
 * Across classes, `refetch` counts requests for a tile the client had already fetched (evicted
 * from its caches, or a load aborted and started again).
 */

import { type PathView, tilesInRect, viewAt, visibleRect } from './zoom-path';

/** One logged request (tile-server.ts `LoggedRequest`). */
export interface AccountedRequest {
  step: number;
  z: number;
  x: number;
  y: number;
}

/** Requests per class (see the file's TSDoc). */
export interface RequestAccount {
  view: number;
  ring: number;
  coarser: number;
  finer: number;
  startup: number;
  refetch: number;
}

/** Classifies `requests` of a path flown at `width x height` CSS pixels. */
export function accountRequests(
  requests: readonly AccountedRequest[],
  width: number,
  height: number,
): RequestAccount {
  const account: RequestAccount = { view: 0, ring: 0, coarser: 0, finer: 0, startup: 0, refetch: 0 };
  const seen = new Set<string>();
  const viewTiles = new Map<number, Set<string>>();
  for (const { step, z, x, y } of requests) {
    const key = `${z}/${x}/${y}`;
    if (seen.has(key)) account.refetch++;
    seen.add(key);
    if (step < 0) account.startup++;
    else if (z < step) account.coarser++;
    else if (z > step) account.finer++;
    else if (tilesOfView(viewTiles, step, width, height).has(key)) account.view++;
    else account.ring++;
  }
  return account;
}

/** The tiles of zoom `step` the view of `step` shows, once per step. */
function tilesOfView(
  cache: Map<number, Set<string>>,
  step: number,
  width: number,
  height: number,
): Set<string> {
  let tiles = cache.get(step);
  if (tiles === undefined) {
    tiles = new Set();
    const view: PathView = viewAt(step, width, height);
    const found = tiles;
    tilesInRect(step, visibleRect(view), (x, y) => found.add(`${step}/${x}/${y}`));
    cache.set(step, tiles);
  }
  return tiles;
}

/** Tiles the views of steps 0..`lastStep` show at their own zoom, each counted once: the floor. */
export function viewTileCount(lastStep: number, width: number, height: number): number {
  const tiles = new Set<string>();
  for (let step = 0; step <= lastStep; step++) {
    tilesInRect(step, visibleRect(viewAt(step, width, height)), (x, y) => tiles.add(`${step}/${x}/${y}`));
  }
  return tiles.size;
}
