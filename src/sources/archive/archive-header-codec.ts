/**
 * Reads and writes the archive prefix (fixed header, layer records, index). Parsing never trusts
 * a field: every bound in docs/FORMAT.md is checked and a violation is a typed
 * {@link TileSourceError}, never a crash, a huge allocation or a hang.
 */

import { TileSourceError } from '../../core/errors';
import {
  isUastcEncoding,
  PayloadEncoding,
  type PayloadEncodingName,
  SUPPORTED_ENCODINGS,
} from '../io/payload-encoding';
import {
  ARCHIVE_MAGIC,
  ARCHIVE_VERSION,
  type ArchiveHeader,
  type ArchiveLayer,
  archiveVersionFor,
  dataStartOffset,
  FIXED_HEADER_BYTES,
  INDEX_ENTRY_BYTES,
  LAYER_NAME_BYTES,
  LAYER_RECORD_BYTES,
  MAX_FILE_BYTES,
  MAX_LAYERS,
  mipLayout,
} from './archive-format';
import { crc32 } from './crc32';

/** The fixed header and layer records, parsed, plus where the index and payloads lie. */
export interface ParsedArchivePrefix {
  header: ArchiveHeader;
  /** Total file length claimed by the header, bytes. */
  fileLength: number;
  /** Bytes of fixed header + layer records + index = offset of the first payload byte. */
  dataStart: number;
  /** Index entries (pages over all mips x layers). */
  entryCount: number;
  /** CRC-32 stored in the header. */
  storedCrc: number;
}

/** Offsets and lengths (bytes) of every payload, entry `page * layerCount + layer`. */
export interface ArchiveIndex {
  offsets: Float64Array;
  lengths: Uint32Array;
}

const CRC_FIELD = 36;
/** Offsets inside a layer record. */
const ENCODING_BYTE = LAYER_NAME_BYTES;
const COLOR_SPACE_BYTE = LAYER_NAME_BYTES + 1;
/** Version 2 only; reserved (0) in version 1. */
const USAGE_BYTE = LAYER_NAME_BYTES + 2;
/** The encodings version 1 knew; the others need version 2. */
const VERSION_1_ENCODING_LIMIT = PayloadEncoding.webp;
const textDecoder = new TextDecoder('utf-8', { fatal: true });
const textEncoder = new TextEncoder();
const encodingNames = new Map<number, PayloadEncodingName>(
  SUPPORTED_ENCODINGS.map((name) => [PayloadEncoding[name], name]),
);

/** The version-2 usage byte: 0 colour, 1 normal map (x, y in red, green), 2 normal map (x, y in red, alpha). */
function usageByte(layer: ArchiveLayer): number {
  if (layer.usage !== 'normal') return 0;
  return layer.normalChannels === 'red-alpha' ? 2 : 1;
}

/** Returns why `header` breaks the format's bounds, or `null` when it is valid. */
export function headerProblem(header: ArchiveHeader): string | null {
  const { widthPages, heightPages, tileSize, border, mipCount, contentWidth, contentHeight, layers } = header;
  for (const pages of [widthPages, heightPages]) {
    if (!Number.isInteger(pages) || pages < 1 || pages > 4096 || (pages & (pages - 1)) !== 0) {
      return `page count ${pages} is not a power of two in 1..4096`;
    }
  }
  if (!Number.isInteger(tileSize) || tileSize < 8 || tileSize > 1024) {
    return `tile size ${tileSize} outside 8..1024`;
  }
  if (!Number.isInteger(border) || border < 0 || tileSize - 2 * border < 4) {
    return `border ${border} too wide`;
  }
  const maxMips = Math.log2(Math.max(widthPages, heightPages)) + 1;
  if (!Number.isInteger(mipCount) || mipCount < 1 || mipCount > maxMips) {
    return `mip count ${mipCount} outside 1..${maxMips}`;
  }
  const payload = tileSize - 2 * border;
  if (!Number.isInteger(contentWidth) || contentWidth < 1 || contentWidth > widthPages * payload) {
    return `content width ${contentWidth} outside 1..${widthPages * payload}`;
  }
  if (!Number.isInteger(contentHeight) || contentHeight < 1 || contentHeight > heightPages * payload) {
    return `content height ${contentHeight} outside 1..${heightPages * payload}`;
  }
  if (layers.length < 1 || layers.length > MAX_LAYERS) {
    return `layer count ${layers.length} outside 1..${MAX_LAYERS}`;
  }
  for (const layer of layers) {
    const nameBytes = textEncoder.encode(layer.name).length;
    if (nameBytes < 1 || nameBytes > LAYER_NAME_BYTES || layer.name.includes('\0')) {
      return `bad layer name '${layer.name}'`;
    }
    if (!SUPPORTED_ENCODINGS.includes(layer.encoding)) return `unsupported encoding ${layer.encoding}`;
    if (layer.colorSpace !== 'linear' && layer.colorSpace !== 'srgb') {
      return `bad colour space ${layer.colorSpace}`;
    }
    const usage = layer.usage ?? 'color';
    if (usage !== 'color' && usage !== 'normal') return `bad usage ${usage}`;
    const channels = layer.normalChannels ?? 'red-green';
    if (channels !== 'red-green' && (channels !== 'red-alpha' || usage !== 'normal')) {
      return `bad normal channels ${channels} for usage ${usage}`;
    }
    // UASTC blocks are 4x4 texels: a tile is whole blocks, and so is its payload, so a page's
    // blocks never straddle the border and the pool can take them as block-aligned rectangles.
    if (isUastcEncoding(layer.encoding) && (tileSize % 4 !== 0 || border % 4 !== 0)) {
      return `${layer.encoding} needs a tile size and border that are multiples of 4 (got ${tileSize}, ${border})`;
    }
  }
  return null;
}

