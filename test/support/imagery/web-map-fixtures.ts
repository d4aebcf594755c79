/**
 * Web-map fixtures: the tiles of a Web Mercator world image cut as every web map serves them
 * (`{z}/{x}/{y}.png|jpg|webp`, 256² by default), optionally sparse; the same tiles as a PMTiles v3
 * archive (written here from the specification, with leaf directories on request); and a tile
 * server on 127.0.0.1 that serves files with `Range`, counts requests in flight and lets a test
 * answer some requests itself.
 */

import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { gzipSync } from 'fflate';
import { zxyToTileId } from 'pmtiles';
import { equirectangularToMercator, loadEarthImage, type RgbaImage } from './earth-image';

/** Tile file format of a fixture web map. PNG for exact comparisons, JPEG and WebP for realism. */
export type WebMapTileFormat = 'png' | 'jpeg' | 'webp';

/** One tile of a fixture web map, rows from the top (XYZ numbering). */
export interface WebMapTile {
  readonly z: number;
  readonly x: number;
  readonly y: number;
  /** The encoded file. */
  readonly bytes: Uint8Array;
  /** The rgba8 texels that were encoded (what a lossless tile decodes to). */
  readonly texels: Uint8Array;
}

/** Options of {@link makeWebMapTiles}. */
export interface WebMapTileOptions {
  /** Finest zoom cut. */
  maxZoom: number;
  /** Coarsest zoom cut. Default 0. */
  minZoom?: number;
  /** Tile side, texels. Default 256. */
  tileSize?: number;
  format: WebMapTileFormat;
  /** Tiles to leave out (a sparse pyramid, partial coverage). */
  omit?: (z: number, x: number, y: number) => boolean;
}

/**
 * The Earth map of `earth-image.ts` reprojected to Web Mercator, `size x size` texels, with a
 * seeded grain so that every texel of every zoom differs from its neighbours.
 */
export async function loadMercatorWorld(size: number): Promise<RgbaImage> {
  return equirectangularToMercator(
    await loadEarthImage(Math.max(size, 2048), Math.max(size, 2048) / 2, 8),
    size,
  );
}

/**
 * Cuts `world` (a square Web Mercator image) into the tiles of zooms `minZoom..maxZoom`, each
 * zoom resized from `world` with sharp (Lanczos) to `tileSize x 2^z` texels.
 */
export async function makeWebMapTiles(world: RgbaImage, options: WebMapTileOptions): Promise<WebMapTile[]> {
  const { default: sharp } = await import('sharp');
  const tileSize = options.tileSize ?? 256;
  const tiles: WebMapTile[] = [];
  for (let z = options.minZoom ?? 0; z <= options.maxZoom; z++) {
    const side = tileSize * 2 ** z;
    const level =
      side === world.width
        ? world.data
        : new Uint8Array(
            await sharp(world.data, { raw: { width: world.width, height: world.height, channels: 4 } })
              .resize(side, side, { fit: 'fill', kernel: 'lanczos3' })
              .raw()
              .toBuffer(),
          );
    for (let y = 0; y < 2 ** z; y++) {
      for (let x = 0; x < 2 ** z; x++) {
        if (options.omit?.(z, x, y)) continue;
        const texels = new Uint8Array(tileSize * tileSize * 4);
        for (let row = 0; row < tileSize; row++) {
          const from = ((y * tileSize + row) * side + x * tileSize) * 4;
          texels.set(level.subarray(from, from + tileSize * 4), row * tileSize * 4);
        }
        const input = sharp(texels, { raw: { width: tileSize, height: tileSize, channels: 4 } });
        const encoded =
          options.format === 'png'
            ? input.png()
            : options.format === 'jpeg'
              ? input.jpeg({ quality: 90 })
              : input.webp({ quality: 90 });
        const buffer = await encoded.toBuffer();
        tiles.push({
          z,
          x,
          y,
          texels,
          bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length),
        });
      }
    }
  }
  return tiles;
}

/** File extension of a format, as tile servers name them. */
export function webMapExtension(format: WebMapTileFormat): string {
  return format === 'jpeg' ? 'jpg' : format;
}

/** Writes `tiles` as `<dir>/{z}/{x}/{y}.<extension>`. */
export function writeXyzDirectory(tiles: readonly WebMapTile[], dir: string, extension: string): void {
  for (const tile of tiles) {
    const file = join(dir, String(tile.z), String(tile.x), `${tile.y}.${extension}`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, tile.bytes);
  }
}

