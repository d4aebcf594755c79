import { open, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { Plugin } from 'vite';

/**
 * Path prefix of the slow static host: `/__latency/<session>/<file>` serves `<file>`
 * (repository-relative) after {@link LATENCY_MS}, as an ordinary static host answers across a
 * network: `Range` honoured (206, 416), `ETag`, `Last-Modified` and `Accept-Ranges` sent, and no
 * `Cache-Control`, so a browser caches the answers heuristically (nothing here tells it not to).
 * The server counts, per session and file, the requests and the most of them in flight at once:
 * parallelism measured where it matters, at the server, whatever the browser's cache or
 * connection pool did to the requests on the way. `/__latency/stats/<session>` returns those
 * counts as JSON, with the whole session's (every file together) under {@link SESSION_TOTAL}. A fresh session per run keeps runs (and the browser's cache entries) apart.
 */
export const LATENCY_PATH = '/__latency/';

/** Key of the whole session's counts (every file together) in the stats. */
export const SESSION_TOTAL = '*';

/** Time every answer waits before it is sent, ms. */
export const LATENCY_MS = 80;

/** What the server saw of one file of a session, readable at `/__latency/stats/<session>`. */
export interface LatencyFileStats {
  /** Requests for the file. */
  requests: number;
  /** Of those, requests with a `Range` header. */
  rangeRequests: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Most requests in flight at once. */
  peakInFlight: number;
}

/** A Vite plugin for the test server: serves files through {@link LATENCY_PATH} after a delay. */
export function latencyFileService(root: string): Plugin {
  const sessions = new Map<string, Record<string, LatencyFileStats>>();
  return {
    name: 'tessera-latency-files',
    configureServer(server) {
      server.middlewares.use(async (request, response, next) => {
        const url = request.url ?? '';
        if (!url.startsWith(LATENCY_PATH)) return next();
        const [session, ...fileParts] = decodeURIComponent(
          url.slice(LATENCY_PATH.length).split('?')[0],
        ).split('/');
        if (session === 'stats') {
          response.setHeader('Content-Type', 'application/json');
          response.setHeader('Cache-Control', 'no-store');
          response.end(JSON.stringify(sessions.get(fileParts[0] ?? '') ?? {}));
          return;
        }
        const file = normalize(fileParts.join('/'));
        if (!session || file.startsWith('..') || file === '.') {
          response.statusCode = 400;
          response.end();
          return;
        }
        let files = sessions.get(session);
        if (files === undefined) {
          files = {};
          sessions.set(session, files);
        }
        for (const key of [file, SESSION_TOTAL]) {
          files[key] ??= { requests: 0, rangeRequests: 0, inFlight: 0, peakInFlight: 0 };
          const stats = files[key];
          stats.requests++;
          if (request.headers.range !== undefined) stats.rangeRequests++;
          stats.inFlight++;
          stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
          response.on('close', () => stats.inFlight--);
        }
        await new Promise((resolve) => setTimeout(resolve, LATENCY_MS));
        if (response.destroyed) return;
        const path = join(root, file);
        let size: number;
        let modified: Date;
        try {
          const info = await stat(path);
          if (!info.isFile()) throw new Error('not a file');
          size = info.size;
          modified = info.mtime;
        } catch {
          response.statusCode = 404;
          response.end();
          return;
        }
        // What static hosts send (nginx's ETag is size and modification time in hex).
        response.setHeader(
          'ETag',
          `"${Math.floor(modified.getTime() / 1000).toString(16)}-${size.toString(16)}"`,
        );
        response.setHeader('Last-Modified', modified.toUTCString());
        response.setHeader('Accept-Ranges', 'bytes');
        response.setHeader('Content-Type', 'application/octet-stream');
        const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
        let start = 0;
        let end = size - 1;
        if (range) {
          start = Number(range[1]);
          end = Math.min(size - 1, range[2] ? Number(range[2]) : size - 1);
          if (start >= size) {
            response.statusCode = 416;
            response.setHeader('Content-Range', `bytes */${size}`);
            response.end();
            return;
          }
          response.statusCode = 206;
          response.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
        }
        const body = Buffer.alloc(end - start + 1);
        const handle = await open(path, 'r');
        try {
          await handle.read(body, 0, body.length, start);
        } finally {
          await handle.close();
        }
        response.setHeader('Content-Length', body.length);
        response.end(body);
      });
    },
  };
}
