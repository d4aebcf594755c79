/**
 * Imagery benchmark page: tile requests a second each client sustains against the local tile
 * server with 6 in flight (the browser's per-host limit): the baseline's own six lanes over
 * `fetch`, and Tessera's `HttpClient` (its default cap, 6 per host, every request issued at once).
 * Then the same with the decode: `createImageBitmap` for the baseline, `XyzPyramid.loadTile` (fetch
 * and decode in Tessera's decode workers) for Tessera. `?tiles=` the URL template, `?list=` the
 * tiles as JSON `[[z, x, y], ...]` (cycled), `?requests=` per rep (default 480), `?reps=` timed reps
 * after one warm-up (default 3); the median rep is reported.
 */

import { HttpClient, XyzPyramid } from '@tessera-vt/tessera/imagery';
import { median, runBenchPage } from '../sources-browser/bench-page';
import { MAX_REQUESTS_PER_HOST } from './baseline-map';
import { MAX_ZOOM } from './zoom-path';

/** One client's rates. */
export interface BurstRates {
  /** Tile GETs (body read) a second. */
  requestsPerSecond: number;
  /** Tiles fetched and decoded to pixels a second. */
  tilesPerSecond: number;
}

/** What the page leaves in `globalThis.benchResult`. */
export interface BurstResult {
  baseline: BurstRates;
  tessera: BurstRates;
  /** Requests per rep. */
  requests: number;
}

const params = new URLSearchParams(location.search);
const template = params.get('tiles') as string;
const list = JSON.parse(params.get('list') as string) as [number, number, number][];
const requests = Number(params.get('requests') ?? 480);
const reps = Number(params.get('reps') ?? 3);
const tiles = Array.from({ length: requests }, (_, i) => list[i % list.length]);
const urlOf = ([z, x, y]: [number, number, number]) =>
  template.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y));

/** Runs `visit` over every tile with `lanes` of them in flight. */
async function lanes(count: number, visit: (tile: [number, number, number]) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tiles.length) await visit(tiles[next++]);
  };
  await Promise.all(Array.from({ length: count }, lane));
}

/** Median rate of `rep` (one warm-up rep dropped), in tiles a second. */
async function rate(rep: () => Promise<void>): Promise<number> {
  await rep();
  const rates: number[] = [];
  for (let r = 0; r < reps; r++) {
    const started = performance.now();
    await rep();
    rates.push(tiles.length / ((performance.now() - started) / 1000));
  }
  return median(rates);
}

await runBenchPage(async (): Promise<BurstResult> => {
  const signal = new AbortController().signal;
  const baseline: BurstRates = {
    requestsPerSecond: await rate(() =>
      lanes(MAX_REQUESTS_PER_HOST, async (tile) => {
        await (await fetch(urlOf(tile))).arrayBuffer();
      }),
    ),
    tilesPerSecond: await rate(() =>
      lanes(MAX_REQUESTS_PER_HOST, async (tile) => {
        const blob = await (await fetch(urlOf(tile))).blob();
        (await createImageBitmap(blob, { imageOrientation: 'flipY', colorSpaceConversion: 'none' })).close();
      }),
    ),
  };
  const client = new HttpClient();
  const pyramid = new XyzPyramid({ url: template, maxZoom: MAX_ZOOM });
  const tessera: BurstRates = {
    requestsPerSecond: await rate(async () => {
      await Promise.all(tiles.map((tile) => client.getBytes(urlOf(tile), signal)));
    }),
    tilesPerSecond: await rate(async () => {
      // Level 0 is the finest zoom.
      await Promise.all(tiles.map(([z, x, y]) => pyramid.loadTile(MAX_ZOOM - z, x, y, signal)));
    }),
  };
  pyramid.dispose?.();
  return { baseline, tessera, requests };
});
