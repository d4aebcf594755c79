import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { ZSTDDecoder } from 'zstddec';
import { TesseraConfigError, TileSourceError } from '../../../src/core/errors';
import { parseArchivePrefix } from '../../../src/sources/archive/archive-header-codec';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { ArchiveWriter, MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import { bakeImages, bakeProcedural } from '../../../src/sources/bake/bake-archive';
import { bakeImageFiles } from '../../../src/sources/bake/bake-out-of-core';
import { encodeUastcTile } from '../../../src/sources/bake/uastc-encoder';
import { zstdCompress } from '../../../src/sources/bake/zstd-compressor';
import { normalToRedAlpha } from '../../../src/sources/color/normal-channels';
import { decodeImageInNode } from '../../../src/sources/io/image-decoding';
import { uastcTileBytes } from '../../../src/sources/io/payload-encoding';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import { decodeTilePayload } from '../../../src/sources/io/tile-payload-decoder';
import { zstdFrameContentSize } from '../../../src/sources/io/uastc-payload';
import { handleDecodeRequest } from '../../../src/sources/io/worker/decode-protocol';
import { ProceduralWorld } from '../../../src/sources/procedural/procedural-world';
import { decodeUastcToRgba, normalAngleError, rgbPsnr } from '../../support/basis-transcoder';

const live = () => new AbortController().signal;
const T = 32;
const B = 4;
const BLOCK_BYTES = uastcTileBytes(T);

async function bakeWorld(encoding: 'uastc' | 'uastc-zstd', rdoLambda = 0) {
  const sink = new MemoryArchiveSink();
  const { header } = await bakeProcedural(
    9,
    4,
    { tileSize: T, border: B, encoding, rdoLambda, zstdLevel: 9 },
    sink,
  );
  return { bytes: sink.toBytes(), header };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    expect(error).toBeInstanceOf(TileSourceError);
    return (error as TileSourceError).code;
  }
}

/** Bytes of the frame header (magic, descriptor, window, dictionary id, content size) of a frame. */
function frameHeaderBytes(frame: Uint8Array): number {
  const descriptor = frame[4];
  const singleSegment = (descriptor >> 5) & 1;
  const sizeFlag = descriptor >> 6;
  const sizeBytes = sizeFlag === 0 ? singleSegment : [1, 2, 4, 8][sizeFlag];
  return 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 3] + sizeBytes;
}

/** A one-page archive whose single uastc / uastc-zstd layer is `payload`. */
function singleTileArchive(payload: Uint8Array, encoding: 'uastc' | 'uastc-zstd') {
  const sink = new MemoryArchiveSink();
  const writer = new ArchiveWriter(
    {
      widthPages: 1,
      heightPages: 1,
      tileSize: T,
      border: B,
      mipCount: 1,
      contentWidth: T - 2 * B,
      contentHeight: T - 2 * B,
      layers: [{ name: 'c', encoding, colorSpace: 'srgb' }],
    },
    sink,
  );
  writer.addTile(0, 0, 0, [payload]);
  writer.finish();
  return sink.toBytes();
}

/** Decoded 'red-alpha' texels back as an rgb normal map's x and y (red, green). */
function redGreen(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) out.set([rgba[i], rgba[i + 3], 0, 255], i);
  return out;
}

