/** Byte-range access to an archive, so the tile reader works over HTTP, memory or files alike. */

import { TileSourceError } from '../../core/errors';

/** Reads byte ranges of one archive. */
export interface RangeReader {
  /**
   * Reads bytes [`start`, `end`) (exactly `end - start` bytes, or rejects with a
   * {@link TileSourceError}; `truncated` when the archive ends first). Rejects with an abort
   * error once `signal` aborts.
   */
  read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array>;
  /** Like {@link read}, but a file ending before `end` yields the bytes up to its end instead of `truncated`. */
  readAtMost?(start: number, end: number, signal: AbortSignal): Promise<Uint8Array>;
  /** Total length of the archive in bytes, once known (after the first read), else `undefined`. */
  readonly length: number | undefined;
}

/** A {@link RangeReader} over bytes in memory (tests, fuzzing, archives already downloaded). */
export class MemoryRangeReader implements RangeReader {
  readonly length: number;

  constructor(private readonly bytes: Uint8Array) {
    this.length = bytes.length;
  }

  read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (end > this.bytes.length) {
      return Promise.reject(
        new TileSourceError('truncated', `read past the end (${end} > ${this.bytes.length})`, false),
      );
    }
    return Promise.resolve(this.bytes.subarray(start, end));
  }

  readAtMost(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    return this.read(start, Math.min(end, this.bytes.length), signal);
  }
}

/**
 * A {@link RangeReader} that answers from the bytes it already read at the file's start (what
 * opening it fetched) and reads only the rest: a file laid out with its small coarse levels right
 * after its metadata (as `tessera gltf` writes KTX2) serves them with no request.
 */
export class PrefixedRangeReader implements RangeReader {
  constructor(
    private readonly reader: RangeReader,
    /** Bytes [0, `head.length`) of the file. */
    private readonly head: Uint8Array,
  ) {}

  get length(): number | undefined {
    return this.reader.length;
  }

  async read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) throw signal.reason;
    const known = this.head.length;
    if (end <= known) return this.head.subarray(start, end);
    if (start >= known) return this.reader.read(start, end, signal);
    // Straddling: the known part from memory, the rest read.
    const rest = await this.reader.read(known, end, signal);
    const out = new Uint8Array(end - start);
    out.set(this.head.subarray(start, known), 0);
    out.set(rest, known - start);
    return out;
  }
}
