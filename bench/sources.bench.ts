/**
 * Tile-source benchmarks: procedural generation rate, archive fetch + decode rate per encoding
 * from a local HTTP server (Node), bake throughput, and bake peak RSS for two sizes (measured in
 * child processes so each figure is its own).
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ArchiveTileSource } from '../src/sources/archive/archive-tile-source';
import { MemoryArchiveSink } from '../src/sources/archive/archive-writer';
import { bakeImages, bakeProcedural } from '../src/sources/bake/bake-archive';
import { HttpRangeReader } from '../src/sources/io/http-range-reader';
import { createNodeImageCodecs } from '../src/sources/io/node-image-codecs';
import type { PayloadEncodingName } from '../src/sources/io/payload-encoding';
import { InlineTileDecoder } from '../src/sources/io/tile-decoder';
import { ProceduralWorld } from '../src/sources/procedural/procedural-world';
import { runChildModule, srcModule, withNoisyPng } from './bake-child';
import { median } from './median';

/** Procedural tiles (both layers, 128²) per wall-clock second and per CPU second (robust to a shared machine). */
function proceduralTilesPerSecond(): { wall: number; cpu: number } {
  const world = new ProceduralWorld({ seed: 1, widthPages: 1024 });
  const a = new Uint8Array(128 * 128 * 4);
  const n = new Uint8Array(128 * 128 * 4);
  const rates: number[] = [];
  const cpuRates: number[] = [];
  // Rep 0 warms the JIT and is not counted; the median of the next 15 is reported.
  for (let rep = 0; rep < 16; rep++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    // A mix of fine and coarse mips, as a streaming session requests them.
    for (let k = 0; k < 12; k++) {
      const mip = [0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 8, 10][k];
      const pages = 1024 >> mip;
      world.generateTile(mip, (k * 37 + rep) % pages, (k * 11 + rep) % pages, a, n);
    }
    const used = process.cpuUsage(cpu);
    if (rep === 0) continue;
    rates.push(12 / ((performance.now() - started) / 1000));
    cpuRates.push(12 / ((used.user + used.system) / 1e6));
  }
  return { wall: median(rates), cpu: median(cpuRates) };
}

async function archiveTilesPerSecond(encoding: PayloadEncodingName): Promise<number> {
  const sink = new MemoryArchiveSink();
  await bakeProcedural(3, 8, { encoding, quality: 85 }, sink);
  const bytes = sink.toBytes();
  const server = createServer((req, res) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')!;
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]), bytes.length - 1);
    res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}` });
    res.end(bytes.subarray(start, end + 1));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a`;
  const decoder = new InlineTileDecoder(createNodeImageCodecs());
  const rates: number[] = [];
  try {
    for (let rep = 0; rep < 5; rep++) {
      const source = await ArchiveTileSource.open(new HttpRangeReader(url), { decoder });
      const started = performance.now();
      // Rounds of 8 tiles (one row of mip 0): one coalesced request each, both layers decoded.
      for (let y = 0; y < 8; y++) {
        await Promise.all(
          [0, 1, 2, 3, 4, 5, 6, 7].map((x) => source.load(0, x, y, new AbortController().signal)),
        );
      }
      rates.push(64 / ((performance.now() - started) / 1000));
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
  return median(rates);
}

/** Bakes a 1920² image (exactly 16x16 pages of 120² payload) with DEFLATE; input megapixels per second. */
async function bakeMegapixelsPerSecond(): Promise<number> {
  const size = 1920;
  const data = new Uint8Array(size * size * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
  const started = performance.now();
  await bakeImages(
    [{ name: 'albedo', colorSpace: 'srgb', image: { data, width: size, height: size } }],
    { encoding: 'deflate' },
    new MemoryArchiveSink(),
  );
  return (size * size) / 1e6 / ((performance.now() - started) / 1000);
}

/** Peak RSS of a child process baking the procedural world of `pages` pages square to /dev/null-like memory, MiB. */
function bakePeakRssMb(pages: number): number {
  const code = `
    const { bakeProcedural } = await import(${JSON.stringify(srcModule('sources/bake/bake-archive.ts'))});
    const sink = { write() {} };
    await bakeProcedural(5, ${pages}, { encoding: 'deflate' }, sink);
    console.log(process.resourceUsage().maxRSS);`;
  return runChildModule(code)[0] / 1024;
}

/** Peak RSS (MiB) and input megapixels per second of a child process baking a `size`² PNG out of core. */
async function imageBakeChild(size: number): Promise<{ rssMb: number; mps: number }> {
  return withNoisyPng(size, (path) => {
    const code = `
      const { bakeImageFiles } = await import(${JSON.stringify(srcModule('sources/bake/bake-out-of-core.ts'))});
      const started = performance.now();
      await bakeImageFiles([{ name: 'albedo', colorSpace: 'srgb', path: ${JSON.stringify(path)} }], { encoding: 'deflate' }, { write() {} });
      console.log(process.resourceUsage().maxRSS, performance.now() - started);`;
    const [rssKb, ms] = runChildModule(code);
    return { rssMb: rssKb / 1024, mps: (size * size) / 1e6 / (ms / 1000) };
  });
}

export default {
  name: 'sources',
  async run(): Promise<Record<string, number>> {
    const results: Record<string, number> = {};
    const procedural = proceduralTilesPerSecond();
    results['sources.procedural.tiles_per_s'] = procedural.wall;
    results['sources.procedural.tiles_per_cpu_s'] = procedural.cpu;
    for (const encoding of ['raw', 'deflate', 'png', 'jpeg', 'webp', 'uastc-zstd'] as const) {
      results[`sources.archive.${encoding.replace('-', '_')}.tiles_per_s`] =
        await archiveTilesPerSecond(encoding);
    }
    results['bake.megapixels_per_s'] = await bakeMegapixelsPerSecond();
    results['bake.procedural_8p.peak_rss_mb'] = bakePeakRssMb(8);
    results['bake.procedural_32p.peak_rss_mb'] = bakePeakRssMb(32);
    for (const size of [2048, 8192]) {
      const { rssMb, mps } = await imageBakeChild(size);
      results[`bake.image_${size}.peak_rss_mb`] = rssMb;
      results[`bake.image_${size}.megapixels_per_s`] = mps;
    }
    return results;
  },
};
