import type { Page } from '@playwright/test';
import { EXTENDED, expect, test } from '../fixtures';
import { IMAGERY_DIR, type ImagerySourceName, imageryFixtures } from './imagery-fixtures';

interface ErrorStats {
  pixels: number;
  max: number;
  psnr: number;
}

interface Comparison {
  all: ErrorStats;
  pageEdges: ErrorStats;
  tileEdges: ErrorStats;
  rest: ErrorStats;
  mipSwitch: ErrorStats;
  mipPixels: number[];
}

interface ImagerySeamsApi {
  settle(maxFrames?: number): Promise<number>;
  setView(view: string): void;
  compare(): Promise<Comparison>;
  frames(): Promise<{ width: number; height: number; vt: number[]; reference: number[] }>;
  content(): {
    width: number;
    height: number;
    mipCount: number;
    referenceLevels: number;
    pyramidLevels: number;
  };
}
declare const imagerySeams: ImagerySeamsApi;

type View = 'straight' | 'oblique' | 'distant';

/** Agreement with plain three.js over the plane, dB, per view. */
const MIN_PSNR: Record<View, number> = {
  straight: 45,
  oblique: 45,
  // Against plain three.js's mips, which halve both sides (see the distant test).
  distant: 28,
};

/**
 * How much worse the pixels along page and tile edges may be than the rest: a seam (a border
 * that is not the neighbour's texels) puts its whole error there, where nothing else does.
 */
const EDGE_MAX_SLACK = 0;
const EDGE_PSNR_SLACK = 3;

async function saveFrames(page: Page, name: string): Promise<void> {
  const { default: sharp } = await import('sharp');
  const shots = await page.evaluate(() => imagerySeams.frames());
  for (const which of ['vt', 'reference'] as const) {
    await sharp(Buffer.from(shots[which]), { raw: { width: shots.width, height: shots.height, channels: 4 } })
      .png()
      .toFile(`${IMAGERY_DIR}/${name}-${which}.png`);
  }
}

/** Opens the page on `source`, settles each view and returns its comparison. */
async function measure(
  page: Page,
  openPage: (path: string, params?: Record<string, string | number>) => Promise<void>,
  source: ImagerySourceName,
  views: readonly View[],
  extra: Record<string, string> = {},
): Promise<Record<string, Comparison>> {
  const fixtures = await imageryFixtures();
  await openPage('/test/browser/sources/pages/imagery-seams.html', {
    source,
    url: fixtures[source].url,
    ...(fixtures[source].maxZoom === undefined ? {} : { maxZoom: fixtures[source].maxZoom }),
    view: views[0],
    ...extra,
  });
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  const content = await page.evaluate(() => imagerySeams.content());
  expect(content).toMatchObject({ width: fixtures[source].width, height: fixtures[source].height });
  const out: Record<string, Comparison> = {};
  for (const view of views) {
    await page.evaluate((v) => imagerySeams.setView(v), view);
    const frames = await page.evaluate(() => imagerySeams.settle());
    expect(frames, `${view}: settled`).toBeGreaterThan(0);
    out[view] = await page.evaluate(() => imagerySeams.compare());
    const tag = `${source}-${view}-${extra.filtering ?? 'trilinear'}${extra.plant ? `-${extra.plant}` : ''}`;
    const r = out[view];
    const line =
      `${tag}: ${r.all.psnr.toFixed(1)} dB (max ${r.all.max}), page edges ${r.pageEdges.psnr.toFixed(1)} dB ` +
      `max ${r.pageEdges.max} (${r.pageEdges.pixels} px), tile edges ${r.tileEdges.psnr.toFixed(1)} dB ` +
      `max ${r.tileEdges.max} (${r.tileEdges.pixels} px), rest ${r.rest.psnr.toFixed(1)} dB max ${r.rest.max} ` +
      `(${r.rest.pixels} px), at bilinear mip flips ${r.mipSwitch.psnr.toFixed(1)} dB max ${r.mipSwitch.max} ` +
      `(${r.mipSwitch.pixels} px), pixels per mip ${r.mipPixels.join('/')}, ${frames} frames`;
    test.info().annotations.push({ type: 'psnr', description: line });
    console.log(line);
    if (!extra.plant && r.all.psnr < MIN_PSNR[view]) await saveFrames(page, tag);
  }
  return out;
}

