/**
 * The imagery benchmark's XYZ tile server: Web Mercator tiles `/<client>/{z}/{x}/{y}.jpg` (256 px,
 * JPEG quality 80, encoded with sharp) on localhost over `node:http`, generated on first request
 * and memoised. `<client>` is a lower-case name the counts are kept under, so that two renderers
 * fetching the same tiles in one run are counted apart.
 *
 * Zooms 0-3 are the real Earth map (test/support/imagery/earth-image.ts) reprojected to Mercator
 * at 2048² (z3) and box-halved for z2-z0. Deeper zooms magnify z3 (bilinear) and add value-noise
 * octaves, one per zoom from 4 to the tile's own, each keyed by the lattice of its zoom's texels in
 * world coordinates: a tile's content does not depend on which zoom or which request order asked,
 * each zoom shows detail the coarser ones lack (so a blurry fallback differs from the wanted tile),
 * and a tile is close to the average of its four children, as an imagery pyramid is.
 *
 * Every answer says `Cache-Control: no-store`, so the browser's HTTP cache never answers a repeated
 * request: both clients pay for what they re-fetch, and the counts are what reached the server.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { equirectangularToMercator, loadEarthImage } from '../../test/support/imagery/earth-image';
import { MAX_ZOOM, XYZ_TILE_SIZE } from './zoom-path';

/** JPEG quality of the tiles (1..100). */
const JPEG_QUALITY = 80;
/** Zoom of the Earth map's Mercator image: 2^3 tiles of 256 = 2048 texels a side. */
const BASE_ZOOM = 3;
/** Peak amplitude of each detail octave, in 8-bit levels. */
const OCTAVE_AMPLITUDE = 9;

/** Requests and bytes answered for one client name. */
export interface ServedCounts {
  /** Tile requests answered (200 or 404). */
  requests: number;
  /** Body bytes sent. */
  bytes: number;
}

/** One tile request as the server saw it: the client's path step when it came, and the tile. */
export interface LoggedRequest {
  step: number;
  z: number;
  x: number;
  y: number;
}

/** A running tile server. */
export interface TileServer {
  /** `http://localhost:<port>` */
  readonly origin: string;
  /** Delay before each tile answer, ms (a distant server's round trip); 0 at the start. */
  latencyMs: number;
  /** Counts of client `name` so far (zeros if it sent nothing). */
  counts(name: string): ServedCounts;
  /**
   * Every tile request of client `name`, in arrival order, with the step the client last marked
   * (`GET /<client>/step/<n>`, answered 204 and not counted) before it.
   */
  requests(name: string): readonly LoggedRequest[];
  /** Tiles generated while answering a request (not made beforehand by {@link prepare}). */
  readonly generatedOnDemand: number;
  /** Generates and encodes the tiles `[z, x, y]` now, so that no timed request waits for them. */
  prepare(tiles: Iterable<readonly [number, number, number]>): Promise<void>;
  close(): Promise<void>;
}

/** An RGB image, rows top to bottom. */
interface Rgb {
  size: number;
  data: Uint8Array;
}

