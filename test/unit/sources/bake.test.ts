import { describe, expect, it } from 'vitest';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import { bakeImages, bakeProcedural } from '../../../src/sources/bake/bake-archive';
import { downsample } from '../../../src/sources/bake/mip-chain';
import { SRGB_BYTE_TO_LINEAR } from '../../../src/sources/color/srgb';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';

const T = 16;
const B = 2;
const P = T - 2 * B;
const live = () => new AbortController().signal;

function gradientImage(width: number, height: number) {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      data.set([(x * 7) & 0xff, (y * 5) & 0xff, ((x ^ y) * 3) & 0xff, 255], o);
    }
  }
  return { data, width, height };
}

async function bake(encoding: 'png' | 'deflate' | 'raw' = 'png') {
  const sink = new MemoryArchiveSink();
  const image = gradientImage(40, 30);
  const { header } = await bakeImages(
    [{ name: 'albedo', colorSpace: 'srgb', image }],
    { tileSize: T, border: B, encoding },
    sink,
  );
  return { bytes: sink.toBytes(), header, image };
}

describe('baker', { timeout: 30_000 }, () => {
  it('pads to whole power-of-two pages and keeps the content size', async () => {
    const { header } = await bake();
    expect(header).toMatchObject({
      widthPages: 4,
      heightPages: 4,
      mipCount: 3,
      contentWidth: 40,
      contentHeight: 30,
    });
  });

  it('is deterministic', async () => {
    expect((await bake()).bytes).toEqual((await bake()).bytes);
  });

  it('stores mip 0 texels exactly, with borders from neighbouring tiles', async () => {
    const { bytes, image } = await bake('deflate');
    const source = await ArchiveTileSource.open(new MemoryRangeReader(bytes));
    const tile = (await source.load(0, 1, 1, live())).layers[0];
    for (let j = 0; j < T; j++) {
      for (let i = 0; i < T; i++) {
        const gx = Math.min(P - B + i, image.width - 1);
        const gy = Math.min(P - B + j, image.height - 1);
        const o = (j * T + i) * 4;
        expect([...tile.subarray(o, o + 4)]).toEqual([
          ...image.data.subarray((gy * image.width + gx) * 4, (gy * image.width + gx) * 4 + 4),
        ]);
      }
    }
  });

  it('downsamples sRGB layers in linear light', () => {
    // Black and white average to mid-grey in light (sRGB 188), not byte 128.
    const src = {
      data: new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255]),
      width: 2,
      height: 2,
    };
    const srgb = downsample(src, 1, 1, true);
    expect(srgb.data[0]).toBe(188);
    expect(SRGB_BYTE_TO_LINEAR[srgb.data[0]]).toBeCloseTo(0.5, 2);
    expect(downsample(src, 1, 1, false).data[0]).toBe(128);
  });

  it('bakes the procedural world tile-identical to the live source', async () => {
    const sink = new MemoryArchiveSink();
    await bakeProcedural(9, 2, { tileSize: 32, border: 2, encoding: 'png' }, sink);
    const source = await ArchiveTileSource.open(new MemoryRangeReader(sink.toBytes()));
    expect(source.info.layers.map((l) => l.format)).toEqual(['rgba8unorm-srgb', 'rgba8unorm']);
    const { ProceduralWorld } = await import('../../../src/sources/procedural/procedural-world');
    const world = new ProceduralWorld({ seed: 9, widthPages: 2, tileSize: 32, border: 2 });
    const a = new Uint8Array(32 * 32 * 4);
    const n = new Uint8Array(32 * 32 * 4);
    world.generateTile(0, 1, 0, a, n);
    const tile = await source.load(0, 1, 0, live());
    expect(tile.layers[0]).toEqual(a);
    expect(tile.layers[1]).toEqual(n);
  });
});

describe('out-of-core baker', { timeout: 60_000 }, () => {
  it('produces the same tiles as the in-memory baker', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { default: sharp } = await import('sharp');
    const { bakeImageFiles } = await import('../../../src/sources/bake/bake-out-of-core');
    const dir = mkdtempSync(join(tmpdir(), 'tessera-ooc-'));
    try {
      const image = gradientImage(100, 45);
      const path = join(dir, 'in.png');
      await sharp(image.data, { raw: { width: 100, height: 45, channels: 4 } })
        .png()
        .toFile(path);
      const memory = new MemoryArchiveSink();
      await bakeImages(
        [{ name: 'albedo', colorSpace: 'srgb', image }],
        { tileSize: T, border: B, encoding: 'raw' },
        memory,
      );
      const streamed = new MemoryArchiveSink();
      const { header } = await bakeImageFiles(
        [{ name: 'albedo', colorSpace: 'srgb', path }],
        { tileSize: T, border: B, encoding: 'raw' },
        streamed,
      );
      expect(header).toMatchObject({ widthPages: 16, heightPages: 4, mipCount: 5 });
      const a = await ArchiveTileSource.open(new MemoryRangeReader(memory.toBytes()));
      const b = await ArchiveTileSource.open(new MemoryRangeReader(streamed.toBytes()));
      for (let mip = 0; mip < header.mipCount; mip++) {
        for (let y = 0; y < Math.max(1, 4 >> mip); y++) {
          for (let x = 0; x < 16 >> mip; x++) {
            const [ta, tb] = await Promise.all([a.load(mip, x, y, live()), b.load(mip, x, y, live())]);
            expect(tb.layers[0]).toEqual(ta.layers[0]);
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
