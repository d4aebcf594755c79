import { encodeUastcKtx2 } from '../../support/uastc-encoder';
import { expect, test } from '../fixtures';

/** What the page (pages/transcoder-missing.ts) reports. */
interface MissingTranscoderRun {
  errors: { code: string; cause: string; message: string; atMs: number }[];
  settledAtMs: number;
  frames: number;
  stats: Record<string, number | boolean>;
  pixel: number[];
}

/** Issue #43 item 6 asks for the missing transcoder to be reported within this, in ms. */
const REPORT_WITHIN_MS = 5_000;
/** A folder the test server answers 404 for: what esbuild's defaults leave behind. */
const MISSING_FOLDER = '/no-such-basis-folder/';

/**
 * A `transcoderPath` that serves nothing (an app built with esbuild's defaults, three's Basis
 * files not copied): each system reports `transcoder-unavailable` on its `error` event and one
 * console warning naming the path and the fix, within 5 s; its textures fall back visibly (not
 * black) and `whenSettled()` resolves, with the failures in its stats.
 */
test.describe('a missing Basis transcoder fails loudly and settles', () => {
  for (const system of ['vt', 'streamed'] as const) {
    test(`${system === 'vt' ? 'VirtualTextureSystem' : 'TextureStreamingSystem'}: error event, one warning, settled`, async ({
      page,
      openPage,
    }) => {
      test.setTimeout(120_000);
      const warnings: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'warning') warnings.push(message.text());
      });
      let ktx2 = '';
      if (system === 'streamed') {
        const rgba = new Uint8Array(256 * 256 * 4);
        for (let i = 0; i < rgba.length; i += 4) rgba.set([40, 200, 90, 255], i);
        const file = await encodeUastcKtx2(rgba, 256, 256, { srgb: true, quality: 0, mipmaps: true });
        await page.route('**/ktx2-missing/*.ktx2', (route) => {
          const match = /^bytes=(\d+)-(\d+)$/.exec(route.request().headers().range ?? '');
          if (match === null) return route.fulfill({ status: 200, body: Buffer.from(file) });
          const start = Number(match[1]);
          const end = Math.min(Number(match[2]), file.length - 1);
          return route.fulfill({
            status: 206,
            body: Buffer.from(file.subarray(start, end + 1)),
            headers: { 'content-range': `bytes ${start}-${end}/${file.length}` },
          });
        });
        ktx2 = '/ktx2-missing/uastc.ktx2';
      }
      await openPage('/test/browser/sources/pages/transcoder-missing.html', {
        system,
        transcoderPath: MISSING_FOLDER,
        ktx2,
      });
      await expect(page).toHaveTitle('ready', { timeout: 60_000 });
      const run = await page.evaluate(
        (ms) =>
          (
            globalThis as never as { missingTranscoder: { run(ms: number): Promise<MissingTranscoderRun> } }
          ).missingTranscoder.run(ms),
        30_000,
      );
      console.log(
        `[missing transcoder ${system}] first error at ${run.errors[0]?.atMs.toFixed(0)} ms, ${run.errors.length} error events, settled at ${run.settledAtMs.toFixed(0)} ms (${run.frames} frames), stats ${JSON.stringify(run.stats)}, pixel ${run.pixel}`,
      );
      expect(run.errors.length).toBeGreaterThan(0);
      const first = run.errors[0];
      expect([first.code, first.cause]).toContain('transcoder-unavailable');
      expect(first.message).toContain(MISSING_FOLDER);
      expect(first.atMs).toBeLessThan(REPORT_WITHIN_MS);
      // One warning, naming the folder and the fix.
      const transcoderWarnings = warnings.filter((text) => text.includes('basis_transcoder'));
      expect(transcoderWarnings, warnings.join('\n')).toHaveLength(1);
      expect(transcoderWarnings[0]).toContain(MISSING_FOLDER);
      expect(transcoderWarnings[0]).toContain('examples/jsm/libs/basis/');
      expect(transcoderWarnings[0]).toContain('transcoderPath');
      // whenSettled() resolved, the failures counted, and the texture is not black.
      expect(run.settledAtMs).toBeGreaterThanOrEqual(0);
      expect(run.stats.failed).toBeGreaterThan(0);
      expect(run.stats.failedTotal).toBeGreaterThanOrEqual(run.stats.failed as number);
      expect(
        run.pixel.slice(0, 3).some((channel) => channel > 16),
        `pixel ${run.pixel}`,
      ).toBe(true);
    });
  }
});

/**
 * A worker whose script cannot start (here a 404; a Content-Security-Policy without
 * `worker-src blob:` acts the same) rejects its jobs with a typed error within 5 s, and later jobs
 * at once: nothing waits on a worker that never started.
 */
test('a worker that cannot start rejects its jobs, typed, and never hangs', async ({
  page,
  openPage,
  errorLog,
}) => {
  await openPage('/test/browser/sources/pages/transcoder-missing.html', {
    system: 'none',
    transcoderPath: '',
  });
  await expect(page).toHaveTitle('ready', { timeout: 60_000 });
  const result = await page.evaluate(
    (url) =>
      (
        globalThis as never as {
          missingTranscoder: {
            unstartableWorkers(url: string): Promise<{ first: string; later: string; firstMs: number }>;
          };
        }
      ).missingTranscoder.unstartableWorkers(url),
    '/no-such-worker-script.js',
  );
  console.log(`[unstartable worker] ${JSON.stringify(result)}`);
  expect(result.first).toMatch(/^decode-failed: the procedural worker could not start/);
  expect(result.later).toMatch(/^decode-failed: the procedural worker could not start/);
  expect(result.firstMs).toBeLessThan(REPORT_WITHIN_MS);
  // The browser's own report of the 404 script is expected; nothing else may be logged.
  const logged = await errorLog.take();
  expect(logged.filter((line) => !/404|no-such-worker-script/.test(line))).toEqual([]);
});

/**
 * A worker that started (the library's procedural worker, which posts its ready handshake) and
 * throws on its first job rejects that job as a crash on a job, never as a worker that could not
 * start (which would blame a Content-Security-Policy and write the pool off).
 */
test('a worker that crashes on its first job is reported as crashed, not as unable to start', async ({
  page,
  openPage,
  errorLog,
}) => {
  await openPage('/test/browser/sources/pages/transcoder-missing.html', {
    system: 'none',
    transcoderPath: '',
  });
  await expect(page).toHaveTitle('ready', { timeout: 60_000 });
  const result = await page.evaluate(() =>
    (
      globalThis as never as {
        missingTranscoder: { crashingWorkers(): Promise<{ first: string; later: string }> };
      }
    ).missingTranscoder.crashingWorkers(),
  );
  console.log(`[crashing worker] ${JSON.stringify(result)}`);
  expect(result.first).toMatch(/^decode-failed: procedural worker crashed on a job: .*widthPages/);
  expect(result.later).toMatch(/^decode-failed: procedural worker crashed on a job: .*widthPages/);
  // The browser may report the worker's uncaught exception; nothing else may be logged.
  const logged = await errorLog.take();
  expect(logged.filter((line) => !/widthPages/.test(line))).toEqual([]);
});