/** Starts the server on a free localhost port. */
export async function startTileServer(): Promise<TileServer> {
  const logs = new Map<string, { step: number; requests: LoggedRequest[] }>();
  const logOf = (name: string) => {
    let log = logs.get(name);
    if (log === undefined) {
      log = { step: -1, requests: [] };
      logs.set(name, log);
    }
    return log;
  };
  const levels = await earthLevels();
  const encoded = new Map<string, Promise<Buffer>>();
  const counts = new Map<string, ServedCounts>();
  let generatedOnDemand = 0;
  const { default: sharp } = await import('sharp');

  const tile = (z: number, x: number, y: number): Promise<Buffer> => {
    const key = `${z}/${x}/${y}`;
    let jpeg = encoded.get(key);
    if (jpeg === undefined) {
      const rgb = tileTexels(levels, z, x, y);
      jpeg = sharp(rgb, { raw: { width: XYZ_TILE_SIZE, height: XYZ_TILE_SIZE, channels: 3 } })
        .jpeg({ quality: JPEG_QUALITY })
        .toBuffer();
      encoded.set(key, jpeg);
    }
    return jpeg;
  };

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    response.setHeader('Access-Control-Allow-Origin', '*');
    response.setHeader('Cache-Control', 'no-store');
    const marker = /^\/([a-z0-9_]+)\/step\/(\d+)$/.exec(request.url ?? '');
    if (marker !== null) {
      logOf(marker[1]).step = Number(marker[2]);
      response.writeHead(204).end();
      return;
    }
    const match = /^\/([a-z0-9_]+)\/(\d+)\/(\d+)\/(\d+)\.jpg$/.exec(request.url ?? '');
    if (match === null) {
      response.writeHead(404).end();
      return;
    }
    const name = match[1];
    const [z, x, y] = [Number(match[2]), Number(match[3]), Number(match[4])];
    let count = counts.get(name);
    if (count === undefined) {
      count = { requests: 0, bytes: 0 };
      counts.set(name, count);
    }
    count.requests++;
    const log = logOf(name);
    log.requests.push({ step: log.step, z, x, y });
    if (tileServer.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, tileServer.latencyMs));
    if (z > MAX_ZOOM || x >= 2 ** z || y >= 2 ** z) {
      response.writeHead(404).end();
      return;
    }
    if (!encoded.has(`${z}/${x}/${y}`)) generatedOnDemand++;
    const body = await tile(z, x, y);
    count.bytes += body.length;
    response.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': body.length }).end(body);
  };

  const server: Server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const { port } = server.address() as AddressInfo;

  const tileServer: TileServer = {
    origin: `http://localhost:${port}`,
    latencyMs: 0,
    counts: (name) => ({ ...(counts.get(name) ?? { requests: 0, bytes: 0 }) }),
    requests: (name) => logs.get(name)?.requests ?? [],
    get generatedOnDemand() {
      return generatedOnDemand;
    },
    async prepare(tiles) {
      // A few at a time: sharp encodes on libuv's pool while the next tile's texels are made.
      const batch: Promise<Buffer>[] = [];
      for (const [z, x, y] of tiles) {
        batch.push(tile(z, x, y));
        if (batch.length >= 4) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return tileServer;
}

/** The Earth map in Mercator at zooms 0..{@link BASE_ZOOM}, index = zoom, RGB. */
async function earthLevels(): Promise<Rgb[]> {
  const size = XYZ_TILE_SIZE * 2 ** BASE_ZOOM;
  const mercator = equirectangularToMercator(await loadEarthImage(), size);
  const rgb = new Uint8Array(size * size * 3);
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) {
    rgb[i] = mercator.data[j];
    rgb[i + 1] = mercator.data[j + 1];
    rgb[i + 2] = mercator.data[j + 2];
  }
  const levels: Rgb[] = [{ size, data: rgb }];
  while (levels.length <= BASE_ZOOM) {
    const finer = levels[levels.length - 1];
    const half = finer.size / 2;
    const out = new Uint8Array(half * half * 3);
    for (let y = 0; y < half; y++) {
      for (let x = 0; x < half; x++) {
        for (let c = 0; c < 3; c++) {
          const at = (yy: number, xx: number) => finer.data[(yy * finer.size + xx) * 3 + c];
          const sum =
            at(2 * y, 2 * x) + at(2 * y, 2 * x + 1) + at(2 * y + 1, 2 * x) + at(2 * y + 1, 2 * x + 1);
          out[(y * half + x) * 3 + c] = (sum + 2) >> 2;
        }
      }
    }
    levels.push({ size: half, data: out });
  }
  return levels.reverse();
}

/** Value in [-1, 1] of lattice point (`i`, `j`) of zoom `k`'s texel grid (an integer hash). */
function latticeValue(k: number, i: number, j: number): number {
  let h = Math.imul(i, 0x27d4eb2d) ^ Math.imul(j, 0x165667b1) ^ Math.imul(k + 1, 0x9e3779b9);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return ((h >>> 8) / 0xffffff) * 2 - 1;
}

/** The 256² RGB texels of tile (`z`, `x`, `y`) (see the file's TSDoc for what they are). */
function tileTexels(levels: Rgb[], z: number, x: number, y: number): Uint8Array {
  const T = XYZ_TILE_SIZE;
  const out = new Uint8Array(T * T * 3);
  if (z <= BASE_ZOOM) {
    const level = levels[z];
    for (let row = 0; row < T; row++) {
      const from = ((y * T + row) * level.size + x * T) * 3;
      out.set(level.data.subarray(from, from + T * 3), row * T * 3);
    }
    return out;
  }
  // Magnified base, bilinear, in texel centres of the base level.
  const base = levels[BASE_ZOOM];
  const scale = 2 ** (z - BASE_ZOOM);
  const detail = new Float32Array(T * T);
  for (let k = BASE_ZOOM + 1; k <= z; k++) addOctave(detail, k, z, x, y);
  for (let row = 0; row < T; row++) {
    const by = Math.min(base.size - 1, Math.max(0, (y * T + row + 0.5) / scale - 0.5));
    const y0 = Math.floor(by);
    const y1 = Math.min(base.size - 1, y0 + 1);
    const fy = by - y0;
    for (let col = 0; col < T; col++) {
      const bx = Math.min(base.size - 1, Math.max(0, (x * T + col + 0.5) / scale - 0.5));
      const x0 = Math.floor(bx);
      const x1 = Math.min(base.size - 1, x0 + 1);
      const fx = bx - x0;
      const grain = detail[row * T + col];
      for (let c = 0; c < 3; c++) {
        const a =
          base.data[(y0 * base.size + x0) * 3 + c] * (1 - fx) + base.data[(y0 * base.size + x1) * 3 + c] * fx;
        const b =
          base.data[(y1 * base.size + x0) * 3 + c] * (1 - fx) + base.data[(y1 * base.size + x1) * 3 + c] * fx;
        const v = a * (1 - fy) + b * fy + grain;
        out[(row * T + col) * 3 + c] = v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
      }
    }
  }
  return out;
}

/**
 * Adds octave `k` (value noise on zoom `k`'s texel lattice, bilinear between lattice points) to
 * the `detail` of tile (`z`, `x`, `y`), `z >= k`: zoom `k`'s texels are `2^(z-k)` of the tile's.
 */
function addOctave(detail: Float32Array, k: number, z: number, x: number, y: number): void {
  const T = XYZ_TILE_SIZE;
  const step = 2 ** (z - k);
  // Lattice points cover the tile plus one on each side for the interpolation.
  const i0 = Math.floor((x * T + 0.5) / step - 0.5);
  const j0 = Math.floor((y * T + 0.5) / step - 0.5);
  const count = Math.ceil(T / step) + 2;
  const lattice = new Float32Array(count * count);
  for (let j = 0; j < count; j++)
    for (let i = 0; i < count; i++) lattice[j * count + i] = latticeValue(k, i0 + i, j0 + j);
  for (let row = 0; row < T; row++) {
    const ly = (y * T + row + 0.5) / step - 0.5 - j0;
    const ja = Math.floor(ly);
    const fy = ly - ja;
    for (let col = 0; col < T; col++) {
      const lx = (x * T + col + 0.5) / step - 0.5 - i0;
      const ia = Math.floor(lx);
      const fx = lx - ia;
      const a = lattice[ja * count + ia] * (1 - fx) + lattice[ja * count + ia + 1] * fx;
      const b = lattice[(ja + 1) * count + ia] * (1 - fx) + lattice[(ja + 1) * count + ia + 1] * fx;
      detail[row * T + col] += OCTAVE_AMPLITUDE * (a * (1 - fy) + b * fy);
    }
  }
}
