/**
 * Benchmark page for bench/sources-browser.bench.ts: fetch + decode rate of archive tiles in
 * Chromium. For each encoding it opens `<dir><encoding>.tsra` (baked by the driver, served by
 * Vite with Range support) with `ArchiveTileSource.open(url)` and a {@link WorkerDecoderPool} of
 * module workers, then loads every page of every mip in a fixed shuffled order with a window of
 * tiles in flight (as a streaming session keeps several requests open). One warm-up rep is
 * dropped; the median of the timed reps is reported in tiles (all layers decoded) per second.
 * Raw, DEFLATE and PNG are also timed with the main-thread {@link InlineTileDecoder} for
 * comparison, and lossless results of both decoders are checked to be byte-identical.
 * Results land in `globalThis.benchResult` and the title becomes 'done' (or 'error', with
 * `globalThis.benchError`).
 */

import type { TileData } from '../../src/core/vt/tile-source';
import { ArchiveTileSource } from '../../src/sources/archive/archive-tile-source';
import { HttpClient } from '../../src/sources/io/http/http-client';
import type { PayloadEncodingName } from '../../src/sources/io/payload-encoding';
import { InlineTileDecoder, type TileDecoder } from '../../src/sources/io/tile-decoder';
import { WorkerDecoderPool, type WorkerLike } from '../../src/sources/io/worker/worker-decoder-pool';
import {
  allPages,
  benchParams,
  inFlightLanes,
  median,
  type PageAddress,
  runBenchPage,
  uncachedFetch,
} from './bench-page';

/** What the page leaves in `globalThis.benchResult`. */
export interface ArchiveRateResult {
  /** Median tiles per second (fetch + decode of every layer) with the worker pool, by encoding. */
  workerTilesPerSecond: Record<string, number>;
  /** The same with the main-thread inline decoder (raw, DEFLATE, PNG, UASTC + zstd only), by encoding. */
  inlineTilesPerSecond: Record<string, number>;
  /** Workers in the decode pool. */
  decodeWorkers: number;
  /** Tiles loaded per rep (every page of every mip), pages. */
  tilesPerRep: number;
}

const { params, dir, reps, inFlight } = benchParams;
const encodings = (params.get('encodings') ?? 'raw,deflate,png,jpeg,webp').split(
  ',',
) as PayloadEncodingName[];
/** Decode workers; the pool's own default (cores - 1, at most 4), made explicit to report it. */
const decodeWorkers = Number(
  params.get('workers') ?? Math.max(1, Math.min(4, navigator.hardwareConcurrency - 1)),
);
const INLINE_ENCODINGS: readonly PayloadEncodingName[] = ['raw', 'deflate', 'png', 'uastc-zstd'];

function createDecodeWorker(): WorkerLike {
  return new Worker(new URL('../../src/sources/io/worker/decode-worker.ts', import.meta.url), {
    type: 'module',
  }) as unknown as WorkerLike;
}

/** Loads `pages` with at most `inFlight` loads open; returns the tiles, in `pages` order. */
async function loadAll(source: ArchiveTileSource, pages: PageAddress[]): Promise<TileData[]> {
  const out: TileData[] = new Array(pages.length);
  const signal = new AbortController().signal;
  await inFlightLanes(pages, inFlight, async (k) => {
    const [mip, x, y] = pages[k];
    out[k] = await source.load(mip, x, y, signal);
  });
  return out;
}

function checkTiles(tiles: TileData[], tileSize: number, encoding: string): void {
  // UASTC layers arrive as blocks (16 bytes per 4x4 texels), the others as rgba8.
  const bytes = encoding.startsWith('uastc') ? (tileSize / 4) ** 2 * 16 : tileSize * tileSize * 4;
  for (const tile of tiles) {
    for (const layer of tile.layers) {
      if (layer.length !== bytes) {
        throw new Error(`${encoding}: a layer decoded to ${layer.length} bytes`);
      }
    }
  }
}

function sameTiles(a: TileData[], b: TileData[]): boolean {
  for (let t = 0; t < a.length; t++) {
    for (let l = 0; l < a[t].layers.length; l++) {
      const x = a[t].layers[l];
      const y = b[t].layers[l];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    }
  }
  return true;
}

/** Median tiles per second of `reps` timed reps after one warm-up; also returns the warm-up tiles. */
async function measure(
  url: string,
  encoding: string,
  decoder: TileDecoder,
): Promise<{ rate: number; tiles: TileData[]; count: number }> {
  const source = await ArchiveTileSource.open(url, {
    decoder,
    http: new HttpClient({ fetch: uncachedFetch }),
  });
  const pages = allPages(source);
  const tiles = await loadAll(source, pages);
  checkTiles(tiles, source.info.tileSize, encoding);
  const rates: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const started = performance.now();
    await loadAll(source, pages);
    rates.push(pages.length / ((performance.now() - started) / 1000));
  }
  source.dispose();
  return { rate: median(rates), tiles, count: pages.length };
}

await runBenchPage(async () => {
  const result: ArchiveRateResult = {
    workerTilesPerSecond: {},
    inlineTilesPerSecond: {},
    decodeWorkers,
    tilesPerRep: 0,
  };
  for (const encoding of encodings) {
    const url = `${dir}${encoding}.tsra`;
    const pool = new WorkerDecoderPool({ createWorker: createDecodeWorker, size: decodeWorkers });
    const viaWorkers = await measure(url, encoding, pool);
    // A decoder given to a source is the caller's: the source leaves it running.
    pool.dispose();
    result.workerTilesPerSecond[encoding] = viaWorkers.rate;
    result.tilesPerRep = viaWorkers.count;
    if (INLINE_ENCODINGS.includes(encoding)) {
      const inline = await measure(url, encoding, new InlineTileDecoder());
      result.inlineTilesPerSecond[encoding] = inline.rate;
      if (!sameTiles(viaWorkers.tiles, inline.tiles)) {
        throw new Error(`${encoding}: worker and inline decodes differ`);
      }
    }
  }
  return result;
});
