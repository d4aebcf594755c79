import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ArchiveTileSource } from '../../../src/sources/archive/archive-tile-source';
import { MemoryRangeReader } from '../../../src/sources/io/range-reader';
import {
  bakeTestArchive,
  expectedMip0Tile,
  rgbError,
  smoothTestImage,
  truncatedPayloadArchive,
} from '../../support/lossy-archives';
import { expect, test } from '../fixtures';

/** The page's API (test/browser/sources/pages/archive-default-decoder.ts). */
interface ArchiveDefaultDecoderPage {
  loadTiles(
    url: string,
    pages: [number, number, number][],
  ): Promise<{ texels: number[][]; workersCreated: string[]; hardwareConcurrency: number }>;
  loadFailing(url: string, pages: [number, number, number][]): Promise<string[]>;
  terminatedWorkers(): number;
}

/** An archive URL and the pages (mip, x, y) to load from it. */
type PageRequest = [string, [number, number, number][]];

const PAGE = 'test/browser/sources/pages/archive-default-decoder.html';
/** Under the test server's root (the repository), so the archives are served with Range support. */
const ARCHIVE_FOLDER = 'test-results/archive-default-decoder';
// Quality 90 on smooth content; WebP lossy always subsamples chroma, JPEG is baked 4:4:4.
const TOLERANCE = { jpeg: { max: 12, mean: 1.5 }, webp: { max: 16, mean: 2.5 } };
const MIP0_PAGES: [number, number, number][] = [
  [0, 0, 0],
  [0, 1, 0],
  [0, 1, 1],
];

const image = smoothTestImage();

test.describe('ArchiveTileSource.open(url) with the default decoder (browser codecs in workers)', () => {
  test.beforeAll(async () => {
    const folder = resolve(import.meta.dirname, '../../..', ARCHIVE_FOLDER);
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    for (const encoding of ['jpeg', 'webp', 'uastc-zstd'] as const) {
      writeFileSync(resolve(folder, `${encoding}.tsva`), await bakeTestArchive(encoding, image));
      writeFileSync(resolve(folder, `${encoding}-truncated.tsva`), await truncatedPayloadArchive(encoding));
    }
  });

  test('uastc-zstd tiles arrive as the baked UASTC blocks, inflated in the workers', async ({
    page,
    openPage,
  }) => {
    const pages: [number, number, number][] = [...MIP0_PAGES, [1, 0, 0]];
    await openPage(PAGE);
    await expect(page).toHaveTitle('ready');
    const result = await page.evaluate(
      ([url, pages]) =>
        (
          globalThis as never as { archiveDefaultDecoder: ArchiveDefaultDecoderPage }
        ).archiveDefaultDecoder.loadTiles(url, pages),
      [`/${ARCHIVE_FOLDER}/uastc-zstd.tsva`, pages] as PageRequest,
    );
    expect(result.workersCreated.length).toBeGreaterThan(0);
    for (const url of result.workersCreated) expect(url).toContain('decode-worker');
    // The same archive read in Node (inline decoder) gives the reference blocks.
    const source = await ArchiveTileSource.open(
      new MemoryRangeReader(await bakeTestArchive('uastc-zstd', image)),
    );
    expect(source.info.layers[0].format).toBe('uastc-4x4-srgb');
    for (const [k, [mip, x, y]] of pages.entries()) {
      const expected = (await source.load(mip, x, y, new AbortController().signal)).layers[0];
      expect(result.texels[k]).toHaveLength((64 / 4) ** 2 * 16);
      expect(result.texels[k]).toEqual(Array.from(expected));
    }
  });

  test('truncated uastc-zstd tiles reject with a typed error', async ({ page, openPage }) => {
    await openPage(PAGE);
    await expect(page).toHaveTitle('ready');
    const codes = await page.evaluate(
      ([url, pages]) =>
        (
          globalThis as never as { archiveDefaultDecoder: ArchiveDefaultDecoderPage }
        ).archiveDefaultDecoder.loadFailing(url, pages),
      [`/${ARCHIVE_FOLDER}/uastc-zstd-truncated.tsva`, [...MIP0_PAGES, [1, 0, 0], [0, 0, 1]]] as PageRequest,
    );
    expect(codes).toEqual(Array(5).fill('decode-failed'));
  });

  for (const encoding of ['jpeg', 'webp'] as const) {
    test(`${encoding} tiles decode to the baked texels`, async ({ page, openPage }) => {
      await openPage(PAGE);
      await expect(page).toHaveTitle('ready');
      const result = await page.evaluate(
        ([url, pages]) =>
          (
            globalThis as never as { archiveDefaultDecoder: ArchiveDefaultDecoderPage }
          ).archiveDefaultDecoder.loadTiles(url, pages),
        [`/${ARCHIVE_FOLDER}/${encoding}.tsva`, [...MIP0_PAGES, [1, 0, 0]]] as PageRequest,
      );
      const expectedWorkers = Math.max(1, Math.min(4, result.hardwareConcurrency - 1));
      expect(result.workersCreated).toHaveLength(expectedWorkers);
      for (const url of result.workersCreated) expect(url).toContain('decode-worker');
      MIP0_PAGES.forEach(([, x, y], k) => {
        const error = rgbError(result.texels[k], expectedMip0Tile(image, x, y));
        expect(error.max, `page (${x}, ${y}) max error`).toBeLessThanOrEqual(TOLERANCE[encoding].max);
        expect(error.mean, `page (${x}, ${y}) mean error`).toBeLessThanOrEqual(TOLERANCE[encoding].mean);
      });
      expect(result.texels[3]).toHaveLength(64 * 64 * 4);
      // The source disposed its decoder: every worker it started is gone.
      const terminated = await page.evaluate(() =>
        (
          globalThis as never as { archiveDefaultDecoder: ArchiveDefaultDecoderPage }
        ).archiveDefaultDecoder.terminatedWorkers(),
      );
      expect(terminated).toBe(expectedWorkers);
    });

    test(`undecodable ${encoding} tiles reject with a typed error and warn once`, async ({
      page,
      openPage,
    }) => {
      const warnings: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'warning' && message.text().startsWith('tessera:'))
          warnings.push(message.text());
      });
      await openPage(PAGE);
      await expect(page).toHaveTitle('ready');
      const codes = await page.evaluate(
        ([url, pages]) =>
          (
            globalThis as never as { archiveDefaultDecoder: ArchiveDefaultDecoderPage }
          ).archiveDefaultDecoder.loadFailing(url, pages),
        [
          `/${ARCHIVE_FOLDER}/${encoding}-truncated.tsva`,
          [...MIP0_PAGES, [1, 0, 0], [0, 0, 1]],
        ] as PageRequest,
      );
      expect(codes).toEqual([
        'decode-failed',
        'decode-failed',
        'decode-failed',
        'decode-failed',
        'decode-failed',
      ]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(encoding);
      expect(warnings[0]).toContain('decode-failed');
    });
  }
});
