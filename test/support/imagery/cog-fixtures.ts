/**
 * Tiled pyramidal TIFFs for the Cloud-Optimized GeoTIFF tests: written by sharp (libvips, as
 * people make them) for the compressions, and by a small TIFF writer here for what sharp cannot
 * write (single-band 16-bit or float samples, `GDAL_NODATA`, palettes, sparse tiles, mask and
 * odd-sized IFDs, GeoTIFF georeferencing). Also a `Range`-serving HTTP server that counts requests and fails chosen ones.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import type { RgbaImage } from './earth-image';

/** Options of {@link writeSharpCog}. */
export interface SharpCogOptions {
  compression: 'jpeg' | 'deflate' | 'lzw' | 'webp' | 'none';
  /** Colour samples written: 3 (RGB) or 4 (RGBA). Default 4 (JPEG always writes 3). */
  channels?: 3 | 4;
  /** Tile side, texels (a multiple of 16). Default 256. */
  tileSize?: number;
  /** Lossy quality 1..100. Default 90. */
  quality?: number;
  /** Overviews (sharp's `pyramid`). Default true. */
  pyramid?: boolean;
  /** Tiled (default) or one strip per few rows, as a plain TIFF. */
  tiled?: boolean;
}

/** Writes `image` as a tiled pyramidal TIFF with sharp (libvips `tiffsave --tile --pyramid`). */
export async function writeSharpCog(image: RgbaImage, options: SharpCogOptions): Promise<Uint8Array> {
  const tileSize = options.tileSize ?? 256;
  let pipeline = sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } });
  if ((options.channels ?? 4) === 3) pipeline = pipeline.removeAlpha();
  const tiled = options.tiled ?? true;
  const buffer = await pipeline
    .tiff({
      tile: tiled,
      tileWidth: tileSize,
      tileHeight: tileSize,
      pyramid: tiled && (options.pyramid ?? true),
      compression: options.compression,
      quality: options.quality ?? 90,
    })
    .toBuffer();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength).slice();
}

/** Sample arrays the writer takes. */
export type SampleArray = Uint8Array | Uint16Array | Int16Array | Float32Array;

/** One image file directory for {@link writeTiledTiff}. */
export interface TiffImageSpec {
  width: number;
  height: number;
  /** Interleaved samples, `width x height x samplesPerPixel`, rows top-down. */
  samples: SampleArray;
  samplesPerPixel: number;
  /** TIFF PhotometricInterpretation: 0 WhiteIsZero, 1 BlackIsZero, 2 RGB, 3 palette, 4 mask. */
  photometric: number;
  /** Tile side, texels (a multiple of 16). Default 256. */
  tileSize?: number;
  /** 1 none (default) or 8 deflate. */
  compression?: 1 | 8;
  /** TIFF NewSubfileType: 1 reduced resolution, 4 mask, 5 both. Default 0, or 1 after the first. */
  newSubfileType?: number;
  /** TIFF ExtraSamples, e.g. `[2]` for straight alpha. */
  extraSamples?: number[];
  /** `GDAL_NODATA` text, e.g. `'-9999'`. */
  nodata?: string;
  /** Palette: 16-bit red, green then blue entries. */
  colorMap?: Uint16Array;
  /** Tile indices written with no bytes (GDAL's sparse tiles). */
  emptyTiles?: number[];
  /** GeoTIFF georeferencing tags (GeoKeys and the raster-to-model transform), as GDAL writes them. */
  geo?: TiffGeoTags;
}

/** GeoTIFF tags, each written only when given. */
export interface TiffGeoTags {
  /** `GeoKeyDirectory` entries as [key, value] pairs of SHORT values (e.g. `[1024, 2]` geographic). */
  geoKeys?: Array<[number, number]>;
  /** `ModelPixelScale`: x, y, z size of a texel in model units. */
  pixelScale?: [number, number, number];
  /** `ModelTiepoint`: raster i, j, k and model x, y, z of one point (or several, ground control). */
  tiepoint?: number[];
  /** `ModelTransformation`: the row-major 4 x 4 raster-to-model matrix. */
  transformation?: number[];
}

/** GeoKey ids and values the tests write. */
export const GEO_KEY = {
  modelType: 1024,
  rasterType: 1025,
  geographicType: 2048,
  geogAngularUnits: 2054,
  projectedCsType: 3072,
  projLinearUnits: 3076,
  modelProjected: 1,
  modelGeographic: 2,
  pixelIsArea: 1,
  pixelIsPoint: 2,
} as const;

