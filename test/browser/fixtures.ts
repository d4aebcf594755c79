import { test as base, expect, type Page } from '@playwright/test';

/** The two backends of three's WebGPURenderer every browser test runs on. */
export type Backend = 'webgpu' | 'webgl';

/** Options set per Playwright project (see playwright.config.ts). */
export interface BackendOptions {
  backend: Backend;
}

/** What the injected tracker (test/support/gpu-tracker.js) reports. */
export interface TrackerSnapshot {
  liveBytes: number;
  peakBytes: number;
  textures: number;
  buffers: number;
  devices: number;
  byPrefix: Record<string, { live: number; peak: number }>;
}

/** Reads the independent GPU allocation tracker of the current page. */
export interface GpuTracker {
  snapshot(): Promise<TrackerSnapshot>;
  resetPeak(): Promise<void>;
  /** Live bytes of allocations whose label starts with `prefix`. */
  liveBytesWithPrefix(prefix: string): Promise<number>;
}

/**
 * Every problem the page reported: page errors, console errors (and WebGPU/WebGL warnings),
 * uncaptured WebGPU errors and validation errors caught by the tracker's error scope. The fixture
 * fails the test on any of them left at teardown; `take()` hands them to a test that plants one.
 */
export interface ErrorLog {
  /** Flushes the GPU queues, collects GPU errors, and returns and clears everything seen so far. */
  take(): Promise<string[]>;
}

interface Fixtures {
  /** Opens a page under the repository root with `?backend=` set, and waits for it to load. */
  openPage(path: string, params?: Record<string, string | number>): Promise<void>;
  gpuTracker: GpuTracker;
  errorLog: ErrorLog;
}

/** Console messages that reveal a GPU problem even when logged as warnings. */
const GPU_WARNING = /WebGPU|WebGL|GL_INVALID|GL ERROR|THREE\.|validation/i;

async function gpuErrors(page: Page): Promise<string[]> {
  if (page.isClosed()) return [];
  return page.evaluate(async () => {
    const tracker = (globalThis as { __tesseraGpuTracker?: { checkErrors(): Promise<string[]> } })
      .__tesseraGpuTracker;
    return tracker ? tracker.checkErrors() : [];
  });
}

export const test = base.extend<Fixtures & BackendOptions>({
  backend: ['webgpu', { option: true }],

  page: async ({ page }, use) => {
    await page.addInitScript({ path: new URL('../support/gpu-tracker.js', import.meta.url).pathname });
    await use(page);
  },

  errorLog: [
    async ({ page }, use) => {
      const seen: string[] = [];
      page.on('pageerror', (error) => seen.push(`pageerror: ${error.message}`));
      page.on('crash', () => seen.push('page crashed'));
      page.on('console', (message) => {
        const type = message.type();
        if (type === 'error' || (type === 'warning' && GPU_WARNING.test(message.text()))) {
          seen.push(`console.${type}: ${message.text()}`);
        }
      });
      const log: ErrorLog = {
        async take() {
          const gpu = await gpuErrors(page);
          return [...seen.splice(0), ...gpu];
        },
      };
      await use(log);
      const left = await log.take();
      expect(left, 'page errors, console errors or GPU errors during the test').toEqual([]);
    },
    { auto: true },
  ],

  openPage: async ({ page, backend }, use) => {
    await use(async (path, params = {}) => {
      const query = new URLSearchParams({ backend });
      for (const [key, value] of Object.entries(params)) query.set(key, String(value));
      await page.goto(`${path}?${query}`, { waitUntil: 'load' });
    });
  },

  gpuTracker: async ({ page }, use) => {
    await use({
      snapshot: () =>
        page.evaluate(() =>
          (
            globalThis as never as { __tesseraGpuTracker: { snapshot(): TrackerSnapshot } }
          ).__tesseraGpuTracker.snapshot(),
        ),
      resetPeak: () =>
        page.evaluate(() =>
          (
            globalThis as never as { __tesseraGpuTracker: { resetPeak(): void } }
          ).__tesseraGpuTracker.resetPeak(),
        ),
      liveBytesWithPrefix: (prefix) =>
        page.evaluate(
          (p) =>
            (
              globalThis as never as { __tesseraGpuTracker: { liveBytesWithPrefix(p: string): number } }
            ).__tesseraGpuTracker.liveBytesWithPrefix(p),
          prefix,
        ),
    });
  },
});

export { expect };

/**
 * Tag of the tests `npm test` leaves out to stay within CI's time: further variants of what a
 * tagged-free test already covers (more formats, filters, meshes) and the demo's slow tours. Run
 * them with `npm run test:extended`.
 */
export const EXTENDED = '@extended';
