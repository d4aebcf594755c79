/**
 * UASTC archive benchmarks (Node): archive bytes per tile (one 128² layer of one page) for the same content as UASTC, UASTC +
 * zstd (with and without RDO) and WebP; bake rate per encoding; zstd inflation time per tile in
 * the reader; and the quality the UASTC layers keep, decoded by three's Basis transcoder, against
 * WebP's on the same tiles. Content: the procedural world of seed 3 (the committed asset is seed
 * 7; nothing here was tuned on seed 3), 8 x 8 pages of 128² texels (85 pages over 4 mips).
 */

import { ArchiveTileSource } from '../src/sources/archive/archive-tile-source';
import { MemoryArchiveSink } from '../src/sources/archive/archive-writer';
import { type BakeOptions, bakeProcedural } from '../src/sources/bake/bake-archive';
import { createNodeImageCodecs } from '../src/sources/io/node-image-codecs';
import { MemoryRangeReader } from '../src/sources/io/range-reader';
import { InlineTileDecoder } from '../src/sources/io/tile-decoder';
import { decodeUastcPayload } from '../src/sources/io/uastc-payload';
import { ProceduralWorld } from '../src/sources/procedural/procedural-world';
import { decodeUastcToRgba, normalAngleError, rgbPsnr } from '../test/support/basis-transcoder';
import { runChildModule, srcModule, withNoisyPng } from './bake-child';
import { median } from './median';

const SEED = 3;
const PAGES = 8;
const TILE = 128;

interface Baked {
  bytes: Uint8Array;
  tiles: number;
  tilesPerSecond: number;
}

async function bake(options: BakeOptions): Promise<Baked> {
  const sink = new MemoryArchiveSink();
  const started = performance.now();
  let tiles = 0;
  await bakeProcedural(SEED, PAGES, { ...options, onProgress: (done) => (tiles = done) }, sink);
  const seconds = (performance.now() - started) / 1000;
  return { bytes: sink.toBytes(), tiles, tilesPerSecond: tiles / seconds };
}

/**
 * Payload bytes per tile, a tile being one layer of one 128² page (as "16 KiB per 128² tile" for
 * UASTC), averaged over both layers of every page of every mip.
 */
async function payloadBytesPerTile(baked: Baked): Promise<number> {
  const source = await ArchiveTileSource.open(new MemoryRangeReader(baked.bytes), {
    decoder: new InlineTileDecoder(createNodeImageCodecs()),
  });
  const { header } = source;
  const prefixBytes = 48 + 40 * header.layers.length + 12 * baked.tiles * header.layers.length;
  source.dispose();
  return (baked.bytes.length - prefixBytes) / (baked.tiles * header.layers.length);
}

/** Every layer's mip-0..1 tiles of the archive next to the procedural source tiles, decoded to rgba8. */
async function quality(baked: Baked, uastc: boolean) {
  const source = await ArchiveTileSource.open(new MemoryRangeReader(baked.bytes), {
    decoder: new InlineTileDecoder(createNodeImageCodecs()),
  });
  const world = new ProceduralWorld({ seed: SEED, widthPages: PAGES, tileSize: TILE, border: 4 });
  const albedo = new Uint8Array(TILE * TILE * 4);
  const normal = new Uint8Array(TILE * TILE * 4);
  const psnrs: number[] = [];
  const angles: number[] = [];
  const maxAngles: number[] = [];
  for (let mip = 0; mip < 2; mip++) {
    const n = PAGES >> mip;
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        world.generateTile(mip, x, y, albedo, normal);
        const tile = await source.load(mip, x, y, new AbortController().signal);
        const a = uastc ? await decodeUastcToRgba(tile.layers[0], TILE) : tile.layers[0];
        const nm = uastc ? await decodeUastcToRgba(tile.layers[1], TILE) : tile.layers[1];
        const psnr = rgbPsnr(albedo, a);
        if (Number.isFinite(psnr)) psnrs.push(psnr);
        const angle = normalAngleError(normal, nm, true);
        angles.push(angle.mean);
        maxAngles.push(angle.max);
      }
    }
  }
  source.dispose();
  return {
    psnrMedian: median(psnrs),
    psnrMin: Math.min(...psnrs),
    angleMean: angles.reduce((s, v) => s + v, 0) / angles.length,
    angleMax: Math.max(...maxAngles),
  };
}

