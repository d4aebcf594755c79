/**
 * Smoke test of examples/cog: a Cloud-Optimized GeoTIFF (no baking) shows its coarse overview
 * within a few frames, settles, and a wheel zoom streams finer levels read by HTTP Range (page,
 * console and GPU errors fail the test through the fixture). The viewer's drag and double-click
 * are examples/shared/image-viewer.ts, tested through examples/deep-zoom.
 */

import type { Page } from '@playwright/test';
import { screenshotCanvas } from '../demo/demo-page';
import { expect, test } from '../fixtures';

interface CogExampleApi {
  view(): { zoom: number; firstViewFrame: number; settled: boolean };
  residentMips(): number[];
}

const api = <T>(page: Page, read: (example: CogExampleApi) => T) =>
  page.evaluate((body) => {
    const example = (window as unknown as { example: CogExampleApi }).example;
    return new Function('example', `return (${body})(example)`)(example);
  }, read.toString()) as Promise<T>;
const finestMip = (histogram: number[]) => histogram.findIndex((pages) => pages > 0);

test('examples/cog: the overview first, then a wheel zoom streams finer COG levels', async ({
  page,
  backend,
  openPage,
}) => {
  await page.setViewportSize({ width: 480, height: 300 });
  await openPage('examples/cog/index.html');
  await page.waitForFunction(() => 'example' in window);
  await expect.poll(() => api(page, (e) => e.view().firstViewFrame)).toBeGreaterThan(0);
  expect(await api(page, (e) => e.view().firstViewFrame)).toBeLessThanOrEqual(30);
  await expect.poll(() => api(page, (e) => e.view().settled), { timeout: 30_000 }).toBe(true);
  const whole = finestMip(await api(page, (e) => e.residentMips()));

  await page.mouse.move(300, 120);
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -300);
  await expect.poll(() => api(page, (e) => e.view().zoom)).toBeGreaterThan(4);
  await expect.poll(() => api(page, (e) => e.view().settled), { timeout: 30_000 }).toBe(true);
  const histogram = await api(page, (e) => e.residentMips());
  expect(finestMip(histogram), JSON.stringify(histogram)).toBeLessThan(whole);
  const variety = await screenshotCanvas(page, `test-results/examples/cog-${backend}.png`);
  expect(variety.distinctColours).toBeGreaterThan(50);
  console.log(
    `cog (${backend}): finest mip ${whole} -> ${finestMip(histogram)}, resident ${JSON.stringify(histogram)}`,
  );
});
