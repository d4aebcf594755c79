/**
 * Smoke test of examples/streamed-textures: a glTF scene loaded through Tessera's glTF plugin, its
 * fifteen KTX2 textures streamed under the slider's budget; the picture is not blank, and lowering
 * the slider below what the view holds brings the live bytes under the new budget (page, console
 * and GPU errors fail the test through the fixture).
 */

import { screenshotCanvas } from '../demo/demo-page';
import { expect, test } from '../fixtures';

const MIB = 1024 * 1024;

interface ExampleStats {
  budgetBytes: number;
  liveBytes: number;
  textures: number;
}

function stats(page: import('@playwright/test').Page): Promise<ExampleStats> {
  return page.evaluate(() => (window as unknown as { example: { stats(): ExampleStats } }).example.stats());
}

test('examples/streamed-textures: textures stream under the budget slider', async ({
  page,
  backend,
  openPage,
}) => {
  await page.setViewportSize({ width: 480, height: 300 });
  await openPage('examples/streamed-textures/index.html');
  await page.evaluate(() => (window as unknown as { example: { ready: Promise<void> } }).example.ready);
  await expect.poll(async () => (await stats(page)).textures).toBe(15);
  // Chains finer than the pinned ones (0.33 MiB for all fifteen) arrive within the 32 MiB budget
  // (2.1 MiB measured at this size).
  await expect.poll(async () => (await stats(page)).liveBytes, { timeout: 30_000 }).toBeGreaterThan(MIB);
  const first = await stats(page);
  expect(first.liveBytes).toBeLessThanOrEqual(first.budgetBytes);
  const variety = await screenshotCanvas(page, `test-results/examples/streamed-${backend}.png`);
  expect(variety.distinctColours).toBeGreaterThan(50);
  // The slider cuts the budget below what the view holds; the streamed mips are shed to fit.
  await page.locator('#budget').fill('1');
  await expect.poll(async () => (await stats(page)).budgetBytes).toBe(MIB);
  await expect.poll(async () => (await stats(page)).liveBytes, { timeout: 30_000 }).toBeLessThanOrEqual(MIB);
});