/** Microseconds to inflate one tile's zstd frame (one 128² layer) into its 16 KiB of UASTC blocks (the reader's path, zstddec). */
async function inflateMicrosecondsPerTile(baked: Baked): Promise<number> {
  const source = await ArchiveTileSource.open(new MemoryRangeReader(baked.bytes));
  const frames: Uint8Array[] = [];
  const view = new DataView(baked.bytes.buffer, baked.bytes.byteOffset);
  const indexStart = 48 + 40 * source.header.layers.length;
  for (let i = 0; i < baked.tiles * source.header.layers.length; i++) {
    const at = indexStart + 12 * i;
    const offset = view.getUint32(at, true);
    frames.push(baked.bytes.slice(offset, offset + view.getUint32(at + 8, true)));
  }
  source.dispose();
  const perTile: number[] = [];
  for (let rep = 0; rep < 12; rep++) {
    const started = performance.now();
    for (const f of frames) await decodeUastcPayload('uastc-zstd', f, TILE);
    if (rep > 1) perTile.push(((performance.now() - started) * 1000) / frames.length);
  }
  return median(perTile);
}

/**
 * Peak RSS (MiB) of a child process baking a `size`² noisy PNG out of core to UASTC + zstd (effort
 * 0, to keep the run short: the effort changes time, not the memory shape). Bounded memory shows
 * as a peak that does not grow with the image.
 */
async function uastcImageBakePeakRssMb(size: number): Promise<number> {
  return withNoisyPng(size, (path) => {
    const code = `
      const { bakeImageFiles } = await import(${JSON.stringify(srcModule('sources/bake/bake-out-of-core.ts'))});
      await bakeImageFiles([{ name: 'albedo', colorSpace: 'srgb', path: ${JSON.stringify(path)} }],
        { encoding: 'uastc-zstd', uastcEffort: 0, zstdLevel: 9 }, { write() {} });
      console.log(process.resourceUsage().maxRSS);`;
    return runChildModule(code)[0] / 1024;
  });
}

export default {
  name: 'sources-uastc',
  async run(): Promise<Record<string, number>> {
    const results: Record<string, number> = {};
    const bakes: [string, BakeOptions, boolean][] = [
      ['webp', { encoding: 'webp', quality: 80 }, false],
      ['uastc', { encoding: 'uastc' }, true],
      ['uastc_zstd', { encoding: 'uastc-zstd', zstdLevel: 19 }, true],
      ['uastc_zstd_rdo1', { encoding: 'uastc-zstd', zstdLevel: 19, rdoLambda: 1 }, true],
    ];
    for (const [key, options, uastc] of bakes) {
      const baked = await bake(options);
      results[`sources.archive.${key}.bytes_per_tile`] = await payloadBytesPerTile(baked);
      results[`bake.${key}.tiles_per_s`] = baked.tilesPerSecond;
      const q = await quality(baked, uastc);
      results[`bake.${key}.albedo_psnr_median_db`] = q.psnrMedian;
      results[`bake.${key}.albedo_psnr_min_db`] = q.psnrMin;
      results[`bake.${key}.normal_mean_angle_deg`] = q.angleMean;
      results[`bake.${key}.normal_max_angle_deg`] = q.angleMax;
      if (key.startsWith('uastc_zstd'))
        results[`sources.archive.${key}.inflate_us_per_tile`] = await inflateMicrosecondsPerTile(baked);
    }
    for (const size of [1024, 2048]) {
      results[`bake.uastc_zstd.image_${size}.peak_rss_mb`] = await uastcImageBakePeakRssMb(size);
    }
    return results;
  },
};