/** PMTiles v3 tile types (the header's byte 99). */
const PMTILES_TILE_TYPES = { mvt: 1, png: 2, jpeg: 3, webp: 4, avif: 5 } as const;

/** Options of {@link writePmtiles}. */
export interface PmtilesWriteOptions {
  tileType: keyof typeof PMTILES_TILE_TYPES;
  /** Compression of the directories and metadata. Default `'gzip'`, as the reference writer. */
  internalCompression?: 'none' | 'gzip';
  /** The JSON metadata (an `attribution`, for one). Default `{}`. */
  metadata?: Record<string, unknown>;
  /** Header zooms. Default the tiles' own range. */
  minZoom?: number;
  maxZoom?: number;
  /** Entries per leaf directory; the root then only points at leaves. Default: everything in the root. */
  leafEntries?: number;
}

interface DirectoryEntry {
  tileId: number;
  offset: number;
  length: number;
  runLength: number;
}

/**
 * Encodes `tiles` as a PMTiles v3 archive: the 127-byte header, the root directory (entries sorted
 * by Hilbert tile id, varint columns), the metadata, leaf directories if asked, then the tile
 * data in tile-id order (clustered).
 */
export function writePmtiles(
  tiles: readonly Pick<WebMapTile, 'z' | 'x' | 'y' | 'bytes'>[],
  options: PmtilesWriteOptions,
): Uint8Array {
  const gzip = (options.internalCompression ?? 'gzip') === 'gzip';
  const compress = (bytes: Uint8Array) => (gzip ? gzipSync(bytes) : bytes);
  const sorted = tiles
    .map((tile) => ({ tile, id: zxyToTileId(tile.z, tile.x, tile.y) }))
    .sort((a, b) => a.id - b.id);
  const entries: DirectoryEntry[] = [];
  let dataLength = 0;
  for (const { tile, id } of sorted) {
    entries.push({ tileId: id, offset: dataLength, length: tile.bytes.length, runLength: 1 });
    dataLength += tile.bytes.length;
  }
  let root: Uint8Array;
  let leaves: Uint8Array = new Uint8Array(0);
  if (options.leafEntries !== undefined && entries.length > options.leafEntries) {
    const pointers: DirectoryEntry[] = [];
    const leafParts: Uint8Array[] = [];
    let leafOffset = 0;
    for (let i = 0; i < entries.length; i += options.leafEntries) {
      const chunk = entries.slice(i, i + options.leafEntries);
      const leaf = compress(serializeDirectory(chunk));
      pointers.push({ tileId: chunk[0].tileId, offset: leafOffset, length: leaf.length, runLength: 0 });
      leafParts.push(leaf);
      leafOffset += leaf.length;
    }
    root = compress(serializeDirectory(pointers));
    leaves = concat(leafParts);
  } else {
    root = compress(serializeDirectory(entries));
  }
  const metadata = compress(new TextEncoder().encode(JSON.stringify(options.metadata ?? {})));
  const zooms = tiles.map((t) => t.z);
  const minZoom = options.minZoom ?? Math.min(...zooms);
  const maxZoom = options.maxZoom ?? Math.max(...zooms);

  const header = new Uint8Array(127);
  const view = new DataView(header.buffer);
  header.set(new TextEncoder().encode('PMTiles'), 0);
  header[7] = 3;
  const rootOffset = 127;
  const metadataOffset = rootOffset + root.length;
  const leafOffset = metadataOffset + metadata.length;
  const dataOffset = leafOffset + leaves.length;
  const u64 = (at: number, value: number) => {
    view.setUint32(at, value % 2 ** 32, true);
    view.setUint32(at + 4, Math.floor(value / 2 ** 32), true);
  };
  u64(8, rootOffset);
  u64(16, root.length);
  u64(24, metadataOffset);
  u64(32, metadata.length);
  u64(40, leafOffset);
  u64(48, leaves.length);
  u64(56, dataOffset);
  u64(64, dataLength);
  u64(72, entries.length);
  u64(80, entries.length);
  u64(88, entries.length);
  header[96] = 1; // clustered: tile data in tile-id order
  header[97] = gzip ? 2 : 1;
  header[98] = 1; // tiles are stored as their image files
  header[99] = PMTILES_TILE_TYPES[options.tileType];
  header[100] = minZoom;
  header[101] = maxZoom;
  const e7 = (degrees: number) => Math.round(degrees * 1e7);
  view.setInt32(102, e7(-180), true);
  view.setInt32(106, e7(-85.0511), true);
  view.setInt32(110, e7(180), true);
  view.setInt32(114, e7(85.0511), true);
  header[118] = minZoom;
  view.setInt32(119, 0, true);
  view.setInt32(123, 0, true);
  return concat([header, root, metadata, leaves, ...sorted.map((s) => s.tile.bytes)]);
}

