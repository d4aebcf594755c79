/**
 * Page for archive-default-decoder.spec.ts: opens archives with `ArchiveTileSource.open(url)`
 * and no options, as a new user would, and reports the tiles and the workers the default decoder
 * started. Exposes `globalThis.archiveDefaultDecoder` and sets the title to 'ready'.
 */

import { TileSourceError } from '../../../../src/core/errors';
import { ArchiveTileSource } from '../../../../src/sources/archive/archive-tile-source';

/** Every Worker the page creates, and how many were terminated. */
const workers = { created: [] as string[], terminated: 0 };
const NativeWorker = globalThis.Worker;
globalThis.Worker = class CountedWorker extends NativeWorker {
  constructor(url: string | URL, options?: WorkerOptions) {
    super(url, options);
    workers.created.push(String(url));
  }
  override terminate(): void {
    workers.terminated++;
    super.terminate();
  }
};

type Page = [mip: number, x: number, y: number];

const api = {
  /** Loads `pages` (layer 0) through a default-decoder source; returns texels and the workers seen. */
  async loadTiles(url: string, pages: Page[]) {
    workers.created = [];
    workers.terminated = 0;
    const source = await ArchiveTileSource.open(url);
    try {
      const signal = new AbortController().signal;
      const tiles = await Promise.all(pages.map(([m, x, y]) => source.load(m, x, y, signal)));
      return {
        texels: tiles.map((t) => Array.from(t.layers[0] as Uint8Array)),
        workersCreated: [...workers.created],
        hardwareConcurrency: navigator.hardwareConcurrency,
      };
    } finally {
      source.dispose();
    }
  },

  /** Loads `pages`, in two rounds, expecting failures; returns each rejection's error code. */
  async loadFailing(url: string, pages: Page[]) {
    const source = await ArchiveTileSource.open(url);
    try {
      const signal = new AbortController().signal;
      const codes: string[] = [];
      for (const round of [pages.slice(0, 2), pages.slice(2)]) {
        const settled = await Promise.allSettled(round.map(([m, x, y]) => source.load(m, x, y, signal)));
        for (const result of settled) {
          if (result.status === 'fulfilled') codes.push('loaded');
          else codes.push(result.reason instanceof TileSourceError ? result.reason.code : 'untyped');
        }
      }
      return codes;
    } finally {
      source.dispose();
    }
  },

  /** Workers terminated since the last {@link loadTiles}. */
  terminatedWorkers: () => workers.terminated,
};

(globalThis as unknown as { archiveDefaultDecoder: typeof api }).archiveDefaultDecoder = api;
document.title = 'ready';
