import type { Plugin } from 'vite';
import { GLOBE_TILE_SIZE, globeTile, parseGlobeTilePath } from '../support/imagery/globe-tiles.js';
import { encodePng } from '../support/png-encoder.js';

/**
 * Path prefix of the deterministic globe tiles (test/support/imagery/globe-tiles.ts):
 * `/__globe-tiles/{z}/{x}/{y}.png`, PNG, drawn on request from z/x/y (zooms 0..18; 404 past them).
 * `/__globe-tiles/stats` returns `{ requests, bytes }` answered so far. `Cache-Control: no-store`:
 * every request the page makes reaches the server and is counted.
 */
export const GLOBE_TILES_PATH = '/__globe-tiles/';

/** A Vite plugin for the test server: serves the globe tiles. */
export function globeTileService(): Plugin {
  const counts = { requests: 0, bytes: 0 };
  return {
    name: 'tessera-globe-tiles',
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        const url = request.url ?? '';
        if (!url.startsWith(GLOBE_TILES_PATH)) return next();
        const path = url.slice(GLOBE_TILES_PATH.length).split('?')[0];
        response.setHeader('Cache-Control', 'no-store');
        if (path === 'stats') {
          response.setHeader('Content-Type', 'application/json');
          response.end(JSON.stringify(counts));
          return;
        }
        const tile = parseGlobeTilePath(path);
        if (tile === null) {
          response.statusCode = 404;
          response.end();
          return;
        }
        const png = encodePng(globeTile(tile.z, tile.x, tile.y), GLOBE_TILE_SIZE, GLOBE_TILE_SIZE);
        counts.requests++;
        counts.bytes += png.length;
        response.setHeader('Content-Type', 'image/png');
        response.end(Buffer.from(png));
      });
    },
  };
}
