/**
 * Small archives for the default-decoder tests (Node unit tests and the browser spec's Node
 * side): a smooth, photograph-like image baked with the real baker, the texels each mip-0 tile
 * should hold, and an archive whose every payload is a truncated image.
 */

import { ArchiveWriter, MemoryArchiveSink } from '../../src/sources/archive/archive-writer';
import { bakeImages } from '../../src/sources/bake/bake-archive';
import { extractTile, type MipImage, padToSize } from '../../src/sources/bake/mip-chain';
import { encodeTile } from '../../src/sources/bake/tile-encoder';
import type { PayloadEncodingName } from '../../src/sources/io/payload-encoding';

/** Tile side of the test archives, texels (border included). */
export const TEST_TILE_SIZE = 64;
/** Border of the test archives, texels. */
export const TEST_BORDER = 4;
const PAYLOAD = TEST_TILE_SIZE - 2 * TEST_BORDER;

/** A `width x height` rgba8 image of smooth gradients and a soft disc: what lossy codecs keep well. */
export function smoothTestImage(width = 2 * PAYLOAD, height = 2 * PAYLOAD): MipImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      const disc = Math.max(0, 1 - Math.hypot(u - 0.6, v - 0.4) * 3);
      const i = (y * width + x) * 4;
      data[i] = Math.round(40 + 180 * u);
      data[i + 1] = Math.round(60 + 140 * v * (1 - 0.5 * disc));
      data[i + 2] = Math.round(90 + 150 * disc);
      data[i + 3] = 255;
    }
  }
  return { data, width, height };
}

/** Bakes `image` (one sRGB layer) with `encoding` at quality 90; returns the archive's bytes. */
export async function bakeTestArchive(
  encoding: PayloadEncodingName,
  image: MipImage = smoothTestImage(),
): Promise<Uint8Array<ArrayBuffer>> {
  const sink = new MemoryArchiveSink();
  await bakeImages(
    [{ name: 'albedo', colorSpace: 'srgb', image }],
    { tileSize: TEST_TILE_SIZE, border: TEST_BORDER, encoding, quality: 90 },
    sink,
  );
  return sink.toBytes();
}

/** The rgba8 texels the baker put in mip-0 page (`x`, `y`) of {@link bakeTestArchive}(`image`), before encoding. */
export function expectedMip0Tile(image: MipImage, x: number, y: number): Uint8Array {
  const pagesWide = Math.ceil(image.width / PAYLOAD);
  const pagesHigh = Math.ceil(image.height / PAYLOAD);
  const level = padToSize(image, pagesWide * PAYLOAD, pagesHigh * PAYLOAD);
  const out = new Uint8Array(TEST_TILE_SIZE * TEST_TILE_SIZE * 4);
  extractTile(level, x, y, TEST_TILE_SIZE, TEST_BORDER, out);
  return out;
}

/**
 * A 2 x 2 page archive (2 mips) whose every payload is a valid `encoding` image cut to half its
 * length: the header parses (so the size check passes) and the codec itself fails.
 */
export async function truncatedPayloadArchive(
  encoding: 'jpeg' | 'webp' | 'uastc-zstd',
): Promise<Uint8Array<ArrayBuffer>> {
  const image = smoothTestImage();
  const sink = new MemoryArchiveSink();
  const writer = new ArchiveWriter(
    {
      widthPages: 2,
      heightPages: 2,
      tileSize: TEST_TILE_SIZE,
      border: TEST_BORDER,
      mipCount: 2,
      contentWidth: image.width,
      contentHeight: image.height,
      layers: [{ name: 'albedo', encoding, colorSpace: 'srgb' }],
    },
    sink,
  );
  const whole = await encodeTile(encoding, expectedMip0Tile(image, 0, 0), TEST_TILE_SIZE, { quality: 90 });
  const truncated = whole.slice(0, Math.floor(whole.length / 2));
  writer.addTile(1, 0, 0, [truncated]);
  for (let y = 0; y < 2; y++) for (let x = 0; x < 2; x++) writer.addTile(0, x, y, [truncated]);
  writer.finish();
  return sink.toBytes();
}

/** Largest and mean absolute difference over the RGB channels of two rgba8 arrays. */
export function rgbError(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
): { max: number; mean: number } {
  let max = 0;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < expected.length; i++) {
    if ((i & 3) === 3) continue;
    const d = Math.abs(actual[i] - expected[i]);
    if (d > max) max = d;
    sum += d;
    count++;
  }
  return { max, mean: sum / count };
}