const SHORT = 3;
const LONG = 4;
const ASCII = 2;
const DOUBLE = 12;

interface Entry {
  tag: number;
  type: number;
  values: number[] | string;
}

/**
 * Writes a little-endian classic TIFF with one tiled IFD per spec, in order (the first is full
 * resolution), each IFD after its tiles as libtiff does.
 */
export function writeTiledTiff(specs: readonly TiffImageSpec[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 8;
  const push = (bytes: Uint8Array): number => {
    if (size % 2 === 1) {
      chunks.push(new Uint8Array(1));
      size += 1;
    }
    const at = size;
    chunks.push(bytes);
    size += bytes.length;
    return at;
  };
  const header = new Uint8Array(8);
  const headerView = new DataView(header.buffer);
  header[0] = 0x49;
  header[1] = 0x49;
  headerView.setUint16(2, 42, true);
  chunks.push(header);
  /** Where each IFD's "next IFD" field is, to patch. */
  let patchNextAt = 4;
  const patches: Array<[number, number]> = [];
  specs.forEach((spec, index) => {
    const tile = spec.tileSize ?? 256;
    const spp = spec.samplesPerPixel;
    const bytesPerSample = spec.samples.BYTES_PER_ELEMENT;
    const across = Math.ceil(spec.width / tile);
    const down = Math.ceil(spec.height / tile);
    const offsets: number[] = [];
    const counts: number[] = [];
    const Ctor = spec.samples.constructor as new (n: number) => SampleArray;
    for (let ty = 0; ty < down; ty++) {
      for (let tx = 0; tx < across; tx++) {
        if (spec.emptyTiles?.includes(ty * across + tx)) {
          offsets.push(0);
          counts.push(0);
          continue;
        }
        const block = new Ctor(tile * tile * spp);
        for (let row = 0; row < tile; row++) {
          const y = ty * tile + row;
          if (y >= spec.height) break;
          const x0 = tx * tile;
          const n = Math.min(tile, spec.width - x0) * spp;
          const from = (y * spec.width + x0) * spp;
          block.set(spec.samples.subarray(from, from + n), row * tile * spp);
        }
        let bytes = new Uint8Array(block.buffer, 0, block.length * bytesPerSample);
        if (spec.compression === 8) bytes = new Uint8Array(deflateSync(bytes));
        offsets.push(push(bytes.slice()));
        counts.push(bytes.length);
      }
    }
    const sampleFormat =
      spec.samples instanceof Float32Array ? 3 : spec.samples instanceof Int16Array ? 2 : 1;
    const entries: Entry[] = [
      { tag: 254, type: LONG, values: [spec.newSubfileType ?? (index === 0 ? 0 : 1)] },
      { tag: 256, type: LONG, values: [spec.width] },
      { tag: 257, type: LONG, values: [spec.height] },
      { tag: 258, type: SHORT, values: new Array(spp).fill(bytesPerSample * 8) },
      { tag: 259, type: SHORT, values: [spec.compression ?? 1] },
      { tag: 262, type: SHORT, values: [spec.photometric] },
      { tag: 277, type: SHORT, values: [spp] },
      { tag: 284, type: SHORT, values: [1] },
      { tag: 322, type: LONG, values: [tile] },
      { tag: 323, type: LONG, values: [tile] },
      { tag: 324, type: LONG, values: offsets },
      { tag: 325, type: LONG, values: counts },
      { tag: 339, type: SHORT, values: new Array(spp).fill(sampleFormat) },
    ];
    if (spec.colorMap) entries.push({ tag: 320, type: SHORT, values: Array.from(spec.colorMap) });
    if (spec.extraSamples) entries.push({ tag: 338, type: SHORT, values: spec.extraSamples });
    if (spec.nodata !== undefined) entries.push({ tag: 42113, type: ASCII, values: `${spec.nodata}\0` });
    if (spec.geo?.pixelScale) entries.push({ tag: 33550, type: DOUBLE, values: spec.geo.pixelScale });
    if (spec.geo?.tiepoint) entries.push({ tag: 33922, type: DOUBLE, values: spec.geo.tiepoint });
    if (spec.geo?.transformation) entries.push({ tag: 34264, type: DOUBLE, values: spec.geo.transformation });
    if (spec.geo?.geoKeys) {
      // Header: version 1, revision 1.0, key count; then key, location 0 (inline), count 1, value.
      const directory = [1, 1, 0, spec.geo.geoKeys.length];
      for (const [key, value] of [...spec.geo.geoKeys].sort((a, b) => a[0] - b[0])) {
        directory.push(key, 0, 1, value);
      }
      entries.push({ tag: 34735, type: SHORT, values: directory });
    }
    entries.sort((a, b) => a.tag - b.tag);
    // Out-of-line values first, then the directory pointing at them.
    const valueOffsets = entries.map((entry) => {
      const bytes = encodeValues(entry);
      return bytes.length > 4 ? push(bytes) : -1;
    });
    const ifd = new Uint8Array(2 + entries.length * 12 + 4);
    const view = new DataView(ifd.buffer);
    view.setUint16(0, entries.length, true);
    entries.forEach((entry, i) => {
      const p = 2 + i * 12;
      const bytes = encodeValues(entry);
      view.setUint16(p, entry.tag, true);
      view.setUint16(p + 2, entry.type, true);
      view.setUint32(
        p + 4,
        typeof entry.values === 'string' ? entry.values.length : entry.values.length,
        true,
      );
      if (valueOffsets[i] >= 0) view.setUint32(p + 8, valueOffsets[i], true);
      else ifd.set(bytes, p + 8);
    });
    const at = push(ifd);
    patches.push([patchNextAt, at]);
    patchNextAt = at + 2 + entries.length * 12;
  });
  const out = new Uint8Array(size);
  let p = 0;
  for (const chunk of chunks) {
    out.set(chunk, p);
    p += chunk.length;
  }
  const view = new DataView(out.buffer);
  for (const [where, value] of patches) view.setUint32(where, value, true);
  return out;
}

function encodeValues(entry: Entry): Uint8Array {
  if (typeof entry.values === 'string') return new TextEncoder().encode(entry.values);
  const size = entry.type === SHORT ? 2 : entry.type === DOUBLE ? 8 : 4;
  const bytes = new Uint8Array(entry.values.length * size);
  const view = new DataView(bytes.buffer);
  entry.values.forEach((v, i) => {
    if (size === 2) view.setUint16(i * size, v, true);
    else if (size === 8) view.setFloat64(i * size, v, true);
    else view.setUint32(i * size, v, true);
  });
  return bytes;
}

/** A file server with `Range` support for the HTTP tests. */
export interface RangeServer {
  /** Base URL, e.g. `http://127.0.0.1:1234`; files are at `${url}/<name>`. */
  readonly url: string;
  /** Requests received so far (each retry counts). */
  requests: number;
  /** `Range` headers received, in order. */
  readonly ranges: string[];
  /** Answer the next `n` requests with 503 (a transient failure). */
  failNext(n: number): void;
  close(): Promise<void>;
}

/** Serves `files` (name to bytes) over HTTP on 127.0.0.1, answering `Range` with 206. */
export async function serveRanges(files: Record<string, Uint8Array>): Promise<RangeServer> {
  let failures = 0;
  const state = { requests: 0, ranges: [] as string[] };
  const server: Server = createServer((request, response) => {
    state.requests++;
    const range = request.headers.range ?? '';
    state.ranges.push(range);
    if (failures > 0) {
      failures--;
      response.writeHead(503).end();
      return;
    }
    const file = files[(request.url ?? '').slice(1)];
    if (file === undefined) {
      response.writeHead(404).end();
      return;
    }
    const match = /^bytes=(\d+)-(\d+)$/.exec(range);
    if (match === null) {
      response.writeHead(200, { 'content-length': file.length }).end(Buffer.from(file));
      return;
    }
    const start = Number(match[1]);
    if (start >= file.length) {
      response.writeHead(416, { 'content-range': `bytes */${file.length}` }).end();
      return;
    }
    const end = Math.min(Number(match[2]), file.length - 1);
    response
      .writeHead(206, {
        'content-range': `bytes ${start}-${end}/${file.length}`,
        'content-length': end - start + 1,
      })
      .end(Buffer.from(file.subarray(start, end + 1)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    set requests(n: number) {
      state.requests = n;
    },
    ranges: state.ranges,
    failNext(n: number) {
      failures = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
