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
import { downsample, extractTile, type MipImage } from './mip-chain';
import { OrderedTileWriter } from './ordered-tile-writer';
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

/** Rows of one mip level stored as raw rgba8 in a file; reads clamp to the level's edges. */
class RowFile {
  readonly fd: number;
  constructor(
    readonly path: string,
    /** Texels per stored row. */
    readonly storedWidth: number,
    /** Rows stored. */
    readonly storedHeight: number,
    /** Width rows are padded to on read (edge texel repeated), texels. */
    readonly width: number,
    /** Bytes before row 0 in the file. */
    readonly dataOffset = 0,
  ) {
    this.fd = openSync(path, 'r');
  }

  /** Reads level row `y` (clamped to the stored rows) into `out` at byte `offset`, padded to {@link width}. */
  readRow(y: number, out: Uint8Array, offset: number): void {
    const row = Math.min(Math.max(y, 0), this.storedHeight - 1);
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
  if (payload % 2 !== 0)
    throw new TesseraConfigError('invalid-tile', 'out-of-core baking needs an even payload');
  // Checked before any work: a refused option costs no decode.
  const archiveLayers = bakeLayers(layers, tileSize, border, options);
  const work = mkdtempSync(join(tmpdir(), 'tessera-bake-'));
  const open: RowFile[] = [];
  try {
    let width = 0;
    let height = 0;
    const level0: RowFile[] = [];
    for (const [i, layer] of layers.entries()) {
      const meta = await sharp(layer.path, { limitInputPixels: false }).metadata();
      if (i === 0) {
        width = meta.width ?? 0;
        height = meta.height ?? 0;
      } else if (meta.width !== width || meta.height !== height) {
        throw new TesseraConfigError('invalid-layers', `${layer.path} is not ${width}x${height}`);
      }
      // libvips writes its native .v format streaming (a sequential read never holds the whole
      // image; sharp's raw buffer/stream output would): a 64-byte header, then rgba8 rows.
      const raw = join(work, `layer${i}-mip0.v`);
      await sharp(layer.path, { limitInputPixels: false, sequentialRead: true }).ensureAlpha().toFile(raw);
      checkVipsHeader(raw, width, height);
      level0.push(new RowFile(raw, width, height, 0, VIPS_HEADER_BYTES));
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
    const ordered = new OrderedTileWriter(writer, pool.size * TILES_IN_FLIGHT_PER_WORKER);
    const layerOptions = header.layers.map((_, i) => tileEncoderOptions(header, i, options));
    let current = level0.map(
      (f) => new RowFile(f.path, f.storedWidth, f.storedHeight, widthPages * payload, VIPS_HEADER_BYTES),
    );
    for (const f of level0) f.close();
    open.push(...current);
    let done = 0;
    for (let mip = 0; mip < header.mipCount; mip++) {
      const levelWidth = layout.pagesWide[mip] * payload;
      const levelHeight = layout.pagesHigh[mip] * payload;
      const last = mip === header.mipCount - 1;
      const nextWidth = last ? 0 : layout.pagesWide[mip + 1] * payload;
      const nextHeight = last ? 0 : layout.pagesHigh[mip + 1] * payload;
      const nextPaths = layers.map((_, i) => join(work, `layer${i}-mip${mip + 1}.raw`));
      const nextFds = last ? [] : nextPaths.map((p) => openSync(p, 'w'));
      let nextRow = 0;
      const band: MipImage = {
        data: new Uint8Array(tileSize * levelWidth * 4),
        width: levelWidth,
        height: tileSize,
      };
      const bands = layers.map(() => new Uint8Array(tileSize * levelWidth * 4));
      const scratch = new Uint8Array(tileSize * tileSize * 4);
      for (let py = 0; py < layout.pagesHigh[mip]; py++) {
        for (const [i, file] of current.entries()) {
          for (let j = 0; j < tileSize; j++)
            file.readRow(py * payload - border + j, bands[i], j * levelWidth * 4);
        }
        // A shard still reads and averages every band (the next mip needs them), encoding only its rows.
        for (let x = 0; writer.hasRow(mip, py) && x < layout.pagesWide[mip]; x++) {
          const payloads = layers.map((_, i) => {
            band.data = bands[i];
            // The band's row 0 is level row py*payload - border, so page row py is band page row 0.
            extractTileFromBand(band, x, tileSize, border, scratch);
            return pool.encode(header.layers[i].encoding, scratch.slice(), tileSize, layerOptions[i]);
          });
          await ordered.add(mip, x, py, payloads);
        }
        if (writer.hasRow(mip, py)) {
          done += layout.pagesWide[mip];
          options.onProgress?.(done, total);
        }
        if (last) continue;
        // This band's payload rows are final: average them into the next level's rows.
        const factorY = levelHeight / nextHeight;
        for (const [i, layer] of layers.entries()) {
          const rows: MipImage = {
            data: bands[i].subarray(border * levelWidth * 4, (border + payload) * levelWidth * 4),
            width: levelWidth,
            height: payload,
          };
          const next = downsample(rows, nextWidth, payload / factorY, layer.colorSpace === 'srgb');
          writeSync(nextFds[i], next.data, 0, next.data.length, nextRow * nextWidth * 4);
        }
        nextRow += payload / factorY;
      }
      for (const f of current) f.close();
      open.length = 0;
      if (last) break;
      for (const fd of nextFds) closeSync(fd);
      current = nextPaths.map((p) => new RowFile(p, nextWidth, nextHeight, nextWidth));
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
