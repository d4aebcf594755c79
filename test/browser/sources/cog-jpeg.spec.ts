/**
 * JPEG COGs decode in the browser as GDAL decodes them: `openCogPyramid` with its defaults splices
 * each tile with the IFD's `JPEGTables` and decodes it in the runtime's decode workers with the
 * browser's JPEG decoder; the tiles are compared with sharp's reading of the whole TIFF in Node
 * (libtiff + libjpeg-turbo, GDAL's stack, no library code). geotiff's JPEG decoder, which
 * replicates chroma, is measured on the same tiles to show the comparison can fail.
 */

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSharpCog } from '../../support/imagery/cog-fixtures';
import {
  colourEdgeImage,
  DifferenceHistogram,
  geotiffJpegTile,
  referenceLevel0,
  withoutRgbMarkers,
} from '../../support/imagery/jpeg-cog-reference';
import { expect, test } from '../fixtures';
import { IMAGERY_DIR } from './imagery-fixtures';
import type { LoadedTile } from './pages/cog-jpeg';

declare const cogJpeg: { load(url: string, tiles: readonly [number, number][]): Promise<LoadedTile[]> };

const PAGE = '/test/browser/sources/pages/cog-jpeg.html';
const TILE = 256;

/** The JPEG COGs compared: written here (600 x 400, so edge tiles are padded) or from the assets. */
const FIXTURES = {
  // YCbCr 4:2:0, as GDAL's JPEG COG driver writes by default (libvips does below quality 90).
  'edges-ycbcr': async () =>
    writeSharpCog(colourEdgeImage(600, 400), { compression: 'jpeg', channels: 3, quality: 80 }),
  // RGB tiles whose streams carry no RGB marker: only the TIFF's photometric says RGB.
  'edges-rgb-bare': async () =>
    withoutRgbMarkers(
      await writeSharpCog(colourEdgeImage(600, 400), { compression: 'jpeg', channels: 3, quality: 90 }),
    ),
} as const;
type FixtureName = keyof typeof FIXTURES | 'earth';

/** The file's bytes and the URL the page opens, written once per run (renamed into place). */
async function fixture(name: FixtureName): Promise<{ bytes: Uint8Array; url: string }> {
  if (name === 'earth') {
    const path = 'assets/examples/earth-8192x4096.tif';
    return { bytes: new Uint8Array(readFileSync(path)), url: `/${path}` };
  }
  const path = join(IMAGERY_DIR, `jpeg-${name}.tif`);
  if (!existsSync(path)) {
    mkdirSync(IMAGERY_DIR, { recursive: true });
    const scratch = `${path}.tmp-${process.pid}`;
    writeFileSync(scratch, await FIXTURES[name]());
    renameSync(scratch, path);
  }
  return { bytes: new Uint8Array(readFileSync(path)), url: `/${path}` };
}

interface Comparison {
  max: number;
  psnr: number;
  withinOne: number;
}

/** Level-0 tiles `tiles` of `name` decoded in the page, and by geotiff, against the reference. */
async function compare(
  page: import('@playwright/test').Page,
  name: FixtureName,
  tiles: readonly [number, number][],
): Promise<{ browser: Comparison; geotiff: Comparison; opaque: boolean }> {
  const { bytes, url } = await fixture(name);
  const reference = await referenceLevel0(bytes);
  const loaded = await page.evaluate(([u, t]) => cogJpeg.load(u, t), [url, tiles] as const);
  const browser = new DifferenceHistogram();
  const replicated = new DifferenceHistogram();
  const across = Math.ceil(reference.width / TILE);
  let opaque = true;
  for (const tile of loaded) {
    expect([tile.width, tile.height]).toEqual([TILE, TILE]);
    const rgba = new Uint8Array(Buffer.from(tile.rgba, 'base64'));
    expect(rgba.length).toBe(TILE * TILE * 4);
    for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) opaque = false;
    browser.addTile(rgba, tile.x, tile.y, TILE, reference);
    replicated.addTile(
      await geotiffJpegTile(bytes, tile.y * across + tile.x),
      tile.x,
      tile.y,
      TILE,
      reference,
    );
  }
  return { browser: browser.summary(), geotiff: replicated.summary(), opaque };
}

/** Every tile of a 600 x 400 image in tiles of 256: 3 x 2, the right column and bottom row padded. */
const ALL_EDGE_TILES: [number, number][] = [0, 1, 2].flatMap((x) =>
  [0, 1].map((y): [number, number] => [x, y]),
);

test.describe('JPEG COG decoding in the browser', () => {
  test.beforeEach(async ({ page, openPage }) => {
    await openPage(PAGE);
    await page.waitForFunction(() => document.title === 'ready');
  });

  test('YCbCr 4:2:0 tiles with colour edges: within 1 level of GDAL, where geotiff is not', async ({
    page,
  }) => {
    const { browser, geotiff, opaque } = await compare(page, 'edges-ycbcr', ALL_EDGE_TILES);
    console.log(`edges-ycbcr: browser ${JSON.stringify(browser)}, geotiff ${JSON.stringify(geotiff)}`);
    expect(browser.max).toBeLessThanOrEqual(1);
    expect(opaque).toBe(true);
    expect(geotiff.max).toBeGreaterThan(16);
  });

  test("RGB tiles whose streams do not say RGB: decoded by the TIFF's photometric", async ({ page }) => {
    const { browser, opaque } = await compare(page, 'edges-rgb-bare', ALL_EDGE_TILES);
    console.log(`edges-rgb-bare: browser ${JSON.stringify(browser)}`);
    expect(browser.max).toBeLessThanOrEqual(1);
    expect(opaque).toBe(true);
  });

  test('the example Earth COG (YCbCr, quality 80): within 1 level of GDAL', async ({ page }) => {
    // Spread over the 32 x 16 grid: poles, the equator, coasts.
    const tiles: [number, number][] = [
      [0, 0],
      [5, 3],
      [12, 6],
      [17, 8],
      [22, 10],
      [31, 15],
    ];
    const { browser, geotiff, opaque } = await compare(page, 'earth', tiles);
    console.log(`earth: browser ${JSON.stringify(browser)}, geotiff ${JSON.stringify(geotiff)}`);
    expect(browser.max).toBeLessThanOrEqual(1);
    expect(opaque).toBe(true);
    expect(geotiff.max).toBeGreaterThan(1);
  });
});