/**
 * Serialises the prefix (fixed header, layer records, index) of an archive whose payload entry
 * `i` is at `offsets[i]` with `lengths[i]` bytes, and whose total length is `fileLength` bytes.
 */
export function encodeArchivePrefix(
  header: ArchiveHeader,
  index: ArchiveIndex,
  fileLength: number,
): Uint8Array<ArrayBuffer> {
  const layerCount = header.layers.length;
  const { pageCount } = mipLayout(header.widthPages, header.heightPages, header.mipCount);
  const entryCount = pageCount * layerCount;
  const dataStart = dataStartOffset(layerCount, pageCount);
  const bytes = new Uint8Array(dataStart);
  const view = new DataView(bytes.buffer);
  bytes.set(ARCHIVE_MAGIC, 0);
  const version = archiveVersionFor(header.layers);
  view.setUint16(4, version, true);
  view.setUint16(6, FIXED_HEADER_BYTES, true);
  view.setUint16(8, header.widthPages, true);
  view.setUint16(10, header.heightPages, true);
  view.setUint16(12, header.tileSize, true);
  view.setUint16(14, header.border, true);
  view.setUint8(16, header.mipCount);
  view.setUint8(17, layerCount);
  view.setUint16(18, 0, true);
  view.setUint32(20, header.contentWidth, true);
  view.setUint32(24, header.contentHeight, true);
  view.setUint32(28, fileLength % 2 ** 32, true);
  view.setUint32(32, Math.floor(fileLength / 2 ** 32), true);
  view.setUint32(40, dataStart, true);
  view.setUint32(44, entryCount, true);
  header.layers.forEach((layer, i) => {
    const at = FIXED_HEADER_BYTES + i * LAYER_RECORD_BYTES;
    bytes.set(textEncoder.encode(layer.name), at);
    bytes[at + ENCODING_BYTE] = PayloadEncoding[layer.encoding];
    bytes[at + COLOR_SPACE_BYTE] = layer.colorSpace === 'srgb' ? 1 : 0;
    if (version === 2) bytes[at + USAGE_BYTE] = usageByte(layer);
  });
  const indexStart = FIXED_HEADER_BYTES + layerCount * LAYER_RECORD_BYTES;
  for (let i = 0; i < entryCount; i++) {
    const at = indexStart + i * INDEX_ENTRY_BYTES;
    view.setUint32(at, index.offsets[i] % 2 ** 32, true);
    view.setUint32(at + 4, Math.floor(index.offsets[i] / 2 ** 32), true);
    view.setUint32(at + 8, index.lengths[i], true);
  }
  view.setUint32(CRC_FIELD, crc32(bytes), true);
  return bytes;
}

