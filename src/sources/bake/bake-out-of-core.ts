/**
 * Out-of-core image baking (Node only): each layer is decoded once, streaming, into an rgba8
 * file (libvips `.v`); then every mip is processed one band of page rows at a time (tileSize rows of texels),
 * writing the next level's rows to its own temporary file. Peak memory is a few bands
 * (tileSize x width x 4 bytes each), independent of the image's height, instead of the whole
 * pyramid. Tiles are written finest mip first, rows top to bottom, so the output is deterministic.
 */

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TesseraConfigError } from '../../core/errors';
import type { ArchiveHeader, ArchiveLayerUsage } from '../archive/archive-format';
import { shardPageCount } from '../archive/archive-shard';
import { type ArchiveSink, ArchiveWriter } from '../archive/archive-writer';
import { type BakeOptions, bakeLayers, nextPowerOfTwo, tileEncoderOptions } from './bake-archive';
import { downsampleRows, extractTile, type MipImage } from './mip-chain';
import { OrderedTileWriter } from './ordered-tile-writer';
import { shardTexelRows } from './shard-texel-rows';
import { TILES_IN_FLIGHT_PER_WORKER, type TileEncodePool, withEncodePool } from './tile-encode-pool';

/** One input layer: an image file on disk. */
export interface BakeFileLayer {
  name: string;
  colorSpace: 'srgb' | 'linear';
  /** What the texels mean (see `BakeLayer.usage`). Default 'color'. */
  usage?: ArchiveLayerUsage;
  /** Path of any image sharp reads (PNG, JPEG, WebP, TIFF, ...). */
  path: string;
}

/** Bytes of a libvips `.v` file header; pixel rows follow it. */
const VIPS_HEADER_BYTES = 64;

/** Checks a `.v` file holds `width x height` uchar rgba, uncoded (its rows are then raw rgba8). */
function checkVipsHeader(path: string, width: number, height: number): void {
  const header = new Uint8Array(VIPS_HEADER_BYTES);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, VIPS_HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  const view = new DataView(header.buffer);
  const ok =
    view.getUint32(0, false) === 0xb6a6f208 &&
    view.getInt32(4, true) === width &&
    view.getInt32(8, true) === height &&
    view.getInt32(12, true) === 4 &&
    view.getInt32(20, true) === 0 &&
    view.getInt32(24, true) === 0;
  if (!ok) throw new TesseraConfigError('invalid-option', `unexpected intermediate image layout in ${path}`);
}

/**
 * Rows of one mip level stored as raw rgba8 in a file, possibly only a run of them (a shard's);
 * reads clamp to the level's edges, and a read outside the stored run is a bug (it throws).
 */
class RowFile {
  readonly fd: number;
  constructor(
    readonly path: string,
    /** Texels per stored row. */
    readonly storedWidth: number,
    /** Rows of the level; reads clamp to them. */
    readonly levelHeight: number,
    /** Width rows are padded to on read (edge texel repeated), texels. */
    readonly width: number,
    /** Bytes before the first stored row in the file. */
    readonly dataOffset = 0,
    /** Level row of the first stored row. */
    readonly firstRow = 0,
    /** Rows stored. */
    readonly storedRows = levelHeight - firstRow,
  ) {
    this.fd = openSync(path, 'r');
  }