function expectNoSeam(result: Comparison, label: string): void {
  const detail = `${label}: ${JSON.stringify(result)}`;
  expect(result.pageEdges.pixels, detail).toBeGreaterThan(1000);
  expect(result.rest.pixels, detail).toBeGreaterThan(1000);
  for (const edges of [result.pageEdges, result.tileEdges]) {
    if (edges.pixels === 0) continue;
    expect(edges.max, detail).toBeLessThanOrEqual(result.rest.max + EDGE_MAX_SLACK);
    expect(edges.psnr, detail).toBeGreaterThanOrEqual(result.rest.psnr - EDGE_PSNR_SLACK);
  }
}

/**
 * One entry per format: the fast subset (`extended: false`) runs in `npm test`, the rest with
 * `npm run test:extended`. `filtering` other than trilinear checks the other mip rule on one source.
 */
const CASES: { source: ImagerySourceName; filtering: 'trilinear' | 'bilinear'; extended: boolean }[] = [
  // Not a power of two: partial edge tiles and levels that round up, overlap stripped.
  { source: 'dzi', filtering: 'trilinear', extended: false },
  { source: 'dzi', filtering: 'bilinear', extended: true },
  { source: 'cog', filtering: 'trilinear', extended: true },
  // A whole-world web map: longitude wraps, borders at the antimeridian from the other side.
  { source: 'xyz', filtering: 'trilinear', extended: true },
  { source: 'pmtiles', filtering: 'trilinear', extended: true },
  { source: 'iiif', filtering: 'trilinear', extended: true },
];

/**
 * Each format as a virtual texture equals plain three.js drawing the pyramid's own levels as a
 * mipmapped texture, straight on (magnified, across pages and source tiles) and tilted (several
 * mips), with no seam: the pixels along page and source-tile edges are no worse than the rest.
 */
for (const { source, filtering, extended } of CASES) {
  test(
    `${source} (${filtering}): no seams, as plain three.js draws the pyramid's levels`,
    extended ? { tag: EXTENDED } : {},
    async ({ page, openPage }) => {
      test.setTimeout(180_000);
      const views = ['straight', 'oblique'] as const;
      const results = await measure(page, openPage, source, views, { filtering });
      for (const view of views) {
        expect(results[view].all.psnr, `${view}: ${JSON.stringify(results[view])}`).toBeGreaterThanOrEqual(
          MIN_PSNR[view],
        );
        expectNoSeam(results[view], view);
      }
    },
  );
}

/**
 * The seam measure sees a seam: pages whose border repeats their own edge texels (as composing
 * each page from its own tiles alone would give) fail it, while the plane's PSNR alone would not.
 */
test('a planted seam (borders not from the neighbours) fails the seam measure', { tag: EXTENDED }, async ({
  page,
  openPage,
}) => {
  test.setTimeout(180_000);
  const { straight } = await measure(page, openPage, 'dzi', ['straight'], { plant: 'border' });
  const detail = JSON.stringify(straight);
  expect(straight.pageEdges.max, detail).toBeGreaterThan(straight.rest.max + EDGE_MAX_SLACK);
  expect(straight.pageEdges.psnr, detail).toBeLessThan(straight.rest.psnr - EDGE_PSNR_SLACK);
});

/**
 * From far away a non-square texture reads its mips past the short side, which halve only the
 * long side (the page table keeps one page across the short side). Plain three.js's mips halve
 * both sides, so the two differ by a blur; an image squashed into part of the plane (each mip
 * halved both ways) gives about 4 dB, the right mips about 32.
 */
test('distant: the mips past the short side halve only the long side', { tag: EXTENDED }, async ({
  page,
  openPage,
}) => {
  test.setTimeout(120_000);
  const results = await measure(page, openPage, 'dzi', ['distant'], { filtering: 'bilinear' });
  expect(results.distant.all.psnr, JSON.stringify(results.distant)).toBeGreaterThanOrEqual(MIN_PSNR.distant);
});
