/**
 * Shard files (docs/FORMAT.md, "Shard files"): one region of an archive, baked on its own so a
 * batch runner can spread a bake over machines. Shard `i` of `n` holds, at every mip, the page
 * rows `[floor(i·h/n), floor((i+1)·h/n))` of that mip's `h` rows; the shards of one bake
 * partition every page exactly once. The file is a 16-byte shard header followed by the archive
 * itself with holes: the final archive's header and an index whose entries outside the shard are
 * zero, then the shard's payloads in the bake's order.
 */

import { TesseraConfigError } from '../../core/errors';
import type { MipLayout } from './archive-format';

/** "TSVS". */
export const SHARD_MAGIC = [0x54, 0x53, 0x56, 0x53] as const;
/** The shard header version this code writes and reads. */
export const SHARD_VERSION = 1;
/** Bytes of the shard header; the embedded archive starts here. */
export const SHARD_HEADER_BYTES = 16;
/** Most shards one bake may be split into (one page row of mip 0 each at the largest size). */
export const MAX_SHARDS = 4096;

/** In which order a baker writes mips (each mip's rows top to bottom, pages left to right). */
export type MipOrder = 'finest-first' | 'coarsest-first';

/** Shard `index` (0-based) of `count`. */
export interface ShardSpec {
  /** This shard, 0..count - 1. */
  index: number;
  /** Shards the archive is split into, 1..4096 (`MAX_SHARDS`). */
  count: number;
}

/** A shard's page rows at each mip: rows `start[m]` (inclusive) to `end[m]` (exclusive). */
export interface ShardRows {
  /** First row of the shard at each mip (inclusive). */
  start: Int32Array;
  /** Row after the shard's last at each mip (exclusive). */
  end: Int32Array;
}

/** Throws `invalid-option` unless `shard` is `index` in 0..count-1 of `count` in 1..{@link MAX_SHARDS}. */
export function checkShardSpec(shard: ShardSpec): void {
  const { index, count } = shard;
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS) {
    throw new TesseraConfigError('invalid-option', `shard count ${count} outside 1..${MAX_SHARDS}`);
  }
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new TesseraConfigError('invalid-option', `shard index ${index} outside 0..${count - 1}`);
  }
}

/** Parses `i/n` (0-based index, as a CI matrix or a Kubernetes indexed job numbers them). */
export function parseShardSpec(text: string): ShardSpec {
  const match = /^(\d{1,5})\/(\d{1,5})$/.exec(text);
  if (match === null) throw new TesseraConfigError('invalid-option', `--shard wants i/n, got '${text}'`);
  const shard = { index: Number(match[1]), count: Number(match[2]) };
  checkShardSpec(shard);
  return shard;
}

/** The rows of `shard` at every mip of `layout`. */
export function shardRows(layout: MipLayout, shard: ShardSpec): ShardRows {
  const mips = layout.pagesHigh.length;
  const rows: ShardRows = { start: new Int32Array(mips), end: new Int32Array(mips) };
  for (let m = 0; m < mips; m++) {
    const h = layout.pagesHigh[m];
    rows.start[m] = Math.floor((shard.index * h) / shard.count);
    rows.end[m] = Math.floor(((shard.index + 1) * h) / shard.count);
  }
  return rows;
}

/** Pages of `layout` inside `rows`. */
export function shardPageCount(layout: MipLayout, rows: ShardRows): number {
  let pages = 0;
  for (let m = 0; m < rows.start.length; m++) pages += (rows.end[m] - rows.start[m]) * layout.pagesWide[m];
  return pages;
}

/** The 16-byte shard header. */
export function encodeShardHeader(shard: ShardSpec, mipOrder: MipOrder): Uint8Array {
  const bytes = new Uint8Array(SHARD_HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  bytes.set(SHARD_MAGIC, 0);
  view.setUint16(4, SHARD_VERSION, true);
  view.setUint16(6, shard.index, true);
  view.setUint16(8, shard.count, true);
  bytes[10] = mipOrder === 'finest-first' ? 0 : 1;
  return bytes;
}

/** A parsed shard header. */
export interface ShardHeader extends ShardSpec {
  mipOrder: MipOrder;
}

/** Parses a shard header; throws `invalid-option` naming `name` on any field out of bounds. */
export function parseShardHeader(bytes: Uint8Array, name: string): ShardHeader {
  const bad = (why: string) =>
    new TesseraConfigError('invalid-option', `${name} is not a shard file: ${why}`);
  if (bytes.length < SHARD_HEADER_BYTES) throw bad('shorter than its header');
  for (let i = 0; i < 4; i++) if (bytes[i] !== SHARD_MAGIC[i]) throw bad('bad magic');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint16(4, true) !== SHARD_VERSION) throw bad(`version ${view.getUint16(4, true)}`);
  const index = view.getUint16(6, true);
  const count = view.getUint16(8, true);
  if (count < 1 || count > MAX_SHARDS || index >= count) throw bad(`shard ${index}/${count}`);
  if (bytes[10] > 1) throw bad(`mip order ${bytes[10]}`);
  for (let i = 11; i < SHARD_HEADER_BYTES; i++) if (bytes[i] !== 0) throw bad('reserved bytes');
  return { index, count, mipOrder: bytes[10] === 0 ? 'finest-first' : 'coarsest-first' };
}
