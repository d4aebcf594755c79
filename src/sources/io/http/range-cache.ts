/**
 * A byte-bounded LRU cache of HTTP Range answers, owned by an `HttpClient`. Range reads bypass
 * the browser's HTTP cache (`cache: 'no-store'`: through it, Chromium serializes concurrent Range
 * requests to one URL), so this cache keeps what the browser's was worth: a tile, level or
 * directory read again (a page evicted from the pool and wanted back) comes from memory instead
 * of the network. One cache per client, so every reader sharing a client shares one bound.
 */

/** A cached answer to a Range request. */
export interface RangeAnswer {
  /** The bytes of the range. */
  readonly bytes: Uint8Array;
  /** Length of the whole file from the answer's `Content-Range`, bytes (undefined when it said `*`). */
  readonly fileBytes: number | undefined;
}

interface Entry {
  bytes: Uint8Array;
  fileBytes: number | undefined;
}

/**
 * Range answers keyed by URL and byte range [start, end), least recently used evicted first once
 * their bytes pass the bound. Stores and returns copies, so a caller may transfer or change what
 * it got (to a worker, say) without touching the cache.
 */
export class RangeCache {
  /** Bytes of the answers held now. */
  bytes = 0;
  // A Map iterates in insertion order: deleting and re-inserting on use keeps it in LRU order.
  private readonly entries = new Map<string, Entry>();

  /** @param maxBytes most bytes of answers held at once; an answer larger alone is not kept. */
  constructor(
    /** Most bytes of answers held at once; an answer larger alone is not kept. */
    readonly maxBytes: number,
  ) {}

  /** Answers held now. */
  get size(): number {
    return this.entries.size;
  }

  /** A copy of the answer for bytes [`start`, `end`) of `url`, made most recently used; undefined when not held. */
  get(url: string, start: number, end: number): RangeAnswer | undefined {
    const key = keyOf(url, start, end);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { bytes: entry.bytes.slice(), fileBytes: entry.fileBytes };
  }

  /**
   * Keeps a copy of `answer` for bytes [`start`, `end`) of `url`, then evicts the least recently
   * used answers until the bound holds.
   */
  set(url: string, start: number, end: number, answer: RangeAnswer): void {
    const key = keyOf(url, start, end);
    this.remove(key);
    if (answer.bytes.byteLength > this.maxBytes) return;
    this.entries.set(key, { bytes: answer.bytes.slice(), fileBytes: answer.fileBytes });
    this.bytes += answer.bytes.byteLength;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  /** Drops every answer (for a file that changed on the server, say). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes.byteLength;
  }
}

function keyOf(url: string, start: number, end: number): string {
  return `${start}-${end} ${url}`;
}
