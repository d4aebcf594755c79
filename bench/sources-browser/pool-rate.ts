/**
 * Benchmark page for bench/sources-browser.bench.ts: archive tiles all the way into a pool texture
 * in Chromium, the path a streaming session runs per tile. Two archives of the same content (the
 * driver's procedural world, albedo + normal layers): WebP (fetch, decode in the default
 * decoder's workers, upload 2 x 64 KiB of rgba8 into an rgba8 pool) and UASTC + zstd (fetch,
 * inflate in the decode workers, transcode in Tessera's transcode workers to the device's best
 * block formats, BC7 + BC5 here, upload 2 x 16 KiB of blocks into that pool). Both use the
 * library's own stages: `ArchiveTileSource.open(url)`, the transcoding stage `add()` puts in front of
 * a UASTC source, `PoolTextures.writeTiles` (queue.writeTexture / compressedTexSubImage2D). A rep
 * loads every page of every mip, shuffled, with 16 loads in flight, writes each tile into a slot
 * as it arrives, and ends when the GPU queue has done the writes; one warm-up rep is dropped, the
 * median of the timed reps is reported in tiles (all layers) per second. Results land in
 * `globalThis.benchResult` and the title becomes 'done' (or 'error', with `globalThis.benchError`).
 */

import type { WebGPURenderer } from 'three/webgpu';
import type { TileEncoding, TileLayerUsage } from '../../src/core/vt/tile-source';
import { ArchiveTileSource } from '../../src/sources/archive/archive-tile-source';
import { HttpClient } from '../../src/sources/io/http/http-client';
import { BackendBridge } from '../../src/three/backend-bridge';
import { choosePoolFormats } from '../../src/three/residency/pool-format-choice';
import { PoolTextures } from '../../src/three/residency/pool-textures';
import { BasisTranscoderPool } from '../../src/three/transcode/basis-transcoder-pool';
import { TranscodingStages } from '../../src/three/transcode/transcoding-stages';
import { createTestRenderer } from '../../test/browser/support/renderer';
import { allPages, benchParams, inFlightLanes, median, runBenchPage, uncachedFetch } from './bench-page';

/** What the page leaves in `globalThis.benchResult`. */
export interface PoolRateResult {
  /** Median tiles per second, fetch to pool texture, by archive encoding. */
  tilesPerSecond: Record<string, number>;
  /** Pool texel format of each layer, by archive encoding. */
  poolFormats: Record<string, string[]>;
  /** Tiles per rep (every page of every mip), pages. */
  tilesPerRep: number;
}

const { params, dir, reps, inFlight } = benchParams;
const encodings = (params.get('encodings') ?? 'webp,uastc-zstd').split(',');
/** Pool slots: fewer than a rep's tiles, so slots are rewritten as in a streaming session. */
const SLOTS_PER_ROW = 8;
const SLOT_ROWS = 8;
/** Waits until the GPU has done every write submitted so far. */
async function gpuDone(bridge: BackendBridge): Promise<void> {
  if (bridge.device !== null) await bridge.device.queue.onSubmittedWorkDone();
  else bridge.gl?.finish();
}

/** Median tiles per second of `url` into a pool of the archive's layers (see the file's TSDoc). */
async function measure(
  renderer: WebGPURenderer,
  url: string,
): Promise<{ rate: number; formats: string[]; count: number }> {
  const archive = await ArchiveTileSource.open(url, { http: new HttpClient({ fetch: uncachedFetch }) });
  const bridge = new BackendBridge(renderer);
  // The pool layers the README gives such an archive: its own encodings, opaque colour.
  const layers = archive.info.layers.map((layer) => ({
    name: layer.name,
    format: layer.format as TileEncoding,
    usage: layer.usage as TileLayerUsage,
    alpha: false,
  }));
  const choices = choosePoolFormats(bridge, layers, undefined);
  const { tileSize } = archive.info;
  const pool = new PoolTextures(
    bridge,
    { slotsPerRow: SLOTS_PER_ROW, slotRows: SLOT_ROWS, arrayLayers: 1, tileSize },
    choices,
  );
  const transcoder = new BasisTranscoderPool();
  const stages = new TranscodingStages(choices, () => transcoder);
  const poolLayerSource = Int8Array.from(layers, (_, i) => i);
  const source = stages.wrap(archive, poolLayerSource);
  stages.bind(0, source);
  const pages = allPages(archive);
  const signal = new AbortController().signal;
  const rep = async () => {
    await inFlightLanes(pages, inFlight, async (k) => {
      const [mip, x, y] = pages[k];
      const tile = await source.load(mip, x, y, signal);
      pool.writeTiles(poolLayerSource, k % pool.slotCount, tile.layers);
      stages.recycle(0, tile);
    });
    await gpuDone(bridge);
  };
  try {
    await rep();
    const rates: number[] = [];
    for (let r = 0; r < reps; r++) {
      const started = performance.now();
      await rep();
      rates.push(pages.length / ((performance.now() - started) / 1000));
    }
    return { rate: median(rates), formats: [...pool.formats], count: pages.length };
  } finally {
    stages.dispose();
    transcoder.dispose();
    pool.dispose();
    archive.dispose();
  }
}

await runBenchPage(async () => {
  const renderer = await createTestRenderer(64, 64);
  const result: PoolRateResult = { tilesPerSecond: {}, poolFormats: {}, tilesPerRep: 0 };
  for (const encoding of encodings) {
    const measured = await measure(renderer, `${dir}${encoding}.tsra`);
    result.tilesPerSecond[encoding] = measured.rate;
    result.poolFormats[encoding] = measured.formats;
    result.tilesPerRep = measured.count;
  }
  return result;
});
