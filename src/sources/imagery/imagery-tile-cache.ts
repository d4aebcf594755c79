/**
 * Decoded source tiles shared by the pages that read them: a virtual-texture page with its border
 * touches up to nine source tiles, and its neighbours touch most of the same ones, so each source
 * tile is fetched and decoded once while it is in use, not once per page. Bounded in bytes (least
 * recently used first out); a load in flight is shared by everyone waiting for it and aborted only
 * when all of them have given up.
 */

import type { ImageryTile } from './imagery-pyramid';

/** What a cache entry resolves to: a tile, or `null` for a tile the pyramid does not have. */
export type CachedTile = ImageryTile | null;

interface Entry {
  promise: Promise<CachedTile>;
  /** Set once the load resolved. */
  settled: boolean;
  bytes: number;
  /** Waiters still interested in a pending load. */
  waiters: number;
  controller: AbortController;
}

/** Integer key of tile (`x`, `y`) of `level` (level < 64, x and y < 2^22; exact below 2^53): no strings per lookup. */
export function tileKey(level: number, x: number, y: number): number {
  return (level * 4194304 + y) * 4194304 + x;
}

/** Counts of an {@link ImageryTileCache}. */
export interface ImageryTileCacheCounters {
  /** Lookups answered by a settled or pending entry. */
  hits: number;
  /** Lookups that started a load. */
  loads: number;
  /** Loads that found no tile (`null`). */
  missing: number;
  /** Settled entries dropped to stay within the byte bound. */
  evictions: number;
}

/** An LRU of decoded tiles by integer key, bounded in bytes, sharing loads in flight. */
export class ImageryTileCache {
  readonly counters: ImageryTileCacheCounters = { hits: 0, loads: 0, missing: 0, evictions: 0 };
  /** Map iteration order is insertion order: a hit re-inserts, so the first key is the oldest. */
  private readonly entries = new Map<number, Entry>();
  private settledBytes = 0;

  /** @param maxBytes bytes of decoded texels kept once no load needs them. */
  constructor(private readonly maxBytes: number) {}

  /** Decoded bytes held now. */
  get bytes(): number {
    return this.settledBytes;
  }

  /**
   * The tile under `key`, loading it with `load` when absent. The returned promise rejects with
   * `signal.reason` as soon as `signal` aborts; the shared load is aborted once every waiter did.
   * A failed load is forgotten, so the next request tries again.
   */
  get(
    key: number,
    signal: AbortSignal,
    load: (signal: AbortSignal) => Promise<CachedTile>,
  ): Promise<CachedTile> {
    if (signal.aborted) return Promise.reject(signal.reason);
    let entry = this.entries.get(key);
    if (entry !== undefined) {
      this.counters.hits++;
      this.entries.delete(key);
      this.entries.set(key, entry);
      if (entry.settled) return entry.promise;
    } else {
      this.counters.loads++;
      entry = this.start(key, load);
    }
    return this.wait(key, entry, signal);
  }

  /**
   * Called with a key each time a load settles (a tile, or `null` for one the pyramid lacks), so a
   * page composed without that tile can be composed again.
   */
  onSettled: ((key: number) => void) | null = null;

  /** True when the tile under `key` is loaded or loading (a lookup that counts nothing). */
  has(key: number): boolean {
    return this.entries.has(key);
  }

  /** Drops every entry and aborts pending loads. */
  clear(): void {
    for (const entry of this.entries.values()) if (!entry.settled) entry.controller.abort();
    this.entries.clear();
    this.settledBytes = 0;
  }

  private start(key: number, load: (signal: AbortSignal) => Promise<CachedTile>): Entry {
    const controller = new AbortController();
    const entry: Entry = { promise: Promise.resolve(null), settled: false, bytes: 0, waiters: 0, controller };
    entry.promise = load(controller.signal).then(
      (tile) => {
        entry.settled = true;
        if (tile === null) this.counters.missing++;
        entry.bytes = tile === null ? 64 : tile.data.byteLength;
        if (this.entries.get(key) === entry) {
          this.settledBytes += entry.bytes;
          this.trim();
        }
        this.onSettled?.(key);
        return tile;
      },
      (error: unknown) => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
        throw error;
      },
    );
    // Waiters handle rejections; this keeps an abandoned load's rejection from being unhandled.
    entry.promise.catch(() => {});
    this.entries.set(key, entry);
    return entry;
  }

  private wait(key: number, entry: Entry, signal: AbortSignal): Promise<CachedTile> {
    entry.waiters++;
    return new Promise<CachedTile>((resolve, reject) => {
      const onAbort = () => {
        entry.waiters--;
        if (entry.waiters === 0 && !entry.settled) {
          entry.controller.abort(signal.reason);
          if (this.entries.get(key) === entry) this.entries.delete(key);
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      entry.promise.then(
        (tile) => {
          signal.removeEventListener('abort', onAbort);
          entry.waiters--;
          resolve(tile);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          entry.waiters--;
          reject(error);
        },
      );
    });
  }

  private trim(): void {
    for (const [key, entry] of this.entries) {
      if (this.settledBytes <= this.maxBytes) return;
      if (!entry.settled) continue;
      this.entries.delete(key);
      this.settledBytes -= entry.bytes;
      this.counters.evictions++;
    }
  }
}
