import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { FIXED_HEADER_BYTES, LAYER_RECORD_BYTES } from '../../../src/sources/archive/archive-format';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { ArchiveWriter, MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import { crc32 } from '../../../src/sources/archive/crc32';
import { createNodeImageCodecs } from '../../../src/sources/io/node-image-codecs';
import { decodePng } from '../../../src/sources/io/png-codec';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { InlineTileDecoder } from '../../../src/sources/io/tile-decoder';
import { decodeTilePayload } from '../../../src/sources/io/tile-payload-decoder';
import { encodePng } from '../../support/png-encoder';
import { buildTestArchive } from './archive-fixtures';

const live = () => new AbortController().signal;
const codecs = createNodeImageCodecs();

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(TileSourceError);
  return (error as TileSourceError).code;
}

/** Rewrites the header CRC so a deliberate edit reaches the check after it. */
function fixCrc(bytes: Uint8Array, dataStart: number): Uint8Array {
  const copy = bytes.slice();
  new DataView(copy.buffer).setUint32(36, 0, true);
  new DataView(copy.buffer).setUint32(36, crc32(copy, 0, dataStart), true);
  return copy;
}

function singleTileArchive(payload: Uint8Array, encoding: 'raw' | 'deflate' | 'png' | 'jpeg' | 'webp') {
  const sink = new MemoryArchiveSink();
  const writer = new ArchiveWriter(
    {
      widthPages: 1,
      heightPages: 1,
      tileSize: 16,
      border: 2,
      mipCount: 1,
      contentWidth: 12,
      contentHeight: 12,
      layers: [{ name: 'c', encoding, colorSpace: 'srgb' }],
    },
    sink,
  );
  writer.addTile(0, 0, 0, [payload]);
  writer.finish();
  return sink.toBytes();
}

