/**
 * The byte source geotiff parses a GeoTIFF's header and directories from. geotiff asks for many
 * small slices (the header, each IFD, out-of-line tag values, offset arrays); one HTTP request
 * each would make opening a COG a burst of tiny round trips, so slices are served from aligned
 * blocks read once and kept in a small LRU. A Cloud-Optimized GeoTIFF keeps every IFD near the
 * start, so the first block usually answers all of them. Tile payloads never pass through here:
 * the pyramid reads them directly, one request per tile.
 */

import type { RangeReader } from '../io/range-reader';

/** A byte range geotiff asks for (its `Slice`). */
interface Slice {
  readonly offset: number;
  readonly length: number;
}

/** Slices longer than this many blocks are read directly and not cached (geotiff keeps the arrays). */
const UNCACHED_BLOCKS = 4;

/** The geotiff `BaseSource` duck type over a {@link RangeReader}, with a block cache. */
export class CogMetadataSource {
  private readonly blocks = new Map<number, Promise<Uint8Array>>();

  /**
   * @param reader where the bytes come from.
   * @param blockSize bytes per cached block.
   * @param maxBlocks blocks kept (least recently used go first).
   * @param signal aborts every read (the pyramid's lifetime); callers race their own signals.
   */
  constructor(
    private readonly reader: RangeReader,
    private readonly blockSize: number,
    private readonly maxBlocks: number,
    private readonly signal: AbortSignal,
  ) {}

  /** File size in bytes once a read has told it, else `null` (geotiff's contract). */
  get fileSize(): number | null {
    return this.reader.length ?? null;
  }

  /** geotiff's `BaseSource.fetch`: one fresh `ArrayBuffer` per slice, short only at the end of the file. */
  fetch(slices: readonly Slice[], _signal?: AbortSignal): Promise<ArrayBuffer[]> {
    return Promise.all(slices.map((slice) => this.fetchSlice(slice)));
  }

  /** geotiff calls this once it is done with a file source; blocks stay until {@link clear}. */
  close(): void {}

  /** Drops the cached blocks. */
  clear(): void {
    this.blocks.clear();
  }

  private async fetchSlice({ offset, length }: Slice): Promise<ArrayBuffer> {
    const size = this.blockSize;
    const first = Math.floor(offset / size);
    const last = Math.floor((offset + length - 1) / size);
    if (last - first + 1 > UNCACHED_BLOCKS) {
      const bytes = await this.readAtMost(offset, offset + length);
      return copyOut(bytes, 0, bytes.length);
    }
    const parts: Promise<Uint8Array>[] = [];
    for (let block = first; block <= last; block++) parts.push(this.block(block));
    const blocks = await Promise.all(parts);
    const out = new Uint8Array(length);
    let filled = 0;
    for (let i = 0; i < blocks.length && filled < length; i++) {
      const blockStart = (first + i) * size;
      const from = Math.max(0, offset + filled - blockStart);
      const n = Math.min(blocks[i].length - from, length - filled);
      if (n <= 0) break;
      out.set(blocks[i].subarray(from, from + n), filled);
      filled += n;
      if (blocks[i].length < size) break;
    }
    return filled === length ? out.buffer : copyOut(out, 0, filled);
  }

  private block(index: number): Promise<Uint8Array> {
    const cached = this.blocks.get(index);
    if (cached !== undefined) {
      this.blocks.delete(index);
      this.blocks.set(index, cached);
      return cached;
    }
    const start = index * this.blockSize;
    const read = this.readAtMost(start, start + this.blockSize);
    this.blocks.set(index, read);
    // A failed read must not stay cached: the next open or tile retries it.
    read.catch(() => {
      if (this.blocks.get(index) === read) this.blocks.delete(index);
    });
    if (this.blocks.size > this.maxBlocks) {
      const oldest = this.blocks.keys().next().value as number;
      this.blocks.delete(oldest);
    }
    return read;
  }

  private readAtMost(start: number, end: number): Promise<Uint8Array> {
    const length = this.reader.length;
    if (length !== undefined) end = Math.min(end, length);
    if (end <= start) return Promise.resolve(new Uint8Array(0));
    return this.reader.readAtMost
      ? this.reader.readAtMost(start, end, this.signal)
      : this.reader.read(start, end, this.signal);
  }
}

function copyOut(bytes: Uint8Array, from: number, to: number): ArrayBuffer {
  const out = new Uint8Array(to - from);
  out.set(bytes.subarray(from, to));
  return out.buffer;
}
