/**
 * Smoke test of examples/deep-zoom: the first view (the pinned coarse mip) comes within a few
 * frames, then a wheel zoom at the cursor, a drag and a double-click (and shift + double-click)
 * each change the view, and the page streams finer mips than the first view had (page, console
 * and GPU errors fail the test through the fixture).
 */

import type { Page } from '@playwright/test';
import { screenshotCanvas } from '../demo/demo-page';
import { expect, test } from '../fixtures';

interface DeepZoomView {
  x: number;
  y: number;
  zoom: number;
  firstViewFrame: number;
  settled: boolean;
}

interface DeepZoomApi {
  view(): DeepZoomView;
  residentMips(): number[];
}

const view = (page: Page) =>
  page.evaluate(() => (window as unknown as { example: DeepZoomApi }).example.view());
const residentMips = (page: Page) =>
  page.evaluate(() => (window as unknown as { example: DeepZoomApi }).example.residentMips());
/** The finest mip with a resident page. */
const finestMip = (histogram: number[]) => histogram.findIndex((pages) => pages > 0);

/** Frames (system updates) until the first one with the whole photo textured (its coarse mips). */
const MAX_FIRST_VIEW_FRAMES = 30;

test('examples/deep-zoom: fast first view, then wheel, drag and double-click stream finer mips', async ({
  page,
  backend,
  openPage,
}) => {
  await page.setViewportSize({ width: 480, height: 300 });
  await openPage('examples/deep-zoom/index.html');
  await page.waitForFunction(() => 'example' in window); // set once the archive is open
  await expect.poll(async () => (await view(page)).firstViewFrame).toBeGreaterThan(0);
  const first = await view(page);
  expect(first.firstViewFrame).toBeLessThanOrEqual(MAX_FIRST_VIEW_FRAMES);
  await expect.poll(async () => (await view(page)).settled, { timeout: 30_000 }).toBe(true);
  const whole = finestMip(await residentMips(page));

  // Wheel zoom about a point right of centre: the zoom grows and the view moves towards the point.
  await page.mouse.move(360, 150);
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -300);
  await expect.poll(async () => (await view(page)).zoom).toBeGreaterThan(first.zoom * 4);
  const zoomed = await view(page);
  expect(zoomed.x).toBeGreaterThan(first.x);

  // Drag left: the view pans right by the dragged distance at this zoom.
  await page.mouse.move(300, 150);
  await page.mouse.down();
  await page.mouse.move(200, 150, { steps: 5 });
  await page.mouse.up();
  const dragged = await view(page);
  expect(dragged.x).toBeGreaterThan(zoomed.x);
  expect(dragged.zoom).toBe(zoomed.zoom);

  await page.mouse.dblclick(240, 150);
  await expect.poll(async () => (await view(page)).zoom).toBeCloseTo(dragged.zoom * 2, 5);
  // Shift + double-click zooms out about the cursor: at the centre the view stays where it is.
  await page.keyboard.down('Shift');
  await page.mouse.dblclick(240, 150);
  await page.keyboard.up('Shift');
  await expect.poll(async () => (await view(page)).zoom).toBeCloseTo(dragged.zoom, 5);
  expect((await view(page)).x).toBeCloseTo(dragged.x, 9);

  // Settled at the new view: its pages are finer than the whole photo's.
  await expect.poll(async () => (await view(page)).settled, { timeout: 30_000 }).toBe(true);
  const histogram = await residentMips(page);
  expect(finestMip(histogram), JSON.stringify(histogram)).toBeLessThan(whole);
  const variety = await screenshotCanvas(page, `test-results/examples/deep-zoom-${backend}.png`);
  expect(variety.distinctColours).toBeGreaterThan(50);
  console.log(
    `deep zoom (${backend}): first view at frame ${first.firstViewFrame}, finest mip ${whole} -> ${finestMip(histogram)}, resident ${JSON.stringify(histogram)}`,
  );
});
