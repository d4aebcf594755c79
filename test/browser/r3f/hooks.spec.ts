/**
 * `@tessera-vt/react` beyond the example (test/browser/r3f/hooks-page.tsx, under React's
 * StrictMode): a provider making its own runtime from `budgetBytes`, in a canvas drawing only on
 * demand (the provider asks for frames until streaming settles), shows a COG through
 * `useImagery` and a page-owned archive through `useVirtualTexture`; at unmount every byte is back
 * in the budget, the runtime is disposed, and the page's archive was not (it is the page's). A
 * canvas left with R3F's default WebGLRenderer is refused with an error saying what to do.
 */

import type { Page } from '@playwright/test';
import { screenshotCanvas } from '../demo/demo-page';
import { expect, test } from '../fixtures';

interface HooksPage {
  setScene(scene: 'textures' | 'none' | 'webgl-renderer'): void;
  textures(): { earth: boolean; photo: boolean };
  liveBytes(): number;
  framesDrawn(): number;
  settled(): Promise<number> | undefined;
  runtimeDisposed(): boolean;
  ownedSourceLoads(): Promise<boolean>;
  refused(): string | null;
}

function call<T>(page: Page, fn: (hooks: HooksPage) => T | Promise<T>): Promise<T> {
  return page.evaluate(`(${fn.toString()})((window).hooksPage)`) as Promise<T>;
}

const R3F_CLOCK_WARNING =
  'console.warning: THREE.Clock: This module has been deprecated. Please use THREE.Timer instead.';

test('r3f hooks: imagery and a caller-owned source under a provider-made runtime, all given back at unmount', async ({
  page,
  backend,
  openPage,
  errorLog,
}) => {
  await page.setViewportSize({ width: 480, height: 300 });
  await openPage('test/browser/r3f/hooks.html');
  await page.waitForFunction(() => 'hooksPage' in window);
  await expect
    .poll(() => call(page, (hooks) => hooks.textures()), { timeout: 30_000 })
    .toEqual({
      earth: true,
      photo: true,
    });
  await call(page, (hooks) => hooks.settled());
  expect(await call(page, (hooks) => hooks.liveBytes())).toBeGreaterThan(0);
  // Settled, the demand loop stops: no frame is drawn for a while.
  await expect
    .poll(
      async () => {
        const before = await call(page, (hooks) => hooks.framesDrawn());
        await page.waitForTimeout(500);
        return (await call(page, (hooks) => hooks.framesDrawn())) === before;
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  const picture = await screenshotCanvas(page, `test-results/r3f/hooks-${backend}.png`);
  expect(picture.distinctColours).toBeGreaterThan(50);
  expect((await errorLog.take()).filter((message) => message !== R3F_CLOCK_WARNING)).toEqual([]);

  await call(page, (hooks) => hooks.setScene('none'));
  await expect.poll(() => call(page, (hooks) => hooks.textures())).toEqual({ earth: false, photo: false });
  expect(await call(page, (hooks) => hooks.liveBytes())).toBe(0);
  expect(await call(page, (hooks) => hooks.runtimeDisposed())).toBe(true);
  expect(await call(page, (hooks) => hooks.ownedSourceLoads())).toBe(true);
});

test('r3f hooks: a canvas without a WebGPURenderer is refused, saying how to make one', async ({
  page,
  openPage,
  errorLog,
}) => {
  // From the first render (a scene set later could race the page's effects).
  await openPage('test/browser/r3f/hooks.html', { scene: 'webgl-renderer' });
  await page.waitForFunction(() => 'hooksPage' in window);
  await expect
    .poll(() => call(page, (hooks) => hooks.refused()), { timeout: 20_000 })
    .toContain('Tessera needs a three.js WebGPURenderer');
  // React reports the error its boundary caught on the console: that, and nothing else.
  const unexpected = (await errorLog.take()).filter(
    (message) =>
      message !== R3F_CLOCK_WARNING && !message.includes('Tessera needs a three.js WebGPURenderer'),
  );
  expect(unexpected).toEqual([]);
});
