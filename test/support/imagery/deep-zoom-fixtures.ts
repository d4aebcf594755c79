/**
 * Deep Zoom and IIIF pyramids written by sharp (libvips' dzsave), the generator most such
 * pyramids on the web come from, and a static file server for them: what the Deep Zoom and IIIF
 * pyramid tests read, as a user's web server would serve it.
 */

import { readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { RgbaImage } from './earth-image';

/** Tile file format of a fixture pyramid: PNG for exact comparisons, JPEG for realism. */
export type FixtureTileFormat = 'png' | 'jpeg';

/** Largest tile side libvips writes, texels: a reference pyramid's one tile per level needs this much. */
const MAX_DZSAVE_TILE = 8192;

async function sharpOf(image: RgbaImage, format: FixtureTileFormat) {
  const { default: sharp } = await import('sharp');
  const input = sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } });
  return format === 'png' ? input.png() : input.jpeg({ quality: 90 });
}

/**
 * Writes `image` as a Deep Zoom pyramid `<dir>/<name>.dzi` + `<dir>/<name>_files/` with tiles of
 * `tileSize` texels overlapping by `overlap`.
 * @returns the descriptor's file name, relative to `dir`.
 */
export async function writeDeepZoomFixture(
  image: RgbaImage,
  dir: string,
  name: string,
  options: { tileSize: number; overlap: number; format: FixtureTileFormat },
): Promise<string> {
  const pipeline = await sharpOf(image, options.format);
  await pipeline
    .tile({ size: options.tileSize, overlap: options.overlap, layout: 'dz' })
    .toFile(join(dir, name));
  return `${name}.dzi`;
}

/**
 * Writes `image` as a level 0 IIIF Image API `version` service in `<dir>/<name>/` (its
 * `info.json` and the tiles libvips' iiif / iiif3 layout writes), with the service id
 * `<baseUrl>/<name>`: `baseUrl` is where `dir` is served.
 * @returns the `info.json`'s path, relative to `dir`.
 */
export async function writeIiifFixture(
  image: RgbaImage,
  dir: string,
  name: string,
  options: { tileSize: number; format: FixtureTileFormat; version: 2 | 3; baseUrl: string },
): Promise<string> {
  const pipeline = await sharpOf(image, options.format);
  await pipeline
    .tile({ size: options.tileSize, layout: options.version === 3 ? 'iiif3' : 'iiif', id: options.baseUrl })
    .toFile(join(dir, name));
  return `${name}/info.json`;
}

/**
 * The level images libvips makes of `image` (index 0 full resolution, each level the one above
 * halved with rounding up, down to 1 x 1), read back from a Deep Zoom pyramid it wrote with one
 * tile per level into `<dir>/<name>_files/`: the reference a pyramid's tiles are compared with,
 * since libvips' levels do not depend on the tile size or overlap.
 * @throws Error when the image is too large for one tile.
 */
export async function readLibvipsLevels(image: RgbaImage, dir: string, name: string): Promise<RgbaImage[]> {
  if (Math.max(image.width, image.height) > MAX_DZSAVE_TILE) {
    throw new Error(`${image.width}x${image.height} does not fit one libvips tile`);
  }
  await writeDeepZoomFixture(image, dir, name, {
    tileSize: MAX_DZSAVE_TILE,
    overlap: 0,
    format: 'png',
  });
  const { default: sharp } = await import('sharp');
  const levels: RgbaImage[] = [];
  let finest = 0;
  while (2 ** finest < Math.max(image.width, image.height)) finest++;
  for (let dzLevel = finest; dzLevel >= 0; dzLevel--) {
    const { data, info } = await sharp(join(dir, `${name}_files`, String(dzLevel), '0_0.png'))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    levels.push({
      width: info.width,
      height: info.height,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    });
  }
  return levels;
}

/** How the server answers one request instead of serving the file; true when it did. */
export type RequestOverride = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A static file server of one directory on 127.0.0.1. */
export interface StaticServer {
  /** Base URL of the directory, without a trailing slash. */
  readonly baseUrl: string;
  /** Requests received per path (URL-decoded, without the query). */
  readonly requests: string[];
  /** Answers requests for a path (URL-decoded) with `override` first. */
  override(path: string, override: RequestOverride): void;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.dzi': 'application/xml',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};

/** Serves the files under `dir` (404 for anything else), as a plain static host does. */
export async function serveDirectory(dir: string): Promise<StaticServer> {
  const overrides = new Map<string, RequestOverride>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    requests.push(path);
    if (overrides.get(path)?.(req, res)) return;
    const file = normalize(join(dir, path));
    if (!file.startsWith(normalize(dir)) || !isFile(file)) {
      res.writeHead(404).end();
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    override: (path, override) => overrides.set(path, override),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