describe('UASTC archives (format version 2)', { timeout: 60_000 }, () => {
  // Refused tiles warn once per source and cause: keep the output readable, and check the lines.
  let warn: MockInstance<typeof console.warn>;
  beforeAll(() => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterAll(() => {
    for (const [message] of warn.mock.calls) expect(String(message)).toMatch(/^tessera: cannot decode uastc/);
    warn.mockRestore();
  });

  it('declares the UASTC formats and usages, and serves exactly the baked blocks, zstd undone', async () => {
    const { bytes } = await bakeWorld('uastc-zstd');
    expect(new DataView(bytes.buffer).getUint16(4, true)).toBe(2);
    const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    expect(source.info.layers).toEqual([
      { name: 'albedo', format: 'uastc-4x4-srgb', usage: 'color' },
      { name: 'normal', format: 'uastc-4x4', usage: 'normal', normalChannels: 'red-alpha' },
    ]);
    const world = new ProceduralWorld({ seed: 9, widthPages: 4, tileSize: T, border: B });
    const albedo = new Uint8Array(T * T * 4);
    const normal = new Uint8Array(T * T * 4);
    for (const [mip, x, y] of [
      [0, 1, 2],
      [1, 1, 0],
      [2, 0, 0],
    ]) {
      world.generateTile(mip, x, y, albedo, normal);
      const tile = await source.load(mip, x, y, live());
      expect(tile.layers[0]).toEqual(
        await encodeUastcTile(albedo, T, { colorSpace: 'srgb', usage: 'color' }),
      );
      expect(tile.layers[1]).toEqual(
        await encodeUastcTile(normalToRedAlpha(normal), T, { colorSpace: 'linear', usage: 'normal' }),
      );
      expect(tile.layers[0].length).toBe(BLOCK_BYTES);
    }
    source.dispose();
  });

  it('keeps colour and both normal channels close to the source (three transcoder decode)', async () => {
    const { bytes } = await bakeWorld('uastc');
    const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    const world = new ProceduralWorld({ seed: 9, widthPages: 4, tileSize: T, border: B });
    const albedo = new Uint8Array(T * T * 4);
    const normal = new Uint8Array(T * T * 4);
    for (const [mip, x, y] of [
      [0, 3, 1],
      [1, 0, 1],
    ]) {
      world.generateTile(mip, x, y, albedo, normal);
      const tile = await source.load(mip, x, y, live());
      expect(rgbPsnr(albedo, await decodeUastcToRgba(tile.layers[0], T))).toBeGreaterThan(36);
      // Stored as Basis lays normal maps out: x in red, y in alpha.
      const decoded = redGreen(await decodeUastcToRgba(tile.layers[1], T));
      const angle = normalAngleError(normal, decoded, true);
      expect(angle.mean).toBeLessThan(1);
      expect(angle.max).toBeLessThan(5);
    }
  });

  it('bakes image files out of core to UASTC that decode close to the same bake in raw rgba8', async () => {
    const { default: sharp } = await import('sharp');
    const dir = mkdtempSync(join(tmpdir(), 'tessera-uastc-'));
    try {
      const path = join(dir, 'photo.png');
      const size = 100;
      const rgb = new Uint8Array(size * size * 3);
      for (let i = 0; i < size * size; i++) {
        const x = i % size;
        const y = Math.floor(i / size);
        rgb.set([x * 2 + (y >> 2), 128 + 100 * Math.sin(x / 9) * Math.cos(y / 7), y * 2], i * 3);
      }
      await sharp(rgb, { raw: { width: size, height: size, channels: 3 } })
        .png()
        .toFile(path);
      const read = async (encoding: 'raw' | 'uastc-zstd') => {
        const sink = new MemoryArchiveSink();
        await bakeImageFiles(
          [{ name: 'albedo', colorSpace: 'srgb', path }],
          { tileSize: T, border: B, encoding },
          sink,
        );
        return ArchiveTileSource.open(new MemoryRangeReader(sink.toBytes()));
      };
      const raw = await read('raw');
      const uastc = await read('uastc-zstd');
      expect(uastc.info.layers[0].format).toBe('uastc-4x4-srgb');
      for (const [mip, x, y] of [
        [0, 0, 0],
        [0, 3, 2],
        [1, 1, 1],
        [2, 0, 0],
      ]) {
        const reference = (await raw.load(mip, x, y, live())).layers[0];
        const blocks = (await uastc.load(mip, x, y, live())).layers[0];
        expect(rgbPsnr(reference, await decodeUastcToRgba(blocks, T))).toBeGreaterThan(36);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bakes byte-identical archives twice (RDO and zstd included), and version 1 for rgba8 encodings', async () => {
    const first = await bakeWorld('uastc-zstd', 1);
    const second = await bakeWorld('uastc-zstd', 1);
    expect(Buffer.from(first.bytes).equals(Buffer.from(second.bytes))).toBe(true);
    const sink = new MemoryArchiveSink();
    await bakeProcedural(9, 2, { tileSize: T, border: B, encoding: 'png' }, sink);
    const png = sink.toBytes();
    expect(new DataView(png.buffer).getUint16(4, true)).toBe(1);
    expect(parseArchivePrefix(png).header.layers.map((l) => l.usage)).toEqual(['color', 'color']);
  });

  it('reads version 1 as before and refuses version-2 fields in it', async () => {
    const v1 = singleTileArchive(new Uint8Array(BLOCK_BYTES), 'uastc');
    const asVersion1 = (edit: (bytes: Uint8Array) => void) => {
      const bytes = v1.slice();
      new DataView(bytes.buffer).setUint16(4, 1, true);
      edit(bytes);
      return bytes;
    };
    // Layer record at 48: encoding at +32, usage at +34.
    expect(() => parseArchivePrefix(asVersion1(() => {}))).toThrow(/unknown encoding 5 for version 1/);
    expect(() =>
      parseArchivePrefix(
        asVersion1((b) => {
          b[48 + 32] = 2;
          b[48 + 34] = 1;
        }),
      ),
    ).toThrow(/layer padding/);
    const v2 = v1.slice();
    v2[48 + 34] = 3;
    expect(() => parseArchivePrefix(v2)).toThrow(/unknown usage 3/);
    // 1 and 2: a normal map with y in green or in alpha.
    for (const [usage, channels] of [
      [1, undefined],
      [2, 'red-alpha'],
    ] as const) {
      v2[48 + 34] = usage;
      const layer = parseArchivePrefix(v2).header.layers[0];
      expect([layer.usage, layer.normalChannels]).toEqual(['normal', channels]);
    }
    // The writer refuses y in alpha on a layer that is not a normal map.
    const header = parseArchivePrefix(v1).header;
    const colourWithAlphaY = { ...header.layers[0], normalChannels: 'red-alpha' as const };
    expect(
      () => new ArchiveWriter({ ...header, layers: [colourWithAlphaY] }, new MemoryArchiveSink()),
    ).toThrow(/bad normal channels red-alpha for usage color/);
  });

  it('writes one zstd frame per tile that declares its content size', async () => {
    const blocks = await encodeUastcTile(new Uint8Array(T * T * 4).fill(200), T, {
      colorSpace: 'srgb',
      usage: 'color',
    });
    const frame = await zstdCompress(blocks, 9);
    expect(zstdFrameContentSize(frame)).toBe(BLOCK_BYTES);
    const reference = new ZSTDDecoder();
    await reference.init();
    expect(reference.decode(frame, BLOCK_BYTES)).toEqual(blocks);
  });

  it('refuses tile sizes and borders that are not whole blocks, and bad UASTC options, before baking', async () => {
    const sink = new MemoryArchiveSink();
    const image = { data: new Uint8Array(40 * 40 * 4), width: 40, height: 40 };
    const layers = [{ name: 'c', colorSpace: 'srgb' as const, image }];
    for (const [options, code] of [
      [{ tileSize: 30, border: 4 }, 'invalid-tile'],
      [{ tileSize: 32, border: 2 }, 'invalid-tile'],
      [{ tileSize: 32, border: 4, rdoLambda: -1 }, 'invalid-option'],
      [{ tileSize: 32, border: 4, uastcEffort: 7 }, 'invalid-option'],
      [{ tileSize: 32, border: 4, zstdLevel: 0 }, 'invalid-option'],
    ] as const) {
      const error = await bakeImages(layers, { ...options, encoding: 'uastc-zstd' }, sink).catch((e) => e);
      expect(error).toBeInstanceOf(TesseraConfigError);
      expect(error.code).toBe(code);
    }
    // A header claiming UASTC tiles that are not whole blocks is corrupt for the reader too.
    const good = singleTileArchive(new Uint8Array(BLOCK_BYTES), 'uastc');
    const bad = good.slice();
    new DataView(bad.buffer).setUint16(14, 2, true);
    expect(() => parseArchivePrefix(bad)).toThrow(/multiples of 4/);
  });

  it('answers truncated, corrupt and wrong-size UASTC tiles with typed errors', async () => {
    const blocks = await encodeUastcTile(new Uint8Array(T * T * 4).fill(90), T, {
      colorSpace: 'srgb',
      usage: 'color',
    });
    const frame = await zstdCompress(blocks, 9);
    const wrongFrame = await zstdCompress(blocks.subarray(0, BLOCK_BYTES - 16), 9);
    const bigFrame = await zstdCompress(new Uint8Array(BLOCK_BYTES * 2), 9);
    // zstd frames here carry no checksum, so a flipped literal gives wrong but well-formed blocks;
    // a broken block header is what the reader can and must catch.
    const corrupt = frame.slice();
    corrupt[frameHeaderBytes(corrupt)] |= 0x06;
    const cases: [Uint8Array, 'uastc' | 'uastc-zstd', string][] = [
      [blocks.subarray(0, BLOCK_BYTES - 1), 'uastc', 'wrong-size'],
      [new Uint8Array(BLOCK_BYTES + 16), 'uastc', 'oversized'],
      [frame.subarray(0, frame.length - 5), 'uastc-zstd', 'decode-failed'],
      [corrupt, 'uastc-zstd', 'decode-failed'],
      [wrongFrame, 'uastc-zstd', 'wrong-size'],
      [bigFrame, 'uastc-zstd', 'oversized'],
      [blocks, 'uastc-zstd', 'decode-failed'],
    ];
    for (const [payload, encoding, code] of cases) {
      const source = await ArchiveTileSource.open(
        new MemoryRangeReader(singleTileArchive(payload, encoding)),
      );
      expect(await codeOf(source.load(0, 0, 0, live()))).toBe(code);
      source.dispose();
    }
  });

  it('keeps serving the other tiles when one UASTC tile is corrupt', async () => {
    const { bytes } = await bakeWorld('uastc-zstd');
    const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    // Corrupt the payload of page (0, 0) of mip 0, layer 0, after the index was read.
    const prefix = parseArchivePrefix(bytes);
    const view = new DataView(bytes.buffer);
    const entry = 48 + 40 * 2;
    const offset = view.getUint32(entry, true);
    const length = view.getUint32(entry + 8, true);
    bytes.fill(0, offset, offset + Math.min(length, 8));
    expect(prefix.header.mipCount).toBe(3);
    expect(await codeOf(source.load(0, 0, 0, live()))).toBe('decode-failed');
    const tile = await source.load(0, 1, 0, live());
    expect(tile.layers.map((l) => l.length)).toEqual([BLOCK_BYTES, BLOCK_BYTES]);
  });

  it('hands the inflated blocks back from a decode worker without a copy', async () => {
    const blocks = await encodeUastcTile(new Uint8Array(T * T * 4).fill(30), T, {
      colorSpace: 'srgb',
      usage: 'color',
    });
    const frame = await zstdCompress(blocks, 9);
    const { reply, transfer } = await handleDecodeRequest(
      { type: 'decode', id: 1, encoding: 'uastc-zstd', tileSize: T, bytes: frame },
      {},
      decodeImageInNode,
    );
    if (reply.type !== 'done') throw new Error(reply.message);
    expect(reply.texels).toEqual(blocks);
    // The reply transfers the buffer the inflated blocks were written to, whole.
    expect(transfer).toEqual([reply.texels.buffer]);
    expect(reply.texels.byteOffset).toBe(0);
    expect(reply.texels.buffer.byteLength).toBe(BLOCK_BYTES);
    // A raw UASTC payload is served as it arrived.
    const raw = blocks.slice();
    expect(await decodeTilePayload('uastc', raw, T, {})).toBe(raw);
  });
});