/** A PMTiles directory: entry count, then tile-id deltas, run lengths, lengths and offsets as varints. */
function serializeDirectory(entries: readonly DirectoryEntry[]): Uint8Array {
  const out: number[] = [];
  const varint = (value: number) => {
    let v = value;
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  };
  varint(entries.length);
  let last = 0;
  for (const e of entries) {
    varint(e.tileId - last);
    last = e.tileId;
  }
  for (const e of entries) varint(e.runLength);
  for (const e of entries) varint(e.length);
  for (let i = 0; i < entries.length; i++) {
    const previous = entries[i - 1];
    // 0 means "right after the previous entry's bytes", the form the reference writer uses.
    if (i > 0 && entries[i].offset === previous.offset + previous.length) varint(0);
    else varint(entries[i].offset + 1);
  }
  return new Uint8Array(out);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** How a test answers one request itself; true when it did (the server then does nothing more). */
export type WebMapOverride = (req: IncomingMessage, res: ServerResponse, served: number) => boolean;

/** A tile server of one directory on 127.0.0.1. */
export interface WebMapServer {
  /** Base URL of the directory, without a trailing slash. */
  readonly baseUrl: string;
  /** Paths requested, in order (URL-decoded, without the query). */
  readonly requests: string[];
  /** `Range` headers received, in order. */
  readonly ranges: string[];
  /** Most requests in flight at once since the start (or the last {@link resetPeak}). */
  readonly peakInFlight: number;
  /** Requests for `path` so far. */
  count(path: string): number;
  resetPeak(): void;
  /** Answers requests for `path` (URL-decoded) with `override` first. */
  override(path: string, override: WebMapOverride): void;
  close(): Promise<void>;
}

/**
 * Serves the files under `dir` as a static host does: 404 for anything else, `Range` honoured
 * (206, 416). Each answer waits `delayMs` (default 0), so that concurrent requests overlap.
 */
export async function serveWebMap(dir: string, options: { delayMs?: number } = {}): Promise<WebMapServer> {
  const overrides = new Map<string, WebMapOverride>();
  const counts = new Map<string, number>();
  const requests: string[] = [];
  const ranges: string[] = [];
  let inFlight = 0;
  let peak = 0;
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const served = counts.get(path) ?? 0;
    counts.set(path, served + 1);
    requests.push(path);
    ranges.push(String(req.headers.range));
    inFlight++;
    peak = Math.max(peak, inFlight);
    res.on('close', () => inFlight--);
    if (overrides.get(path)?.(req, res, served)) return;
    const answer = () => serveFile(dir, path, req, res);
    if (options.delayMs) setTimeout(answer, options.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    ranges,
    get peakInFlight() {
      return peak;
    },
    count: (path) => counts.get(path) ?? 0,
    resetPeak: () => {
      peak = inFlight;
    },
    override: (path, override) => overrides.set(path, override),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function serveFile(dir: string, path: string, req: IncomingMessage, res: ServerResponse): void {
  if (res.destroyed) return;
  const file = normalize(join(dir, path));
  if (!file.startsWith(normalize(dir)) || !isFile(file)) {
    res.writeHead(404).end();
    return;
  }
  const body = readFileSync(file);
  const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (!match) {
    res.writeHead(200, { 'content-length': body.length }).end(body);
    return;
  }
  const start = Number(match[1]);
  if (start >= body.length) {
    res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
    return;
  }
  const end = Math.min(Number(match[2]), body.length - 1);
  res.writeHead(206, {
    'content-range': `bytes ${start}-${end}/${body.length}`,
    'content-length': end - start + 1,
  });
  res.end(body.subarray(start, end + 1));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
