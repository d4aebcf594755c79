/**
 * The code block of the imagery guide the README links to (`docs/imagery.md`), copied literally as
 * a page's module: a COG on a plane beside a web map on a globe. What its placeholder URLs name is
 * served here: `/ortho.tif` a tiled pyramidal TIFF (sharp, as people make them; HTTP Range answered
 * 206) of a red and white checker, `https://tiles.example.com/{z}/{x}/{y}.jpg` blue tiles (with
 * CORS, as a tile host sends). Once streamed, the left of the canvas shows the checker, the right
 * the blue globe, with no page, console or GPU error. On the webgl project WebGPU is hidden, so
 * three's renderer falls back to WebGL2 by itself, as in a browser without it.
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { extractCodeBlock } from '../../package/support/readme-snippet';
import { writeSharpCog } from '../../support/imagery/cog-fixtures';
import { screenshotPixels } from '../demo/demo-page';
import { expect, test } from '../fixtures';
import { fallBackWithoutWebGPU, writeSnippetPage } from './snippet-page';

const ROOT = resolve(import.meta.dirname, '../../..');
/** Served by the test server (the repository root); ignored by git. */
const PAGE_DIR = 'test-results/readme-imagery';

/** A 1024² red and white checker of 64-texel squares, as the COG's image. */
function checker(): { data: Uint8Array; width: number; height: number } {
  const edge = 1024;
  const data = new Uint8Array(edge * edge * 4);
  for (let y = 0; y < edge; y++)
    for (let x = 0; x < edge; x++) {
      const red = ((x >> 6) + (y >> 6)) % 2 === 0;
      data.set(red ? [220, 30, 30, 255] : [245, 245, 245, 255], (y * edge + x) * 4);
    }
  return { data, width: edge, height: edge };
}

/**
 * Shares of the checker's red in the left third and of blue in the right third of a screenshot
 * (white is not counted: an empty canvas shows the page's white through it).
 */
function shares(pixels: { data: Buffer; width: number; height: number; channels: number }) {
  let red = 0;
  let blue = 0;
  const third = Math.floor(pixels.width / 3);
  for (let y = 0; y < pixels.height; y++)
    for (let x = 0; x < pixels.width; x++) {
      const o = (y * pixels.width + x) * pixels.channels;
      const [r, g, b] = [pixels.data[o], pixels.data[o + 1], pixels.data[o + 2]];
      if (x < third && r > 150 && g < 90 && b < 90) red++;
      if (x >= 2 * third && b > r + 80 && b > g + 40) blue++;
    }
  const n = third * pixels.height;
  return { red: red / n, blue: blue / n };
}

test('the imagery guide snippet, literally: a COG on a plane and a web map on a globe, both streamed', async ({
  page,
  backend,
}) => {
  const guide = readFileSync(resolve(ROOT, 'docs/imagery.md'), 'utf8');
  const code = extractCodeBlock(
    guide,
    '# Imagery: COG, PMTiles, XYZ, IIIF, Deep Zoom',
    'ts',
    'openCogPyramid(',
  );
  writeSnippetPage(PAGE_DIR, code);
  const cog = Buffer.from(await writeSharpCog(checker(), { compression: 'deflate', tileSize: 256 }));
  await page.route('**/ortho.tif', async (route) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(route.request().headers().range ?? '');
    if (range === null) return route.fulfill({ status: 200, body: cog });
    const start = Number(range[1]);
    const end = Math.min(cog.length - 1, range[2] ? Number(range[2]) : cog.length - 1);
    return route.fulfill({
      status: 206,
      body: cog.subarray(start, end + 1),
      headers: { 'content-range': `bytes ${start}-${end}/${cog.length}`, 'accept-ranges': 'bytes' },
    });
  });
  const tile = await sharp({
    create: { width: 256, height: 256, channels: 3, background: { r: 30, g: 70, b: 230 } },
  })
    .jpeg()
    .toBuffer();
  await page.route('https://tiles.example.com/**', (route) =>
    route.fulfill({
      status: 200,
      body: tile,
      headers: { 'content-type': 'image/jpeg', 'access-control-allow-origin': '*' },
    }),
  );
  // The tile server's TileJSON (Playwright tries the latest route first).
  await page.route('https://tiles.example.com/tiles.json', (route) =>
    route.fulfill({
      status: 200,
      json: {
        tilejson: '3.0.0',
        tiles: ['{z}/{x}/{y}.jpg'],
        maxzoom: 11,
        attribution: '© tiles.example.com',
      },
      headers: { 'access-control-allow-origin': '*' },
    }),
  );
  await fallBackWithoutWebGPU(page, backend);
  await page.goto(`/${PAGE_DIR}/index.html`, { waitUntil: 'load' });
  await expect(page.locator('canvas')).toBeAttached();
  let seen = { red: 0, blue: 0 };
  await expect
    .poll(
      async () => {
        seen = shares(await screenshotPixels(page, 'canvas', `${PAGE_DIR}/${backend}.png`));
        return Math.min(seen.red, seen.blue);
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBeGreaterThan(0.05);
  console.log(`[${backend}] imagery guide snippet: ${JSON.stringify(seen)}`);
});
