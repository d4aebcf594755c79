/**
 * Bakes archives: from images held in memory (every mip built by linear-light box filtering,
 * borders cut from the same level) or from the procedural world (tile by tile, so memory stays
 * bounded whatever the size). Tiles are written coarsest mip first, row by row, so the output is
 * deterministic and a row of tiles is contiguous (one coalesced request).
 */

import { TesseraConfigError } from '../../core/errors';
import type { ArchiveHeader, ArchiveLayer, ArchiveLayerUsage } from '../archive/archive-format';
import { checkShardSpec, type ShardSpec, shardPageCount } from '../archive/archive-shard';
import { type ArchiveSink, ArchiveWriter } from '../archive/archive-writer';
import { isUastcEncoding, type PayloadEncodingName } from '../io/payload-encoding';
import { ProceduralWorld } from '../procedural/procedural-world';
import { downsampleRows, extractTile, type MipImage, padToSize } from './mip-chain';
import { OrderedTileWriter } from './ordered-tile-writer';
import {
  checkWorkerCount,
  TILES_IN_FLIGHT_PER_WORKER,
  type TileEncodePool,
  withEncodePool,
} from './tile-encode-pool';
import type { TileEncoderOptions } from './tile-encoder';
import { checkUastcOptions } from './uastc-encoder';
import { checkZstdLevel } from './zstd-compressor';

/** Options shared by both bakers. */
export interface BakeOptions {
  /** Tile side including border, texels (a multiple of 4 for UASTC). Default 128. */
  tileSize?: number;
  /** Border on each side, texels (a multiple of 4 for UASTC). Default 4. */
  border?: number;
  /** Payload encoding of every layer. Default 'png'. */
  encoding?: PayloadEncodingName;
  /** Lossy quality 1..100 (JPEG, WebP). Default 90. */
  quality?: number;
  /** UASTC: Basis rate-distortion lambda, 0 (off, default)..10; pays off with `uastc-zstd`. */
  rdoLambda?: number;
  /** UASTC: Basis effort 0..4. Default 1. */
  uastcEffort?: number;
  /** `uastc-zstd`: Zstandard level 1..22. Default 9. */
  zstdLevel?: number;
  /**
   * Worker processes encoding tiles, 1..64; the archive's bytes do not depend on it. Default: the
   * available cores. Ignored when {@link encodePool} is given.
   */
  workers?: number;
  /** A pool to encode on (kept open: the caller closes it), e.g. shared by several bakes. */
  encodePool?: TileEncodePool;
  /**
   * Bake only this shard (its page rows at every mip) into a shard file (`archive-shard.ts`);
   * `mergeShards` joins the `count` shard files into the archive a direct bake writes.
   */
  shard?: ShardSpec;
  /** Called after each row of tiles with tiles done and the total (of the shard, if any). */
  onProgress?: (done: number, total: number) => void;
}

/** One input layer for {@link bakeImages}. */
export interface BakeLayer {
  name: string;
  colorSpace: 'srgb' | 'linear';
  /** What the texels mean; recorded (archive version 2) and used by the UASTC encodings. Default 'color'. */
  usage?: ArchiveLayerUsage;
  /** Mip-0 texels; must be the same size for every layer. */
  image: MipImage;
}

/**
 * The archive layers of a bake, after checking the options of its encoding. A layer's usage is
 * recorded only with a UASTC encoding, where it steers the encoder and the pool; the rgba8
 * encodings stay archive version 1, byte for byte what older bakers wrote. A UASTC normal map is
 * stored with x in red (and green, blue) and y in alpha, Basis's own normal-map layout: its
 * transcoder reads red and alpha into BC5 and EAC RG11 directly.
 */
export function bakeLayers(
  layers: readonly { name: string; colorSpace: 'srgb' | 'linear'; usage?: ArchiveLayerUsage }[],
  tileSize: number,
  border: number,
  options: BakeOptions,
): ArchiveLayer[] {
  const encoding = options.encoding ?? 'png';
  const uastc = isUastcEncoding(encoding);
  if (uastc) {
    checkUastcOptions(tileSize, border, { rdoLambda: options.rdoLambda, effort: options.uastcEffort });
  }
  if (encoding === 'uastc-zstd') checkZstdLevel(options.zstdLevel ?? 9);
  if (options.workers !== undefined) checkWorkerCount(options.workers);
  if (options.shard !== undefined) checkShardSpec(options.shard);
  return layers.map((l) => ({
    name: l.name,
    colorSpace: l.colorSpace,
    encoding,
    ...(uastc ? { usage: l.usage ?? 'color' } : {}),
    ...(uastc && l.usage === 'normal' ? { normalChannels: 'red-alpha' as const } : {}),
  }));
}

