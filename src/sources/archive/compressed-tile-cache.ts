/**
 * Second-level cache of compressed payload bytes in CPU memory, least recently used first out,
 * under its own byte budget. Keys are index entry numbers (integers), so lookups hash no strings.
 */
export class CompressedTileCache {
  /** Bytes currently held. */
  bytes = 0;
  /** Lookups that found their entry. */
  hits = 0;
  /** Lookups that missed their entry. */
  misses = 0;
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the LRU one.
  private readonly entries = new Map<number, Uint8Array>();

  /** @param budgetBytes most bytes held (entries larger than this are not cached). */
  constructor(
    /** Most bytes held; an entry larger alone is not cached. */
    readonly budgetBytes: number,
  ) {}

  /** The bytes of entry `key`, refreshed as most recently used, or `undefined`. */
  get(key: number): Uint8Array | undefined {
    const value = this.entries.get(key);
    if (value === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores `value` for `key`, evicting least recently used entries past the budget. */
  set(key: number, value: Uint8Array): void {
    if (value.length > this.budgetBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }

  /** Drops everything. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
