/**
 * The demo's debug views (both backends), driven through `demo.setDebugView`: mip colouring and
 * tile borders change the terrain's shading (tinted pixels, yellow page borders), the feedback
 * buffer and residency map overlays appear at their sizes with real content, and switching them
 * off restores the picture and removes the overlays. The fixture fails on any GPU validation,
 * page or console error, so recompiling the material mid-stream is covered too.
 */

import type { Page } from '@playwright/test';
import { poseNear } from '../../../demo/regions';
import { EXTENDED, expect, test } from '../fixtures';
import {
  DEMO_PAGE,
  demoReady,
  demoStats,
  isolateFromDevServerReloads,
  renderFrames,
  screenshotPixels,
  settle,
  teleport,
} from './demo-page';

type View = 'mipColours' | 'tileBorders' | 'feedbackBuffer' | 'residencyMap';

const setView = (page: Page, view: View, on: boolean) =>
  page.evaluate(([v, e]) => window.demo.setDebugView(v as View, e as boolean), [view, on] as const);

/** Fraction of pixels that are the border yellow (strong red and green, little blue). */
function yellowFraction(data: Buffer, channels: number): number {
  let yellow = 0;
  for (let i = 0; i < data.length; i += channels) {
    if (data[i] > 200 && data[i + 1] > 170 && data[i + 2] < 70) yellow++;
  }
  return yellow / (data.length / channels);
}

/** Mean absolute difference per channel between two same-sized pictures (0..255). */
function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

function distinctColours(data: Buffer, channels: number): number {
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += channels)
    colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  return colours.size;
}

test('demo debug views: mip colours, tile borders, feedback buffer and residency map', {
  tag: EXTENDED,
}, async ({ page, backend, openPage }) => {
  test.setTimeout(4 * 60_000);
  await isolateFromDevServerReloads(page);
  await openPage(DEMO_PAGE, { auto: 0, size: '320x180', hud: 0, budget: 96, seed: 7 });
  await demoReady(page);
  await teleport(page, poseNear('valley', -280, 260, 70, -0.9, -0.22));
  await settle(page, 200);
  const dir = `test-results/demo/debug-${backend}`;
  const canvas = 'canvas[data-engine]';
  const plain = await screenshotPixels(page, canvas, `${dir}/plain.png`);

  await setView(page, 'mipColours', true);
  await renderFrames(page, 3);
  const tinted = await screenshotPixels(page, canvas, `${dir}/mip-colours.png`);
  expect(meanDifference(plain.data, tinted.data), 'mip colouring changes the picture').toBeGreaterThan(15);

  await setView(page, 'mipColours', false);
  await setView(page, 'tileBorders', true);
  await renderFrames(page, 3);
  const borders = await screenshotPixels(page, canvas, `${dir}/tile-borders.png`);
  const bordersYellow = yellowFraction(borders.data, borders.channels);
  expect(bordersYellow, 'page borders drawn').toBeGreaterThan(0.01);
  expect(bordersYellow).toBeGreaterThan(5 * yellowFraction(plain.data, plain.channels));

  await setView(page, 'tileBorders', false);
  await setView(page, 'feedbackBuffer', true);
  await setView(page, 'residencyMap', true);
  await renderFrames(page, 12);
  const feedback = page.locator('canvas[data-debug-view="feedback buffer"]');
  const residency = page.locator('canvas[data-debug-view="residency map"]');
  // The feedback pass renders at 1/8 of the 320x180 canvas (device pixel ratio 1); the overlay is
  // drawn when a readback arrives (WebGL2's fenced readbacks may take a few more frames).
  await expect
    .poll(async () => {
      await renderFrames(page, 2);
      return feedback.evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
    })
    .toEqual([40, 23]);
  expect(await residency.evaluate((c: HTMLCanvasElement) => [c.width, c.height])).toEqual([256, 256]);
  const fb = await screenshotPixels(page, 'canvas[data-debug-view="feedback buffer"]', `${dir}/feedback.png`);
  expect(distinctColours(fb.data, fb.channels), 'feedback shows several pages and mips').toBeGreaterThan(4);
  const map = await screenshotPixels(page, 'canvas[data-debug-view="residency map"]', `${dir}/residency.png`);
  expect(distinctColours(map.data, map.channels), 'residency map shows several mips').toBeGreaterThan(4);

  await setView(page, 'feedbackBuffer', false);
  await setView(page, 'residencyMap', false);
  await expect(feedback).toHaveCount(0);
  await expect(residency).toHaveCount(0);
  await renderFrames(page, 3);
  const after = await screenshotPixels(page, canvas, `${dir}/after.png`);
  expect(meanDifference(plain.data, after.data), 'views off: the plain picture again').toBeLessThan(4);
  expect((await demoStats(page)).errors).toEqual([]);
});
