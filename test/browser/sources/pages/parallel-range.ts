/**
 * Page for parallel-range.spec.ts: opens single-file sources (a tile archive, a PMTiles archive, a
 * COG, a KTX2 file) through the test server's slow static host (latency-file-service.ts) and
 * fires many reads of one file at once, so that the server can count how many it had in flight.
 * Exposes `globalThis.parallelRange` and sets the title to 'ready'.
 */

import { ArchiveTileSource } from '../../../../src/sources/archive/archive-tile-source';
import { openCogPyramid } from '../../../../src/sources/imagery/cog-pyramid';
import { openPmtilesPyramid } from '../../../../src/sources/imagery/pmtiles-pyramid';
import { HttpClient } from '../../../../src/sources/io/http/http-client';
import { Ktx2Source } from '../../../../src/sources/mips/ktx2-source';

/** The single-file sources the page opens. */
export type RangeSourceKind = 'archive' | 'pmtiles' | 'cog' | 'ktx2';

/** What one run of {@link api.run} saw from the client's side. */
export interface RangeRun {
  /** Reads fired at once (tiles, or KTX2 levels). */
  reads: number;
  /** From firing the reads to the last one loaded, ms. */
  elapsedMs: number;
  /** The client's counters after the reads (opening included). */
  requests: number;
  cacheHits: number;
  /** Reading the same tiles again (archive only): requests sent and cache hits counted. */
  reread?: { requests: number; cacheHits: number };
}

/**
 * The tiles read at once: far apart in the file (one per row pair of the archive, spread over
 * the grid elsewhere), so that the archive's coalescing of adjacent ranges leaves one request each.
 */
function spread(count: number, wide: number, high: number): [number, number][] {
  const out: [number, number][] = [];
  for (let k = 0; k < count; k++) out.push([(k * 5) % wide, (k * 2) % high]);
  return out;
}

async function timed(reads: () => Promise<unknown>[]): Promise<number> {
  const start = performance.now();
  await Promise.all(reads());
  return performance.now() - start;
}

const api = {
  /**
   * Opens `url` as a `kind` source through a new client (6 requests per host) and loads `count`
   * tiles at once (a KTX2 file: each of its levels). `browserCache`: the client's fetch sends
   * every request with the browser's default cache mode and the client keeps no Range cache, as
   * the client did before Range reads bypassed the browser's cache (the measurement's control).
   */
  async run(kind: RangeSourceKind, url: string, count: number, browserCache: boolean): Promise<RangeRun> {
    const client = new HttpClient(
      browserCache
        ? { rangeCacheBytes: 0, fetch: (input, init) => fetch(input, { ...init, cache: 'default' }) }
        : {},
    );
    const signal = new AbortController().signal;
    const counters = () => ({ requests: client.counters.requests, cacheHits: client.counters.cacheHits });
    switch (kind) {
      case 'archive': {
        const source = await ArchiveTileSource.open(url, { http: client });
        try {
          const tiles = spread(count, source.info.widthPages, source.info.heightPages);
          const load = () => tiles.map(([x, y]) => source.load(0, x, y, signal));
          const elapsedMs = await timed(load);
          const first = counters();
          await Promise.all(load());
          const again = counters();
          return {
            reads: tiles.length,
            elapsedMs,
            ...first,
            reread: {
              requests: again.requests - first.requests,
              cacheHits: again.cacheHits - first.cacheHits,
            },
          };
        } finally {
          source.dispose();
        }
      }
      case 'pmtiles':
      case 'cog': {
        const pyramid =
          kind === 'pmtiles'
            ? await openPmtilesPyramid(url, { http: client })
            : await openCogPyramid(url, { http: client });
        try {
          const finest = pyramid.info.levels[0];
          const tiles = spread(
            count,
            Math.ceil(finest.width / finest.tileWidth),
            Math.ceil(finest.height / finest.tileHeight),
          );
          const elapsedMs = await timed(() => tiles.map(([x, y]) => pyramid.loadTile(0, x, y, signal)));
          return { reads: tiles.length, elapsedMs, ...counters() };
        } finally {
          pyramid.dispose();
        }
      }
      case 'ktx2': {
        const source = await Ktx2Source.open(url, { http: client });
        const levels = Array.from({ length: source.mipLevelCount }, (_, level) => level);
        // Levels asked for in one task are merged into one request (they are adjacent in the file);
        // asked for a task apart, as the streamer asks for them frame after frame, each is a read.
        const elapsedMs = await timed(() => {
          let previous: Promise<unknown> = Promise.resolve();
          return levels.map((level) => {
            previous = previous.then(() => new Promise((resolve) => setTimeout(resolve, 0)));
            return previous.then(() => source.loadLevel(level, signal));
          });
        });
        return { reads: levels.length, elapsedMs, ...counters() };
      }
    }
  },
};

(globalThis as unknown as { parallelRange: typeof api }).parallelRange = api;
document.title = 'ready';