/** The encoder options of layer `layer` of `header`. */
export function tileEncoderOptions(
  header: ArchiveHeader,
  layer: number,
  options: BakeOptions,
): TileEncoderOptions {
  return {
    quality: options.quality,
    colorSpace: header.layers[layer].colorSpace,
    usage: header.layers[layer].usage,
    normalChannels: header.layers[layer].normalChannels,
    rdoLambda: options.rdoLambda,
    uastcEffort: options.uastcEffort,
    zstdLevel: options.zstdLevel,
  };
}

/** Smallest power of two >= n. */
export function nextPowerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}

/**
 * Bakes `layers` (same size) into `sink`; the image is padded by edge repetition to whole
 * power-of-two pages. Returns the archive header and its length in bytes.
 */
export async function bakeImages(layers: BakeLayer[], options: BakeOptions, sink: ArchiveSink) {
  const tileSize = options.tileSize ?? 128;
  const border = options.border ?? 4;
  const payload = tileSize - 2 * border;
  const { width, height } = layers[0].image;
  if (layers.some((l) => l.image.width !== width || l.image.height !== height)) {
    throw new TesseraConfigError('invalid-layers', 'every layer must have the size of the first');
  }
  const widthPages = nextPowerOfTwo(Math.ceil(width / payload));
  const heightPages = nextPowerOfTwo(Math.ceil(height / payload));
  const header = makeHeader(layers, widthPages, heightPages, width, height, tileSize, border, options);
  const pyramids = layers.map((layer) => [
    padToSize(layer.image, widthPages * payload, heightPages * payload),
  ]);
  const scratch = new Uint8Array(tileSize * tileSize * 4);
  const texels = (mip: number, x: number, y: number, layer: number) => {
    extractTile(pyramids[layer][mip], x, y, tileSize, border, scratch);
    return scratch;
  };
  // The coarser levels are built while the workers already encode mip 0's first tiles.
  const coarser = async () => {
    for (const [l, layer] of layers.entries()) {
      for (let m = 1; m < header.mipCount; m++) {
        const w = Math.max(1, widthPages >> m) * payload;
        const h = Math.max(1, heightPages >> m) * payload;
        pyramids[l].push(await downsampleYielding(pyramids[l][m - 1], w, h, layer.colorSpace === 'srgb'));
      }
    }
  };
  const length = await writeTiles(header, options, sink, texels, coarser);
  return { header, length };
}

/**
 * Mip 0 tiles per worker encoded while the coarser levels are built (each holds its texels until
 * sent, 64 KiB a layer at 128², and then its payload until written): at ~5 ms a WebP tile, 32
 * cover the ~130 ms a 1920² image's levels take, and memory stays bounded whatever the size.
 */
const EARLY_TILES_PER_WORKER = 32;
/** Most mip 0 tiles encoded early, whatever the worker count (16 MiB of texels a layer at 128²). */
const MAX_EARLY_TILES = 256;

/** Output texels {@link downsampleYielding} computes between two turns of the event loop (~3 ms). */
const DOWNSAMPLE_TEXELS_PER_TURN = 32768;

/**
 * {@link downsample} a band of rows at a time, letting the event loop run between bands so the
 * encode pool's replies are taken and its workers fed meanwhile. Same bytes.
 */
async function downsampleYielding(src: MipImage, width: number, height: number, srgb: boolean) {
  const out: MipImage = { data: new Uint8Array(width * height * 4), width, height };
  const rows = Math.max(1, Math.floor(DOWNSAMPLE_TEXELS_PER_TURN / width));
  for (let y = 0; y < height; y += rows) {
    downsampleRows(src, out, y, Math.min(height, y + rows), srgb);
    await new Promise(setImmediate);
  }
  return out;
}

