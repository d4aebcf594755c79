/**
 * A plain static file server for the packed setups: folders mounted at URL prefixes, HTTP Range
 * (the archives and KTX2 files stream by Range), the MIME types module scripts and wasm need, and
 * optionally `Access-Control-Allow-Origin: *`, as a CDN answers. No bundler's dev server is
 * involved, so a page works here exactly as it would from any static host.
 */

import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.gltf': 'model/gltf+json',
  '.ktx2': 'image/ktx2',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
};

/** A running server: its origin (`http://localhost:<port>`) and how to stop it. */
export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

/** Where a request's path leads: the longest mount prefix that matches, or null. */
function fileOf(mounts: Record<string, string>, pathname: string): string | null {
  const prefix = Object.keys(mounts)
    .filter((p) => pathname.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix === undefined) return null;
  const root = mounts[prefix];
  const file = normalize(join(root, decodeURIComponent(pathname.slice(prefix.length))));
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  return file;
}

/**
 * Serves `mounts` (URL prefix ending in '/' -> folder) on a free port of localhost; a folder's
 * `index.html` answers for the folder.
 */
export function serveStatic(
  mounts: Record<string, string>,
  options: { cors?: boolean } = {},
): Promise<StaticServer> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    let file = fileOf(mounts, url.pathname);
    let size = -1;
    try {
      if (file !== null && statSync(file).isDirectory()) file = join(file, 'index.html');
      if (file !== null) size = statSync(file).size;
    } catch {
      size = -1;
    }
    const headers: Record<string, string | number> = {
      'Cache-Control': 'no-store',
      'Accept-Ranges': 'bytes',
    };
    if (options.cors) headers['Access-Control-Allow-Origin'] = '*';
    if (file === null || size < 0) {
      response.writeHead(404, headers).end();
      return;
    }
    headers['Content-Type'] = MIME[extname(file)] ?? 'application/octet-stream';
    const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
    let start = 0;
    let end = size - 1;
    let status = 200;
    if (range !== null) {
      if (range[1] === '') start = Math.max(0, size - Number(range[2]));
      else {
        start = Number(range[1]);
        if (range[2] !== '') end = Math.min(end, Number(range[2]));
      }
      if (start > end || start >= size) {
        response.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
    headers['Content-Length'] = end - start + 1;
    response.writeHead(status, headers);
    if (request.method === 'HEAD' || size === 0) response.end();
    else createReadStream(file, { start, end }).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, 'localhost', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://localhost:${port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            // A browser keeps its connections open; they would hold close() until it quits.
            server.closeAllConnections();
          }),
      });
    });
  });
}
