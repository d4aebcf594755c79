import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the test server answers one request; `served` counts requests to that path so far. */
export type Behaviour = (req: IncomingMessage, res: ServerResponse, served: number) => boolean | undefined;

/** Serves `bytes` honouring Range (206) unless a behaviour for the path answers first. */
export async function startServer(bytes: Uint8Array, behaviours: Record<string, Behaviour> = {}) {
  const counts = new Map<string, number>();
  const ranges: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const served = counts.get(path) ?? 0;
    counts.set(path, served + 1);
    ranges.push(String(req.headers.range));
    const behaviour = behaviours[path];
    if (behaviour?.(req, res, served)) return;
    serveRange(bytes, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    count: (path: string) => counts.get(path) ?? 0,
    ranges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers a Range request from `bytes` the way a static host does. */
export function serveRange(bytes: Uint8Array, req: IncomingMessage, res: ServerResponse): void {
  const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (!match) {
    res.writeHead(200, { 'content-length': bytes.length });
    res.end(bytes);
    return;
  }
  const start = Number(match[1]);
  if (start >= bytes.length) {
    res.writeHead(416, { 'content-range': `bytes */${bytes.length}` });
    res.end();
    return;
  }
  const end = Math.min(Number(match[2]), bytes.length - 1);
  res.writeHead(206, {
    'content-range': `bytes ${start}-${end}/${bytes.length}`,
    'content-length': end - start + 1,
  });
  res.end(bytes.subarray(start, end + 1));
}