/** Bakes the procedural world of `seed`, `widthPages` pages square, into `sink` (albedo + normal). */
export async function bakeProcedural(
  seed: number,
  widthPages: number,
  options: BakeOptions,
  sink: ArchiveSink,
) {
  const tileSize = options.tileSize ?? 128;
  const border = options.border ?? 4;
  const world = new ProceduralWorld({ seed, widthPages, tileSize, border });
  const layers = [
    { name: 'albedo', colorSpace: 'srgb' as const },
    { name: 'normal', colorSpace: 'linear' as const, usage: 'normal' as const },
  ];
  const header = makeHeader(
    layers,
    widthPages,
    widthPages,
    world.widthTexels,
    world.heightTexels,
    tileSize,
    border,
    options,
  );
  const albedo = new Uint8Array(tileSize * tileSize * 4);
  const normal = new Uint8Array(tileSize * tileSize * 4);
  const length = await writeTiles(header, options, sink, (mip, x, y, layer) => {
    if (layer === 0) world.generateTile(mip, x, y, albedo, normal);
    return layer === 0 ? albedo : normal;
  });
  return { header, length };
}

function makeHeader(
  layers: { name: string; colorSpace: 'srgb' | 'linear'; usage?: ArchiveLayerUsage }[],
  widthPages: number,
  heightPages: number,
  contentWidth: number,
  contentHeight: number,
  tileSize: number,
  border: number,
  options: BakeOptions,
): ArchiveHeader {
  return {
    widthPages,
    heightPages,
    tileSize,
    border,
    mipCount: Math.log2(Math.max(widthPages, heightPages)) + 1,
    contentWidth,
    contentHeight,
    layers: bakeLayers(layers, tileSize, border, options),
  };
}

/**
 * Writes every tile, coarsest mip first, row-major. `texels(mip, x, y, layer)` returns the tile's
 * rgba8 (layers asked in order; the array may be reused after encoding starts). `prepare`, when
 * given, makes every mip but 0 available to `texels`: meanwhile mip 0's first tiles (a bounded
 * number, {@link EARLY_TILES_PER_WORKER} per worker) are already encoding, and their payloads wait
 * for their turn, so no core idles while the coarser levels are built and the bytes do not change.
 */
async function writeTiles(
  header: ArchiveHeader,
  options: BakeOptions,
  sink: ArchiveSink,
  texels: (mip: number, x: number, y: number, layer: number) => Uint8Array,
  prepare?: () => Promise<void>,
): Promise<number> {
  const target = options.shard && { shard: options.shard, mipOrder: 'coarsest-first' as const };
  const writer = new ArchiveWriter(header, sink, target);
  const { layout } = writer;
  const total = writer.rows === null ? layout.pageCount : shardPageCount(layout, writer.rows);
  const encoding = options.encoding ?? 'png';
  const layerOptions = header.layers.map((_, layer) => tileEncoderOptions(header, layer, options));
  await withEncodePool(options.encodePool, options.workers, async (pool) => {
    const encode = (mip: number, x: number, y: number) =>
      layerOptions.map((layerOption, layer) =>
        pool.encode(encoding, texels(mip, x, y, layer).slice(), header.tileSize, layerOption),
      );
    // Mip 0 tiles started early, by index y * pagesWide + x.
    const early = new Map<number, Promise<Uint8Array>[]>();
    if (prepare) {
      const count = Math.min(pool.size * EARLY_TILES_PER_WORKER, MAX_EARLY_TILES);
      for (let y = 0; y < layout.pagesHigh[0] && early.size < count; y++) {
        if (!writer.hasRow(0, y)) continue;
        for (let x = 0; x < layout.pagesWide[0] && early.size < count; x++) {
          const payloads = encode(0, x, y);
          // A failure is reported at its tile's turn; until then it must not count as unhandled.
          for (const p of payloads) p.catch(() => {});
          early.set(y * layout.pagesWide[0] + x, payloads);
        }
      }
      await prepare();
    }
    const ordered = new OrderedTileWriter(writer, pool.size * TILES_IN_FLIGHT_PER_WORKER);
    let done = 0;
    for (let mip = header.mipCount - 1; mip >= 0; mip--) {
      for (let y = 0; y < layout.pagesHigh[mip]; y++) {
        if (!writer.hasRow(mip, y)) continue;
        for (let x = 0; x < layout.pagesWide[mip]; x++) {
          const key = y * layout.pagesWide[0] + x;
          const started = mip === 0 ? early.get(key) : undefined;
          if (started) early.delete(key);
          await ordered.add(mip, x, y, started ?? encode(mip, x, y));
        }
        done += layout.pagesWide[mip];
        options.onProgress?.(done, total);
      }
    }
    await ordered.flush();
  });
  return writer.finish();
}
