import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join, normalize } from 'node:path';
import type { Plugin } from 'vite';

/**
 * Path prefix of the fault-injecting file server: `/__faults/<faults>/<rate>/<seed>/<file>` serves
 * `<file>` (repository-relative) like a static host, except that a request fails with one of
 * `<faults>` (comma-separated: `503`, `500`, `reset`, `truncated`, `stall`, `dead`, `range-ignored`,
 * `bad-range`, `416`) with probability `<rate>` (0..1). `range-ignored` answers a Range request 200
 * with the whole file (as a proxy that drops the header), `bad-range` 206 with a Content-Range one
 * byte off (and those bytes), `416` 416 to a satisfiable range (as a browser's cache answers from a
 * stale entry); on a request without Range the three serve the file normally. Whether a request fails is decided by a hash of the seed, the path and how many
 * times this path was asked before, so a run is reproducible and a retry is a new draw, as with a
 * real flaky server. `dead` answers every request with 503. Paths that do not exist answer 404
 * (never a fault: a missing tile is not a fault). Range requests are answered with 206.
 * `/__faults/kill/<seed>` makes every path of that seed answer as `dead` from then on (a server
 * going down mid-session), `/__faults/revive/<seed>` undoes it.
 */
export const FAULTS_PATH = '/__faults/';

/** Counts per fault kind and of requests, readable at `/__faults/stats` (JSON), reset by `/__faults/reset`. */
interface FaultStats {
  requests: number;
  injected: Record<string, number>;
  notFound: number;
}

function draw(seed: string, path: string, attempt: number): number {
  const digest = createHash('sha256').update(`${seed}\0${path}\0${attempt}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

function inject(kind: string, response: ServerResponse, body: Buffer, range: RegExpExecArray | null): void {
  switch (kind) {
    case 'range-ignored':
      response.statusCode = 200;
      response.setHeader('Content-Length', body.length);
      response.end(body);
      return;
    case '416':
      if (range === null) {
        response.statusCode = 200;
        response.setHeader('Content-Length', body.length);
        response.end(body);
        return;
      }
      response.statusCode = 416;
      response.setHeader('Content-Range', `bytes */${body.length}`);
      response.end();
      return;
    case 'bad-range': {
      if (range === null) {
        response.statusCode = 200;
        response.setHeader('Content-Length', body.length);
        response.end(body);
        return;
      }
      const start = Math.min(body.length - 1, Number(range[1]) + 1);
      const end = Math.min(body.length - 1, range[2] ? Number(range[2]) + 1 : body.length - 1);
      response.statusCode = 206;
      response.setHeader('Content-Range', `bytes ${start}-${end}/${body.length}`);
      response.setHeader('Content-Length', end - start + 1);
      response.end(body.subarray(start, end + 1));
      return;
    }
    case '500':
    case '503':
    case 'dead':
      response.statusCode = kind === '500' ? 500 : 503;
      response.setHeader('Retry-After', '0');
      response.end();
      return;
    case 'reset':
      response.socket?.destroy();
      return;
    case 'truncated':
      // The full length is announced, half is sent, then the connection drops.
      response.statusCode = 200;
      response.setHeader('Content-Length', body.length);
      response.write(body.subarray(0, body.length >> 1), () => response.socket?.destroy());
      return;
    case 'stall':
      // Never answers; the client's timeout must give up (the socket closes when the test ends).
      return;
  }
}

/** A Vite plugin for the test server: serves files through {@link FAULTS_PATH} with injected faults. */
export function faultInjectionService(root: string): Plugin {
  const attempts = new Map<string, number>();
  const killed = new Set<string>();
  let stats: FaultStats = { requests: 0, injected: {}, notFound: 0 };
  return {
    name: 'tessera-fault-injection',
    configureServer(server) {
      server.middlewares.use(async (request, response, next) => {
        const url = request.url ?? '';
        if (!url.startsWith(FAULTS_PATH)) return next();
        const rest = decodeURIComponent(url.slice(FAULTS_PATH.length).split('?')[0]);
        response.setHeader('Cache-Control', 'no-store');
        if (rest === 'stats') {
          response.setHeader('Content-Type', 'application/json');
          response.end(JSON.stringify(stats));
          return;
        }
        const control = /^(kill|revive)\/([^/]+)$/.exec(rest);
        if (control) {
          if (control[1] === 'kill') killed.add(control[2]);
          else killed.delete(control[2]);
          response.end('{}');
          return;
        }
        if (rest === 'reset') {
          attempts.clear();
          killed.clear();
          stats = { requests: 0, injected: {}, notFound: 0 };
          response.end('{}');
          return;
        }
        const [faultList, rateText, seed, ...fileParts] = rest.split('/');
        const file = normalize(fileParts.join('/'));
        if (file.startsWith('..') || !faultList || !seed) {
          response.statusCode = 400;
          response.end();
          return;
        }
        stats.requests++;
        let body: Buffer;
        try {
          body = await readFile(join(root, file));
        } catch {
          stats.notFound++;
          response.statusCode = 404;
          response.end();
          return;
        }
        const faults = killed.has(seed) ? ['dead'] : faultList.split(',');
        const key = `${request.headers.range ?? ''} ${file}`;
        const attempt = attempts.get(key) ?? 0;
        attempts.set(key, attempt + 1);
        const rate = Number(rateText);
        const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
        if (faults.includes('dead') || draw(seed, key, attempt) < rate) {
          const kind = faults.includes('dead')
            ? 'dead'
            : faults[Math.floor(draw(`${seed}:kind`, key, attempt) * faults.length)];
          stats.injected[kind] = (stats.injected[kind] ?? 0) + 1;
          inject(kind, response, body, range);
          return;
        }
        if (range) {
          const start = Number(range[1]);
          const end = Math.min(body.length - 1, range[2] ? Number(range[2]) : body.length - 1);
          if (start >= body.length) {
            response.statusCode = 416;
            response.setHeader('Content-Range', `bytes */${body.length}`);
            response.end();
            return;
          }
          response.statusCode = 206;
          response.setHeader('Content-Range', `bytes ${start}-${end}/${body.length}`);
          response.setHeader('Content-Length', end - start + 1);
          response.end(body.subarray(start, end + 1));
          return;
        }
        response.statusCode = 200;
        response.setHeader('Content-Length', body.length);
        response.end(body);
      });
    },
  };
}
