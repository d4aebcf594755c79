/**
 * Writes an archive: payloads are appended in the order tiles arrive (callers wanting
 * deterministic bytes add tiles in a fixed order), the index is kept in memory (12 bytes per
 * page and layer), and the prefix is written at offset 0 by {@link ArchiveWriter.finish}.
 */

import { TesseraConfigError } from '../../core/errors';
import {
  type ArchiveHeader,
  dataStartOffset,
  layoutHasPage,
  type MipLayout,
  mipLayout,
} from './archive-format';
import { type ArchiveIndex, encodeArchivePrefix, headerProblem } from './archive-header-codec';
import {
  checkShardSpec,
  encodeShardHeader,
  type MipOrder,
  SHARD_HEADER_BYTES,
  type ShardRows,
  type ShardSpec,
  shardRows,
} from './archive-shard';

/** Where archive bytes go: a file, memory, ... Writes never overlap. */
export interface ArchiveSink {
  /** Stores `bytes` at byte `position` of the archive. */
  write(bytes: Uint8Array, position: number): void;
}

/** An {@link ArchiveSink} collecting the archive in memory (tests, small archives). */
export class MemoryArchiveSink implements ArchiveSink {
  private parts: { bytes: Uint8Array; position: number }[] = [];

  /** Keeps a copy of `bytes` for byte `position` of the archive. */
  write(bytes: Uint8Array, position: number): void {
    this.parts.push({ bytes: bytes.slice(), position });
  }

  /** The archive's bytes. */
  toBytes(): Uint8Array<ArrayBuffer> {
    const length = this.parts.reduce((m, p) => Math.max(m, p.position + p.bytes.length), 0);
    const out = new Uint8Array(length);
    for (const p of this.parts) out.set(p.bytes, p.position);
    return out;
  }
}

/** Makes an {@link ArchiveWriter} write one shard file (`archive-shard.ts`) instead of an archive. */
export interface ArchiveShardTarget {
  /** Which shard of how many this file is. */
  shard: ShardSpec;
  /** The order the baker adds mips in, recorded so a merge writes the direct bake's bytes. */
  mipOrder: MipOrder;
}

/**
 * Builds one archive. Every page of every mip (or, for a shard, of the shard's rows) must be
 * added exactly once before {@link finish}.
 */
export class ArchiveWriter {
  /** The archive's header, as given (checked). */
  readonly header: ArchiveHeader;
  /** Pages per mip and where each mip starts in the index. */
  readonly layout: MipLayout;
  /** The shard's rows, or null for a whole archive. */
  readonly rows: ShardRows | null;
  private readonly sink: ArchiveSink;
  private readonly index: ArchiveIndex;
  private readonly written: Uint8Array;
  private readonly target: ArchiveShardTarget | undefined;
  /** Where the archive starts in the file: after the shard header, if any. */
  private readonly base: number;
  private position: number;

  constructor(header: ArchiveHeader, sink: ArchiveSink, target?: ArchiveShardTarget) {
    const problem = headerProblem(header);
    if (problem !== null) throw new TesseraConfigError('invalid-option', `archive header: ${problem}`);
    this.header = header;
    this.sink = sink;
    this.layout = mipLayout(header.widthPages, header.heightPages, header.mipCount);
    const entries = this.layout.pageCount * header.layers.length;
    this.index = { offsets: new Float64Array(entries), lengths: new Uint32Array(entries) };
    this.written = new Uint8Array(this.layout.pageCount);
    this.position = dataStartOffset(header.layers.length, this.layout.pageCount);
    if (target !== undefined) checkShardSpec(target.shard);
    this.target = target;
    this.rows = target === undefined ? null : shardRows(this.layout, target.shard);
    this.base = target === undefined ? 0 : SHARD_HEADER_BYTES;
  }

  /** True when page row `y` of `mip` belongs in this file (always, for a whole archive). */
  hasRow(mip: number, y: number): boolean {
    return this.rows === null || (y >= this.rows.start[mip] && y < this.rows.end[mip]);
  }

  /** Appends the payloads (one per layer, in layer order) of page (`x`, `y`) of mip `mip`. */
  addTile(mip: number, x: number, y: number, payloads: readonly Uint8Array[]): void {
    const { layout } = this;
    if (!layoutHasPage(layout, mip, x, y)) {
      throw new TesseraConfigError('invalid-option', `no page (${x}, ${y}) at mip ${mip}`);
    }
    if (payloads.length !== this.header.layers.length) {
      throw new TesseraConfigError(
        'invalid-layers',
        `${payloads.length} payloads for ${this.header.layers.length} layers`,
      );
    }
    if (!this.hasRow(mip, y)) {
      throw new TesseraConfigError('invalid-option', `page row ${y} of mip ${mip} is outside the shard`);
    }
    const page = layout.firstPage[mip] + y * layout.pagesWide[mip] + x;
    if (this.written[page]) {
      throw new TesseraConfigError('invalid-option', `page (${x}, ${y}) of mip ${mip} added twice`);
    }
    this.written[page] = 1;
    payloads.forEach((bytes, layer) => {
      if (bytes.length < 1 || bytes.length > 0xffffffff) {
        throw new TesseraConfigError('invalid-option', 'payload size');
      }
      const entry = page * payloads.length + layer;
      this.index.offsets[entry] = this.position;
      this.index.lengths[entry] = bytes.length;
      this.sink.write(bytes, this.base + this.position);
      this.position += bytes.length;
    });
  }

  /** Writes the header and index (and the shard header); returns the file's length in bytes. */
  finish(): number {
    const { layout } = this;
    for (let mip = 0; mip < layout.pagesWide.length; mip++) {
      for (let y = 0; y < layout.pagesHigh[mip]; y++) {
        if (!this.hasRow(mip, y)) continue;
        const first = layout.firstPage[mip] + y * layout.pagesWide[mip];
        const missing = this.written.subarray(first, first + layout.pagesWide[mip]).indexOf(0);
        if (missing >= 0) {
          throw new TesseraConfigError('invalid-option', `page ${first + missing} was never added`);
        }
      }
    }
    this.sink.write(encodeArchivePrefix(this.header, this.index, this.position), this.base);
    if (this.target !== undefined) {
      this.sink.write(encodeShardHeader(this.target.shard, this.target.mipOrder), 0);
    }
    return this.base + this.position;
  }
}