describe('archive format', { timeout: 30_000 }, () => {
  const { bytes, tiles } = buildTestArchive();
  const dataStart = new DataView(bytes.buffer).getUint32(40, true);

  it('round-trips through writer and reader', async () => {
    const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    expect(source.mipCount).toBe(3);
    expect((await source.load(2, 0, 0, live())).layers[0]).toEqual(tiles.get('2/0/0')![0]);
  });

  it('is deterministic: the same tiles give the same bytes', () => {
    expect(buildTestArchive().bytes).toEqual(bytes);
  });

  it('refuses wrong magic, wrong version and a cut header with their codes', async () => {
    const magic = bytes.slice();
    magic[0] = 0x58;
    expect(await codeOf(ArchiveTileSource.open(new MemoryRangeReader(magic)))).toBe('bad-magic');
    for (const v of [0, 3]) {
      const version = bytes.slice();
      version[4] = v;
      expect(await codeOf(ArchiveTileSource.open(new MemoryRangeReader(version)))).toBe('bad-version');
    }
    expect(await codeOf(ArchiveTileSource.open(new MemoryRangeReader(bytes.subarray(0, 20))))).toBe(
      'truncated',
    );
    expect(
      await codeOf(ArchiveTileSource.open(new MemoryRangeReader(bytes.subarray(0, dataStart - 5)))),
    ).toBe('truncated');
  });

  it('detects a corrupted index through its checksum', async () => {
    const flipped = bytes.slice();
    flipped[dataStart - 3] ^= 0x40;
    expect(await codeOf(ArchiveTileSource.open(new MemoryRangeReader(flipped)))).toBe('corrupt');
  });

  it('refuses index entries overlapping the header or ending past the file', async () => {
    const indexStart = FIXED_HEADER_BYTES + 2 * LAYER_RECORD_BYTES;
    const overlap = bytes.slice();
    new DataView(overlap.buffer).setUint32(indexStart, 10, true);
    expect(await codeOf(ArchiveTileSource.open(new MemoryRangeReader(fixCrc(overlap, dataStart))))).toBe(
      'bad-index',
    );
    const past = bytes.slice();
    new DataView(past.buffer).setUint32(indexStart + 8, bytes.length, true);
    expect(await codeOf(ArchiveTileSource.open(new MemoryRangeReader(fixCrc(past, dataStart))))).toBe(
      'bad-index',
    );
  });

  it('refuses tile sizes past the configured limit', async () => {
    expect(await codeOf(ArchiveTileSource.open(new MemoryRangeReader(bytes), { maxTileSize: 16 }))).toBe(
      'oversized',
    );
  });

  it('gives wrong-size for a tile decoding to other dimensions', async () => {
    const png = encodePng(new Uint8Array(8 * 8 * 4), 8, 8);
    const source = await ArchiveTileSource.open(new MemoryRangeReader(singleTileArchive(png, 'png')));
    expect(await codeOf(source.load(0, 0, 0, live()))).toBe('wrong-size');
    const raw = await ArchiveTileSource.open(
      new MemoryRangeReader(singleTileArchive(new Uint8Array(100), 'raw')),
    );
    expect(await codeOf(raw.load(0, 0, 0, live()))).toBe('wrong-size');
  });

  it('refuses decompression bombs before decoding', async () => {
    // A PNG whose header claims 30000 x 30000: refused from the IHDR alone.
    const png = encodePng(new Uint8Array(16 * 16 * 4), 16, 16);
    new DataView(png.buffer).setUint32(16, 30000);
    new DataView(png.buffer).setUint32(20, 30000);
    expect(await codeOf(decodeTilePayload('png', png, 16, codecs))).toBe('oversized');
    // 16 MiB of zeros deflates to ~16 KiB; inflating stops at the tile's size.
    const bomb = deflateSync(new Uint8Array(16 << 20));
    const source = await ArchiveTileSource.open(new MemoryRangeReader(singleTileArchive(bomb, 'deflate')));
    expect(await codeOf(source.load(0, 0, 0, live()))).toBe('oversized');
  });

  it('decodes JPEG and WebP in Node and checks their declared size first', async () => {
    const { default: sharp } = await import('sharp');
    const rgba = new Uint8Array(16 * 16 * 4).fill(200);
    const raw = { raw: { width: 16, height: 16, channels: 4 as const } };
    const webp = new Uint8Array(await sharp(rgba, raw).webp({ lossless: true }).toBuffer());
    const rgb = { raw: { width: 16, height: 16, channels: 3 as const } };
    const jpeg = new Uint8Array(
      await sharp(new Uint8Array(16 * 16 * 3).fill(200), rgb)
        .jpeg({ quality: 95 })
        .toBuffer(),
    );
    const decoder = new InlineTileDecoder(codecs);
    expect(await decoder.decode('webp', webp, 16, live())).toEqual(rgba);
    const fromJpeg = await decoder.decode('jpeg', jpeg, 16, live());
    expect(Math.abs(fromJpeg[0] - 200)).toBeLessThanOrEqual(2);
    const big = new Uint8Array(
      await sharp(new Uint8Array(64 * 64 * 4), { raw: { width: 64, height: 64, channels: 4 } })
        .webp()
        .toBuffer(),
    );
    expect(await codeOf(decoder.decode('webp', big, 16, live()))).toBe('oversized');
    const bigJpeg = new Uint8Array(
      await sharp(new Uint8Array(64 * 64 * 3), { raw: { width: 64, height: 64, channels: 3 } })
        .jpeg()
        .toBuffer(),
    );
    expect(await codeOf(decoder.decode('jpeg', bigJpeg, 16, live()))).toBe('oversized');
  });

  it('PNG codec round-trips rgba8 exactly', () => {
    const rgba = new Uint8Array(16 * 16 * 4).map((_, i) => (i * 37) & 0xff);
    expect(decodePng(encodePng(rgba, 16, 16), 16, 16)).toEqual(rgba);
  });

  it('writer rejects bad headers and missing pages with typed errors', () => {
    const sink = new MemoryArchiveSink();
    const header = {
      widthPages: 3,
      heightPages: 1,
      tileSize: 16,
      border: 2,
      mipCount: 1,
      contentWidth: 1,
      contentHeight: 1,
      layers: [{ name: 'c', encoding: 'raw' as const, colorSpace: 'srgb' as const }],
    };
    expect(() => new ArchiveWriter(header, sink)).toThrow(TesseraConfigError);
    const writer = new ArchiveWriter({ ...header, widthPages: 2 }, sink);
    writer.addTile(0, 0, 0, [new Uint8Array(1024)]);
    expect(() => writer.finish()).toThrow(TesseraConfigError);
  });
});
