/**
 * Joins the shard files of one bake (`archive-shard.ts`) into the archive a direct bake writes,
 * byte for byte: the payloads are copied in the direct bake's order (each mip, in the order the
 * baker wrote mips, takes shard 0's rows, then shard 1's, ...) and the index and header are
 * rebuilt from them. Payloads are copied in bounded chunks, never held whole. Every shard is
 * checked before anything is written: the same bake (header, shard count, mip order), each shard
 * exactly once, an index that holds exactly the shard's pages, payloads contiguous in bake order.
 */

import { closeSync, openSync, readSync } from 'node:fs';
import { TesseraConfigError, TileSourceError } from '../../core/errors';
import {
  type ArchiveHeader,
  FIXED_HEADER_BYTES,
  INDEX_ENTRY_BYTES,
  LAYER_RECORD_BYTES,
  type MipLayout,
  mipLayout,
} from '../archive/archive-format';
import { type ArchiveIndex, encodeArchivePrefix, parseArchivePrefix } from '../archive/archive-header-codec';
import { parseShardHeader, SHARD_HEADER_BYTES, type ShardHeader, shardRows } from '../archive/archive-shard';
import type { ArchiveSink } from '../archive/archive-writer';
import { crc32 } from '../archive/crc32';

/** Bytes copied per read while merging. */
const COPY_CHUNK_BYTES = 4 << 20;
const CRC_FIELD = 36;

interface OpenShard {
  path: string;
  fd: number;
  shard: ShardHeader;
  header: ArchiveHeader;
  /** Bytes of the embedded archive. */
  fileLength: number;
  dataStart: number;
  index: ArchiveIndex;
}

function readExactly(fd: number, length: number, position: number, path: string): Uint8Array {
  const bytes = new Uint8Array(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, bytes, read, length - read, position + read);
    if (n === 0) throw new TileSourceError('truncated', `${path} ends at byte ${position + read}`, false);
    read += n;
  }
  return bytes;
}

