/**
 * Archive fetch + decode rate in headless Chromium: the browser half of
 * `sources.archive.<encoding>.tiles_per_s` (bench/sources.bench.ts has the Node half). Archives of
 * the procedural world are baked here in Node into a temporary folder under the repository's
 * `.tmp/`, which the benchmark's own Vite server serves (with Range support) to
 * bench/sources-browser/archive-rate.html; the page opens each with `ArchiveTileSource.open(url)`
 * and a `WorkerDecoderPool` and reports tiles (both layers decoded) per second. Then
 * bench/sources-browser/pool-rate.html takes the WebP and UASTC + zstd archives of the same content
 * all the way into pool textures, on each backend (see {@link poolRates}).
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { MemoryArchiveSink } from '../src/sources/archive/archive-writer';
import { bakeProcedural } from '../src/sources/bake/bake-archive';
import type { PayloadEncodingName } from '../src/sources/io/payload-encoding';
import { CHROMIUM_ARGS, chromiumPath, hasChromium } from '../test/browser/chromium';
import type { ArchiveRateResult } from './sources-browser/archive-rate';
import type { PoolRateResult } from './sources-browser/pool-rate';

/**
 * Encodings measured, in the order the page runs them. For `uastc-zstd` the rate is fetch +
 * inflate to UASTC blocks only (`..browser_fetch_inflate_tiles_per_s`): the issue's
 * `sources.archive.uastc.browser_tiles_per_s` adds the transcode and upload of the compressed pool.
 */
const ENCODINGS: readonly PayloadEncodingName[] = ['raw', 'deflate', 'png', 'jpeg', 'webp', 'uastc-zstd'];
/** Pages on a side of the baked world: 16² + 8² + 4² + 2² + 1 = 341 pages over 5 mips. */
const WORLD_PAGES = 16;
/** Lossy quality of the JPEG and WebP bakes (1..100), as in bench/sources.bench.ts. */
const LOSSY_QUALITY = 85;

/** A TCP port free right now on localhost (the Vite server then claims it with strictPort). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Encodings of the pool-rate page: the same content as WebP and as UASTC + zstd. */
const POOL_ENCODINGS = ['webp', 'uastc-zstd'] as const;

/**
 * Fetch to pool texture (bench/sources-browser/pool-rate.ts) on each backend, in the same run:
 * `sources.archive.uastc.browser_tiles_per_s` (fetch + inflate + transcode + upload of blocks),
 * `sources.archive.webp.browser_pool_tiles_per_s` (fetch + decode + upload of rgba8), and their
 * ratio (issue #13: above 1). Keys of the WebGL2 backend end in `_webgl`.
 */
async function poolRates(
  page: import('playwright-core').Page,
  port: number,
  dir: string,
  errors: string[],
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const backend of ['webgpu', 'webgl'] as const) {
    const query = new URLSearchParams({ dir, encodings: POOL_ENCODINGS.join(','), backend });
    await page.goto(`http://localhost:${port}/bench/sources-browser/pool-rate.html?${query}`);
    await page.waitForFunction(() => document.title === 'done' || document.title === 'error', null, {
      timeout: 600_000,
    });
    const { result, error } = (await page.evaluate(() => ({
      result: (globalThis as { benchResult?: unknown }).benchResult,
      error: (globalThis as { benchError?: unknown }).benchError,
    }))) as { result?: PoolRateResult; error?: string };
    if (error !== undefined || errors.length > 0 || result === undefined) {
      throw new Error(`pool-rate page (${backend}) failed: ${[error, ...errors].filter(Boolean).join('; ')}`);
    }
    const suffix = backend === 'webgl' ? '_webgl' : '';
    const uastc = result.tilesPerSecond['uastc-zstd'];
    const webp = result.tilesPerSecond.webp;
    out[`sources.archive.uastc.browser_tiles_per_s${suffix}`] = uastc;
    out[`sources.archive.webp.browser_pool_tiles_per_s${suffix}`] = webp;
    out[`sources.archive.uastc.vs_webp_pool_ratio${suffix}`] = uastc / webp;
    console.log(`pool rate (${backend}): ${JSON.stringify(result.poolFormats)}`);
  }
  return out;
}

export default {
  name: 'sources-browser',
  async run(): Promise<Record<string, number>> {
    if (!hasChromium()) throw new Error(`no Chromium at ${chromiumPath()} (set CHROMIUM_PATH)`);
    const root = fileURLToPath(new URL('..', import.meta.url));
    const dir = fileURLToPath(new URL(`../.tmp/sources-browser-${process.pid}/`, import.meta.url));
    mkdirSync(dir, { recursive: true });
    const port = await freePort();
    let server: Awaited<ReturnType<typeof createServer>> | undefined;
    let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
    try {
      for (const encoding of ENCODINGS) {
        const sink = new MemoryArchiveSink();
        await bakeProcedural(3, WORLD_PAGES, { encoding, quality: LOSSY_QUALITY }, sink);
        writeFileSync(`${dir}${encoding}.tsra`, sink.toBytes());
      }
      server = await createServer({
        configFile: fileURLToPath(new URL('../test/browser/vite.config.ts', import.meta.url)),
        server: { port, strictPort: true },
        logLevel: 'error',
      });
      await server.listen();
      browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const query = new URLSearchParams({
        dir: `/${relative(root, dir).split('\\').join('/')}/`,
        encodings: ENCODINGS.join(','),
      });
      await page.goto(`http://localhost:${port}/bench/sources-browser/archive-rate.html?${query}`);
      await page.waitForFunction(() => document.title === 'done' || document.title === 'error', null, {
        timeout: 600_000,
      });
      const { result, error } = (await page.evaluate(() => ({
        result: (globalThis as { benchResult?: unknown }).benchResult,
        error: (globalThis as { benchError?: unknown }).benchError,
      }))) as { result?: ArchiveRateResult; error?: string };
      if (error !== undefined || errors.length > 0 || result === undefined) {
        throw new Error(`benchmark page failed: ${[error, ...errors].filter(Boolean).join('; ')}`);
      }
      const out: Record<string, number> = {};
      const keyOf = (encoding: string, rate: string) =>
        encoding === 'uastc-zstd'
          ? `sources.archive.uastc_zstd.browser_${rate === 'tiles' ? '' : 'inline_'}fetch_inflate_tiles_per_s`
          : `sources.archive.${encoding}.browser_${rate === 'tiles' ? '' : 'inline_'}tiles_per_s`;
      for (const [encoding, rate] of Object.entries(result.workerTilesPerSecond)) {
        out[keyOf(encoding, 'tiles')] = rate;
      }
      for (const [encoding, rate] of Object.entries(result.inlineTilesPerSecond)) {
        out[keyOf(encoding, 'inline')] = rate;
      }
      out['sources.archive.browser_decode_workers'] = result.decodeWorkers;
      out['sources.archive.browser_tiles_per_rep'] = result.tilesPerRep;
      Object.assign(out, await poolRates(page, port, query.get('dir') as string, errors));
      return out;
    } finally {
      await browser?.close();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
