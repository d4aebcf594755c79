/**
 * Smoke test of examples/r3f (`@tessera-vt/react`): React Three Fiber mounts a `<Canvas>` whose
 * async `gl` factory makes three's WebGPURenderer, `<TesseraProvider>` on the example's runtime
 * makes both systems, the photograph plane (a virtual texture) and the valley glTF (streamed KTX2
 * textures) draw and settle; unmounting the glTF removes its streamed textures, and unmounting the
 * canvas gives every byte back to the runtime's budget before the runtime itself is disposed, and
 * (on WebGPU) the independent GPU tracker sees no Tessera allocation left. The page runs under React's
 * StrictMode (every effect mounted, unmounted and mounted again), and the glTF is mounted a second
 * time after its first unmount.
 * Page, console and GPU errors fail the test through the fixture.
 */

import type { Page } from '@playwright/test';
import { screenshotCanvas } from '../demo/demo-page';
import { expect, test } from '../fixtures';

interface ExampleStats {
  liveBytes: number;
  budgetBytes: number;
  streamedTextures: number;
  photoAdded: boolean;
}

interface ExampleHandle {
  runtime: { whenSettled(): Promise<number>; dispose(): void };
  setValley(show: boolean): void;
  setMounted(mounted: boolean): void;
  stats(): ExampleStats;
}

function stats(page: Page): Promise<ExampleStats> {
  return page.evaluate(() => (window as unknown as { example: ExampleHandle }).example.stats());
}

/** Resolves once every system of the runtime is settled (the runtime's own `whenSettled`). */
function settled(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { example: ExampleHandle }).example.runtime.whenSettled());
}

/**
 * React Three Fiber 9.8 makes a `THREE.Clock` for its frame loop, which three r187 deprecated: the
 * one warning the page may log, and only R3F's store logs it (the fixture fails on any other).
 */
const R3F_CLOCK_WARNING =
  'console.warning: THREE.Clock: This module has been deprecated. Please use THREE.Timer instead.';

test('examples/r3f: provider and hooks draw, settle, and give every byte back at unmount', async ({
  page,
  backend,
  openPage,
  errorLog,
  gpuTracker,
}) => {
  await page.setViewportSize({ width: 480, height: 300 });
  await openPage('examples/r3f/index.html');
  await page.waitForFunction(() => 'example' in window);
  // The valley glTF has five KTX2 textures (bark, leaves, rock, roof, wall).
  await expect.poll(async () => (await stats(page)).streamedTextures, { timeout: 30_000 }).toBe(5);
  await expect.poll(async () => (await stats(page)).photoAdded, { timeout: 30_000 }).toBe(true);
  await settled(page);
  expect((await errorLog.take()).filter((message) => message !== R3F_CLOCK_WARNING)).toEqual([]);
  const shown = await stats(page);
  expect(shown.liveBytes).toBeGreaterThan(0);
  expect(shown.liveBytes).toBeLessThanOrEqual(shown.budgetBytes);
  // The independent tracker sees Tessera's GPU objects (labelled `tessera:`; it wraps the WebGPU
  // device, and on WebGL2 only the runtime's own accounting is checked).
  if (backend === 'webgpu') expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBeGreaterThan(0);
  const picture = await screenshotCanvas(page, `test-results/examples/r3f-${backend}.png`);
  expect(picture.distinctColours).toBeGreaterThan(50);

  // The scene changes: the glTF's component unmounts and its streamed textures leave the budget.
  await page.evaluate(() => (window as unknown as { example: ExampleHandle }).example.setValley(false));
  await expect.poll(async () => (await stats(page)).streamedTextures).toBe(0);
  const withoutValley = await stats(page);
  expect(withoutValley.liveBytes).toBeLessThan(shown.liveBytes);
  expect(withoutValley.photoAdded).toBe(true);
  await settled(page);

  // Mounted again, the glTF loads again (its first load was let go) and streams its textures.
  await page.evaluate(() => (window as unknown as { example: ExampleHandle }).example.setValley(true));
  await expect.poll(async () => (await stats(page)).streamedTextures, { timeout: 30_000 }).toBe(5);
  await settled(page);

  // Everything unmounts: the provider disposes the systems it made on the example's runtime, and
  // the runtime's budget holds nothing while the runtime is still alive.
  await page.evaluate(() => (window as unknown as { example: ExampleHandle }).example.setMounted(false));
  await expect.poll(async () => (await stats(page)).liveBytes).toBe(0);
  if (backend === 'webgpu') expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBe(0);
  await expect(page.locator('canvas')).toHaveCount(0);
  await page.evaluate(() => (window as unknown as { example: ExampleHandle }).example.runtime.dispose());
});