function openShard(path: string): OpenShard {
  const fd = openSync(path, 'r');
  try {
    const shard = parseShardHeader(readExactly(fd, SHARD_HEADER_BYTES, 0, path), path);
    const fixed = readExactly(fd, FIXED_HEADER_BYTES, SHARD_HEADER_BYTES, path);
    const layerCount = fixed[17];
    const records = readExactly(
      fd,
      FIXED_HEADER_BYTES + layerCount * LAYER_RECORD_BYTES,
      SHARD_HEADER_BYTES,
      path,
    );
    const prefix = parseArchivePrefix(records);
    const bytes = readExactly(fd, prefix.dataStart, SHARD_HEADER_BYTES, path);
    const check = bytes.slice();
    check.fill(0, CRC_FIELD, CRC_FIELD + 4);
    if (crc32(check) !== prefix.storedCrc) {
      throw new TileSourceError('corrupt', `${path}: header/index checksum mismatch`, false);
    }
    const view = new DataView(bytes.buffer);
    const offsets = new Float64Array(prefix.entryCount);
    const lengths = new Uint32Array(prefix.entryCount);
    const indexStart = FIXED_HEADER_BYTES + layerCount * LAYER_RECORD_BYTES;
    for (let i = 0; i < prefix.entryCount; i++) {
      const at = indexStart + i * INDEX_ENTRY_BYTES;
      offsets[i] = view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
      lengths[i] = view.getUint32(at + 8, true);
    }
    return {
      path,
      fd,
      shard,
      header: prefix.header,
      fileLength: prefix.fileLength,
      dataStart: prefix.dataStart,
      index: { offsets, lengths },
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** One run of payload bytes copied from a shard to the archive. */
interface CopyRun {
  shard: OpenShard;
  from: number;
  length: number;
}

/**
 * Checks that each shard's index holds exactly its rows and that their payloads follow one
 * another in bake order; fills `index` with their offsets in the merged archive and returns the
 * runs to copy, in archive order.
 */
function planMerge(
  shards: OpenShard[],
  layout: MipLayout,
  mipOrder: ShardHeader['mipOrder'],
  index: ArchiveIndex,
) {
  const layers = shards[0].header.layers.length;
  const mips = layout.pagesWide.length;
  const rows = shards.map((s) => shardRows(layout, s.shard));
  const cursors = shards.map((s) => s.dataStart);
  const runs: CopyRun[] = [];
  let position = shards[0].dataStart;
  for (let k = 0; k < mips; k++) {
    const mip = mipOrder === 'finest-first' ? k : mips - 1 - k;
    for (const [s, shard] of shards.entries()) {
      const runStart = cursors[s];
      for (let y = 0; y < layout.pagesHigh[mip]; y++) {
        const mine = y >= rows[s].start[mip] && y < rows[s].end[mip];
        for (let x = 0; x < layout.pagesWide[mip]; x++) {
          const page = layout.firstPage[mip] + y * layout.pagesWide[mip] + x;
          for (let layer = 0; layer < layers; layer++) {
            const entry = page * layers + layer;
            const length = shard.index.lengths[entry];
            const offset = shard.index.offsets[entry];
            if (!mine) {
              if (length !== 0 || offset !== 0) {
                throw new TileSourceError(
                  'bad-index',
                  `${shard.path}: page ${page} is not in its rows`,
                  false,
                );
              }
              continue;
            }
            if (length < 1 || offset !== cursors[s] || offset + length > shard.fileLength) {
              throw new TileSourceError(
                'bad-index',
                `${shard.path}: entry ${entry} is not the next payload of the shard`,
                false,
              );
            }
            cursors[s] += length;
            index.offsets[entry] = position;
            index.lengths[entry] = length;
            position += length;
          }
        }
      }
      if (cursors[s] > runStart) runs.push({ shard, from: runStart, length: cursors[s] - runStart });
    }
  }
  for (const [s, shard] of shards.entries()) {
    if (cursors[s] !== shard.fileLength) {
      throw new TileSourceError('corrupt', `${shard.path} has bytes past its last payload`, false);
    }
  }
  return { runs, length: position };
}

/** Same bake: every header field and layer alike. */
function sameHeader(a: ArchiveHeader, b: ArchiveHeader): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Merges the shard files at `paths` (any order; all `n` shards of one bake) into `sink`. Returns
 * the archive header and length in bytes. Throws `invalid-option` for a set that is not one
 * bake's shards, a {@link TileSourceError} for a damaged shard; nothing is written then.
 */
export function mergeShards(
  paths: readonly string[],
  sink: ArchiveSink,
): { header: ArchiveHeader; length: number } {
  if (paths.length === 0) throw new TesseraConfigError('invalid-option', 'no shard files to merge');
  const opened: OpenShard[] = [];
  try {
    for (const path of paths) opened.push(openShard(path));
    const first = opened[0];
    const count = first.shard.count;
    const shards = Array.from<OpenShard | undefined>({ length: count });
    for (const s of opened) {
      if (
        s.shard.count !== count ||
        s.shard.mipOrder !== first.shard.mipOrder ||
        !sameHeader(s.header, first.header)
      ) {
        throw new TesseraConfigError(
          'invalid-option',
          `${s.path} is not a shard of the same bake as ${first.path}`,
        );
      }
      if (shards[s.shard.index] !== undefined) {
        throw new TesseraConfigError(
          'invalid-option',
          `shard ${s.shard.index}/${count} given twice (${s.path})`,
        );
      }
      shards[s.shard.index] = s;
    }
    const missing = shards.indexOf(undefined);
    if (missing >= 0 || opened.length !== count) {
      throw new TesseraConfigError('invalid-option', `shard ${missing}/${count} is missing`);
    }
    const ordered = shards as OpenShard[];
    const { header } = first;
    const layout = mipLayout(header.widthPages, header.heightPages, header.mipCount);
    const entries = layout.pageCount * header.layers.length;
    const index: ArchiveIndex = { offsets: new Float64Array(entries), lengths: new Uint32Array(entries) };
    const { runs, length } = planMerge(ordered, layout, first.shard.mipOrder, index);
    let position = first.dataStart;
    const chunk = new Uint8Array(COPY_CHUNK_BYTES);
    for (const run of runs) {
      for (let done = 0; done < run.length; ) {
        const n = Math.min(COPY_CHUNK_BYTES, run.length - done);
        const read = readSync(run.shard.fd, chunk, 0, n, SHARD_HEADER_BYTES + run.from + done);
        if (read === 0) throw new TileSourceError('truncated', `${run.shard.path} ends early`, false);
        sink.write(chunk.subarray(0, read), position);
        position += read;
        done += read;
      }
    }
    sink.write(encodeArchivePrefix(header, index, length), 0);
    return { header, length };
  } finally {
    for (const s of opened) closeSync(s.fd);
  }
}
