/**
 * Smoke test of examples/map: the whole Earth from its web-map tiles settles, the imagery's credit
 * line shows in its corner, and wheeling in with OrbitControls down to the ground streams the
 * finest zoom's pages (mip 0) and settles there. Page, console and GPU errors fail the test
 * through the fixture; tile errors are read from the system's `error` events.
 */

import type { Page } from '@playwright/test';
import { screenshotCanvas } from '../demo/demo-page';
import { EXTENDED, expect, test } from '../fixtures';

interface MapStats {
  altitude: number;
  settled: boolean;
  residentMips: number[];
  attribution: string;
  errors: string[];
}

const stats = (page: Page) =>
  page.evaluate(() => (window as unknown as { example: { stats(): MapStats } }).example.stats());
/** The finest mip with a resident page. */
const finestMip = (histogram: number[]) => histogram.findIndex((pages) => pages > 0);

/** Altitude (globe radii) where the finest zoom's texels are magnified on this 480 x 360 canvas. */
const GROUND_ALTITUDE = 0.05;

for (const source of ['xyz', 'pmtiles'] as const) {
  test(
    `examples/map (${source}): the whole Earth, then a wheel zoom to the ground streams the finest zoom`,
    source === 'pmtiles' ? { tag: EXTENDED } : {},
    async ({ page, backend, openPage }) => {
      // PMTiles reaches the same ImageryTileSource as XYZ; its reader is backend-independent.
      test.skip(source === 'pmtiles' && backend === 'webgl', 'the archive on WebGPU only (see above)');
      test.setTimeout(120_000);
      await page.setViewportSize({ width: 480, height: 360 });
      await openPage('examples/map/index.html', source === 'pmtiles' ? { source } : {});
      await page.waitForFunction(() => 'example' in window); // set once the pyramid is open
      await expect.poll(async () => (await stats(page)).settled, { timeout: 60_000 }).toBe(true);
      const whole = await stats(page);
      expect(whole.attribution).toContain('xplanet');
      await expect(page.locator('#attribution')).toBeVisible();
      const wholeFinest = finestMip(whole.residentMips);
      expect(wholeFinest).toBeGreaterThan(0);

      // OrbitControls' wheel: each step moves a share of the altitude, so a few reach the ground.
      await page.mouse.move(240, 180);
      for (let i = 0; i < 40 && (await stats(page)).altitude > GROUND_ALTITUDE; i++) {
        await page.mouse.wheel(0, -300);
        await page.waitForTimeout(100);
      }
      const ground = await stats(page);
      expect(ground.altitude).toBeLessThanOrEqual(GROUND_ALTITUDE);
      await expect.poll(async () => (await stats(page)).settled, { timeout: 60_000 }).toBe(true);
      const settled = await stats(page);
      expect(finestMip(settled.residentMips), JSON.stringify(settled.residentMips)).toBe(0);
      expect(settled.errors).toEqual([]);
      const variety = await screenshotCanvas(page, `test-results/examples/map-${source}-${backend}.png`);
      expect(variety.distinctColours).toBeGreaterThan(50);
      console.log(
        `map (${source}, ${backend}): whole Earth finest mip ${wholeFinest}, at altitude ${settled.altitude.toFixed(4)} resident ${JSON.stringify(settled.residentMips)}`,
      );
    },
  );
}