  /** Reads level row `y` (clamped to the level's rows) into `out` at byte `offset`, padded to {@link width}. */
  readRow(y: number, out: Uint8Array, offset: number): void {
    const row = Math.min(Math.max(y, 0), this.levelHeight - 1) - this.firstRow;
    if (row < 0 || row >= this.storedRows) {
      throw new Error(`bake: level row ${row + this.firstRow} of ${this.path} was not stored`);
    }
    const bytes = this.storedWidth * 4;
    let read = 0;
    while (read < bytes) {
      const n = readSync(this.fd, out, offset + read, bytes - read, this.dataOffset + row * bytes + read);
      if (n === 0) throw new TesseraConfigError('invalid-size', `${this.path} ended at row ${row}`);
      read += n;
    }
    const last = offset + bytes - 4;
    for (let x = this.storedWidth; x < this.width; x++) out.copyWithin(offset + x * 4, last, last + 4);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Bakes image files into `sink` without holding the image or its pyramid in memory. All layers
 * must have the first layer's size. Returns the header and the archive length in bytes.
 */
export async function bakeImageFiles(layers: BakeFileLayer[], options: BakeOptions, sink: ArchiveSink) {
  return withEncodePool(options.encodePool, options.workers, (pool) =>
    bakeImageFilesOn(pool, layers, options, sink),
  );
}

async function bakeImageFilesOn(
  pool: TileEncodePool,
  layers: BakeFileLayer[],
  options: BakeOptions,
  sink: ArchiveSink,
) {
  const { default: sharp } = await import('sharp');
  const tileSize = options.tileSize ?? 128;
  const border = options.border ?? 4;
  const payload = tileSize - 2 * border;
  if (payload % 2 !== 0) {
    throw new TesseraConfigError('invalid-tile', 'out-of-core baking needs an even payload');
  }
  // Checked before any work: a refused option costs no decode.
  const archiveLayers = bakeLayers(layers, tileSize, border, options);
  const work = mkdtempSync(join(tmpdir(), 'tessera-bake-'));
  const open: RowFile[] = [];
  try {
    let width = 0;
    let height = 0;
    for (const [i, layer] of layers.entries()) {
      const meta = await sharp(layer.path, { limitInputPixels: false }).metadata();
      if (i === 0) {
        width = meta.width ?? 0;
        height = meta.height ?? 0;
      } else if (meta.width !== width || meta.height !== height) {
        throw new TesseraConfigError('invalid-layers', `${layer.path} is not ${width}x${height}`);
      }
    }
    const widthPages = nextPowerOfTwo(Math.ceil(width / payload));
    const heightPages = nextPowerOfTwo(Math.ceil(height / payload));
    const header: ArchiveHeader = {
      widthPages,
      heightPages,
      tileSize,
      border,
      mipCount: Math.log2(Math.max(widthPages, heightPages)) + 1,
      contentWidth: width,
      contentHeight: height,
      layers: archiveLayers,
    };
    const target = options.shard && { shard: options.shard, mipOrder: 'finest-first' as const };
    const writer = new ArchiveWriter(header, sink, target);
    const { layout } = writer;
    const total = writer.rows === null ? layout.pageCount : shardPageCount(layout, writer.rows);
    // A shard reads and averages only the rows its pages depend on; a whole bake, every row.
    const everyRow = { start: new Int32Array(header.mipCount), end: Int32Array.from(layout.pagesHigh) };
    const need = shardTexelRows(layout, writer.rows ?? everyRow, payload, border);
    // The image rows mip 0 reads (level rows below the image read its last row).
    const firstRow = Math.min(height - 1, need.start[0]);
    const lastRow = Math.min(height - 1, need.end[0] - 1);
    let current: RowFile[] = [];
    if (need.end[0] > need.start[0]) {
      for (const [i, layer] of layers.entries()) {
        // libvips writes its native .v format streaming (a sequential read never holds the whole
        // image; sharp's raw buffer/stream output would): a 64-byte header, then rgba8 rows. A
        // shard's rows are cut out as they stream by, so decoding stops at its last row.
        const raw = join(work, `layer${i}-mip0.v`);
        const rows = lastRow - firstRow + 1;
        await sharp(layer.path, { limitInputPixels: false, sequentialRead: true })
          .extract({ left: 0, top: firstRow, width, height: rows })
          .ensureAlpha()
          .toFile(raw);
        checkVipsHeader(raw, width, rows);
        current.push(
          new RowFile(raw, width, height, widthPages * payload, VIPS_HEADER_BYTES, firstRow, rows),
        );
        open.push(current[i]);
      }
    }
    const ordered = new OrderedTileWriter(writer, pool.size * TILES_IN_FLIGHT_PER_WORKER);
    const layerOptions = header.layers.map((_, i) => tileEncoderOptions(header, i, options));
    let done = 0;
    for (let mip = 0; mip < header.mipCount; mip++) {
      const levelWidth = layout.pagesWide[mip] * payload;
      const levelHeight = layout.pagesHigh[mip] * payload;
      const last = mip === header.mipCount - 1;
      const nextWidth = last ? 0 : layout.pagesWide[mip + 1] * payload;
      const nextHeight = last ? 0 : layout.pagesHigh[mip + 1] * payload;
      // Rows of the next level one band averages into: half a page row, or a whole one where the
      // level cannot halve in height.
      const factorY = last ? 1 : levelHeight / nextHeight;
      const nextBandRows = payload / factorY;
      // This level's rows the next level's needed rows are averaged from.
      const averageStart = last ? 0 : need.start[mip + 1] * factorY;
      const averageEnd = last ? 0 : need.end[mip + 1] * factorY;
      const nextPaths = layers.map((_, i) => join(work, `layer${i}-mip${mip + 1}.raw`));
      const nextFds = last ? [] : nextPaths.map((p) => openSync(p, 'w'));
      const band: MipImage = {
        data: new Uint8Array(tileSize * levelWidth * 4),
        width: levelWidth,
        height: tileSize,
      };
      const texels = layers.map(() => new Uint8Array(tileSize * levelWidth * 4));
      const averaged: MipImage = {
        data: new Uint8Array(nextBandRows * nextWidth * 4),
        width: nextWidth,
        height: nextBandRows,
      };
      const scratch = new Uint8Array(tileSize * tileSize * 4);
      const bandEnd = Math.ceil(need.end[mip] / payload);
      for (let py = Math.floor(need.start[mip] / payload); py < bandEnd; py++) {
        const own = writer.hasRow(mip, py);
        // The band's payload rows that average into needed rows of the next level.
        const a0 = Math.max(averageStart, py * payload);
        const a1 = Math.min(averageEnd, (py + 1) * payload);
        if (!own && a1 <= a0) continue;
        for (const [i, file] of current.entries()) {
          for (let j = 0; j < tileSize; j++) {
            const y = py * payload - border + j;
            if (own || (y >= a0 && y < a1)) file.readRow(y, texels[i], j * levelWidth * 4);
          }
        }
        // Encoded are the shard's own rows; another band is read only for the next mip.
        for (let x = 0; own && x < layout.pagesWide[mip]; x++) {
          const payloads = layers.map((_, i) => {
            band.data = texels[i];
            // The band's row 0 is level row py*payload - border, so page row py is band page row 0.
            extractTileFromBand(band, x, tileSize, border, scratch);
            return pool.encode(header.layers[i].encoding, scratch.slice(), tileSize, layerOptions[i]);
          });
          await ordered.add(mip, x, py, payloads);
        }
        if (own) {
          done += layout.pagesWide[mip];
          options.onProgress?.(done, total);
        }
        if (a1 <= a0) continue;
        // Those rows are final: average them into the next level's file, which holds its needed
        // rows from the first.
        const y0 = (a0 - py * payload) / factorY;
        const y1 = (a1 - py * payload) / factorY;
        const position = ((py * payload) / factorY + y0 - need.start[mip + 1]) * nextWidth * 4;
        for (const [i, layer] of layers.entries()) {
          const rows: MipImage = {
            data: texels[i].subarray(border * levelWidth * 4, (border + payload) * levelWidth * 4),
            width: levelWidth,
            height: payload,
          };
          downsampleRows(rows, averaged, y0, y1, layer.colorSpace === 'srgb');
          writeSync(nextFds[i], averaged.data, y0 * nextWidth * 4, (y1 - y0) * nextWidth * 4, position);
        }
      }
      for (const f of current) f.close();
      open.length = 0;
      if (last) break;
      for (const fd of nextFds) closeSync(fd);
      const stored = need.end[mip + 1] - need.start[mip + 1];
      current = nextPaths.map(
        (p) => new RowFile(p, nextWidth, nextHeight, nextWidth, 0, need.start[mip + 1], stored),
      );
      open.push(...current);
    }
    await ordered.flush();
    return { header, length: writer.finish() };
  } finally {
    for (const f of open) {
      try {
        f.close();
      } catch {}
    }
    rmSync(work, { recursive: true, force: true });
  }
}

/** Cuts page `x` of the band's single page row (the band holds exactly the tile's rows). */
function extractTileFromBand(
  band: MipImage,
  x: number,
  tileSize: number,
  border: number,
  out: Uint8Array,
): void {
  // extractTile clamps columns at the level edge; rows are already the tile's (clamped on read),
  // so cut "page row 0" of a band whose first row sits `border` rows above the payload.
  extractTile(
    { data: band.data, width: band.width, height: tileSize + border },
    x,
    0,
    tileSize,
    border,
    out,
    border,
  );
}