/** Parses the fixed header and layer records from the first bytes of an archive. */
export function parseArchivePrefix(bytes: Uint8Array): ParsedArchivePrefix {
  if (bytes.length < FIXED_HEADER_BYTES) {
    throw new TileSourceError(
      'truncated',
      `archive shorter than its ${FIXED_HEADER_BYTES}-byte header`,
      false,
    );
  }
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== ARCHIVE_MAGIC[i]) {
      throw new TileSourceError('bad-magic', 'not a Tessera archive (bad magic)', false);
    }
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(4, true);
  if (version < 1 || version > ARCHIVE_VERSION) {
    throw new TileSourceError(
      'bad-version',
      `archive version ${version}, this reader reads 1..${ARCHIVE_VERSION}`,
      false,
    );
  }
  const corrupt = (why: string) => new TileSourceError('corrupt', `corrupt archive header: ${why}`, false);
  if (view.getUint16(6, true) !== FIXED_HEADER_BYTES) throw corrupt('fixed header size');
  if (view.getUint16(18, true) !== 0) throw corrupt('unknown flags');
  const layerCount = view.getUint8(17);
  if (layerCount < 1 || layerCount > MAX_LAYERS) throw corrupt(`layer count ${layerCount}`);
  const fileLength = view.getUint32(28, true) + view.getUint32(32, true) * 2 ** 32;
  if (fileLength > MAX_FILE_BYTES) throw corrupt('file length past 2^53');
  if (bytes.length < FIXED_HEADER_BYTES + layerCount * LAYER_RECORD_BYTES) {
    throw new TileSourceError('truncated', 'archive ends inside its layer records', false);
  }
  const layers: ArchiveLayer[] = [];
  for (let i = 0; i < layerCount; i++) {
    const at = FIXED_HEADER_BYTES + i * LAYER_RECORD_BYTES;
    let end = at;
    while (end < at + LAYER_NAME_BYTES && bytes[end] !== 0) end++;
    const lastField = version === 2 ? USAGE_BYTE : COLOR_SPACE_BYTE;
    for (let k = end; k < at + LAYER_RECORD_BYTES; k++) {
      if ((k < at + ENCODING_BYTE || k > at + lastField) && bytes[k] !== 0) throw corrupt('layer padding');
    }
    let name: string;
    try {
      name = textDecoder.decode(bytes.subarray(at, end));
    } catch {
      throw corrupt('layer name is not UTF-8');
    }
    const code = bytes[at + ENCODING_BYTE];
    const encoding = encodingNames.get(code);
    if (encoding === undefined || (version === 1 && code > VERSION_1_ENCODING_LIMIT)) {
      throw corrupt(`unknown encoding ${code} for version ${version}`);
    }
    const space = bytes[at + COLOR_SPACE_BYTE];
    if (space > 1) throw corrupt(`unknown colour space ${space}`);
    const usage = version === 2 ? bytes[at + USAGE_BYTE] : 0;
    if (usage > 2) throw corrupt(`unknown usage ${usage}`);
    layers.push({
      name,
      encoding,
      colorSpace: space === 1 ? 'srgb' : 'linear',
      usage: usage === 0 ? 'color' : 'normal',
      ...(usage === 2 ? { normalChannels: 'red-alpha' as const } : {}),
    });
  }
  const header: ArchiveHeader = {
    widthPages: view.getUint16(8, true),
    heightPages: view.getUint16(10, true),
    tileSize: view.getUint16(12, true),
    border: view.getUint16(14, true),
    mipCount: view.getUint8(16),
    contentWidth: view.getUint32(20, true),
    contentHeight: view.getUint32(24, true),
    layers,
  };
  const problem = headerProblem(header);
  if (problem !== null) throw corrupt(problem);
  const { pageCount } = mipLayout(header.widthPages, header.heightPages, header.mipCount);
  const dataStart = dataStartOffset(layerCount, pageCount);
  if (view.getUint32(40, true) !== dataStart) throw corrupt('data start disagrees with the layout');
  if (view.getUint32(44, true) !== pageCount * layerCount) {
    throw corrupt('entry count disagrees with the layout');
  }
  if (fileLength < dataStart) throw corrupt('file length shorter than header and index');
  return {
    header,
    fileLength,
    dataStart,
    entryCount: pageCount * layerCount,
    storedCrc: view.getUint32(CRC_FIELD, true),
  };
}

/**
 * Parses and checks the index: `bytes` must hold the whole prefix (`dataStart` bytes). Every
 * entry must lie inside the payload area (not overlapping the header or index, not past the
 * end of the file) and be 1..`maxPayloadBytes` long.
 */
export function parseArchiveIndex(
  bytes: Uint8Array,
  prefix: ParsedArchivePrefix,
  maxPayloadBytes: number,
): ArchiveIndex {
  const { dataStart, entryCount, fileLength, header } = prefix;
  if (bytes.length < dataStart) {
    throw new TileSourceError('truncated', 'archive ends inside its index', false);
  }
  const check = new Uint8Array(bytes.subarray(0, dataStart));
  check.fill(0, CRC_FIELD, CRC_FIELD + 4);
  if (crc32(check) !== prefix.storedCrc) {
    throw new TileSourceError('corrupt', 'header/index checksum mismatch', false);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offsets = new Float64Array(entryCount);
  const lengths = new Uint32Array(entryCount);
  const indexStart = FIXED_HEADER_BYTES + header.layers.length * LAYER_RECORD_BYTES;
  for (let i = 0; i < entryCount; i++) {
    const at = indexStart + i * INDEX_ENTRY_BYTES;
    const offset = view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
    const length = view.getUint32(at + 8, true);
    if (offset < dataStart) {
      throw new TileSourceError(
        'bad-index',
        `entry ${i} overlaps the header or index (offset ${offset})`,
        false,
      );
    }
    if (length < 1 || length > maxPayloadBytes) {
      throw new TileSourceError(
        'bad-index',
        `entry ${i} length ${length} outside 1..${maxPayloadBytes}`,
        false,
      );
    }
    if (offset + length > fileLength) {
      throw new TileSourceError('bad-index', `entry ${i} ends past the file`, false);
    }
    offsets[i] = offset;
    lengths[i] = length;
  }
  return { offsets, lengths };
}
