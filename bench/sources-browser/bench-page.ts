/**
 * What the archive benchmark pages (archive-rate.ts, pool-rate.ts) share: their URL parameters,
 * the uncached fetch, the shuffled page order, loads with a window in flight, the median, and the
 * page protocol (`globalThis.benchResult`, title 'done'; or `globalThis.benchError`, title 'error').
 */

import type { ArchiveTileSource } from '../../src/sources/archive/archive-tile-source';

/** A page of the archive as [mip, x, y]. */
export type PageAddress = [number, number, number];

const params = new URLSearchParams(location.search);

/** The page's URL parameters common to both benchmarks. */
export const benchParams = {
  params,
  /** Folder of the baked archives (`<dir><encoding>.tsra`). */
  dir: params.get('dir') ?? '/.tmp/',
  /** Timed reps after the warm-up rep. */
  reps: Number(params.get('reps') ?? 5),
  /** Tile loads kept in flight at once, pages. */
  inFlight: Number(params.get('inflight') ?? 16),
};

/** Every rep must reach the server: the HTTP cache would otherwise answer later reps' ranges. */
export const uncachedFetch: typeof fetch = (input, init) => fetch(input, { ...init, cache: 'no-store' });

/** Median (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Every page of every mip, shuffled by a fixed LCG so mips and rows interleave. */
export function allPages(source: ArchiveTileSource): PageAddress[] {
  const pages: PageAddress[] = [];
  for (let mip = 0; mip < source.mipCount; mip++) {
    const wide = Math.max(1, source.info.widthPages >> mip);
    const high = Math.max(1, source.info.heightPages >> mip);
    for (let y = 0; y < high; y++) for (let x = 0; x < wide; x++) pages.push([mip, x, y]);
  }
  let state = 12345;
  for (let i = pages.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [pages[i], pages[j]] = [pages[j], pages[i]];
  }
  return pages;
}

/** Calls `visit(k)` for every index of `pages` with at most `inFlight` calls open, in order of start. */
export async function inFlightLanes(
  pages: readonly PageAddress[],
  inFlight: number,
  visit: (k: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < pages.length) await visit(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

/** Runs the benchmark and reports its result (or its error) the way the driver reads it. */
export async function runBenchPage(measure: () => Promise<unknown>): Promise<void> {
  try {
    Object.assign(globalThis, { benchResult: await measure() });
    document.title = 'done';
  } catch (error) {
    Object.assign(globalThis, {
      benchError: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    document.title = 'error';
  }
}
