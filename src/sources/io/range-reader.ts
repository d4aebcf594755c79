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
  /** The bytes' length. */
  readonly length: number;

  constructor(private readonly bytes: Uint8Array) {
    this.length = bytes.length;
  }

  /**
   * Bytes [`start`, `end`): a view of the bytes given, not a copy.
   * @throws (rejects) TileSourceError('truncated') past the end; `signal.reason` once it aborted.
   */
  read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (end > this.bytes.length) {
      return Promise.reject(
        new TileSourceError('truncated', `read past the end (${end} > ${this.bytes.length})`, false),
      );
    }
    return Promise.resolve(this.bytes.subarray(start, end));
  }

  /**
   * Like {@link read}, up to the end of the bytes.
   * @throws (rejects) `signal.reason` once it aborted.
   */
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

/**
 * Bytes before the end of a known prefix that {@link KnownPrefixRangeReader}'s first read also
 * fetches, to compare with the prefix: a file re-made since the prefix was taken differs there
 * (compressed level data) even when its length is the same.
 */
export const PREFIX_CHECK_BYTES = 32;

/**
 * A {@link RangeReader} over a file whose first bytes and length are known before any request
 * (carried elsewhere, as a glTF's `TESSERA_texture_prefix` carries a KTX2 file's): it answers those
 * bytes from memory, and its first read of the rest starts {@link PREFIX_CHECK_BYTES} early to check
 * the file against them. A file of another length (the answer's `Content-Range`, or a file ending
 * first) or other bytes there rejects with `TileSourceError('prefix-mismatch')`, and so does every
 * later read, so its owner can fall back to the file's own metadata.
 */
export class KnownPrefixRangeReader implements RangeReader {
  private checked = false;
  private mismatch: TileSourceError | null = null;

  /**
   * @param reader the file.
   * @param head bytes [0, `head.length`) of the file, as held.
   * @param length the file's length the holder states, bytes.
   */
  constructor(
    private readonly reader: RangeReader,
    private readonly head: Uint8Array,
    readonly length: number,
  ) {}

  async read(start: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    if (signal.aborted) throw signal.reason;
    if (end > this.length) {
      throw new TileSourceError('truncated', `read past the end (${end} > ${this.length})`, false);
    }
    const known = this.head.length;
    // A copy: a caller may transfer what it gets to a worker, which would detach the held bytes.
    if (end <= known) return this.head.slice(start, end);
    if (this.mismatch !== null) throw this.mismatch;
    const checking = !this.checked;
    const from = checking ? Math.max(0, Math.min(start, known - PREFIX_CHECK_BYTES)) : Math.max(start, known);
    let remote: Uint8Array;
    try {
      remote = await this.reader.read(from, end, signal);
    } catch (error) {
      if (error instanceof TileSourceError && error.code === 'truncated') {
        throw this.mismatched(
          `the file ends before byte ${end} (the prefix says ${this.length} bytes)`,
          error,
        );
      }
      throw error;
    }
    const actual = this.reader.length;
    if (actual !== undefined && actual !== this.length) {
      throw this.mismatched(`the file is ${actual} bytes, the prefix says ${this.length}`);
    }
    if (checking) {
      for (let at = from; at < known; at++) {
        if (remote[at - from] !== this.head[at]) {
          throw this.mismatched(`byte ${at} of the file differs from the prefix`);
        }
      }
      this.checked = true;
    }
    if (start >= from) return remote.subarray(start - from);
    // Straddling: the held part from memory, the rest as read.
    const out = new Uint8Array(end - start);
    out.set(this.head.subarray(start, from), 0);
    out.set(remote, from - start);
    return out;
  }

  private mismatched(why: string, cause?: unknown): TileSourceError {
    this.mismatch = new TileSourceError(
      'prefix-mismatch',
      `the file does not match the prefix held for it: ${why}`,
      false,
      cause === undefined ? undefined : { cause },
    );
    return this.mismatch;
  }
}
