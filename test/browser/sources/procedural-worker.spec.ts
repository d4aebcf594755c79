import { expect, test } from '../fixtures';

/** The page's API (test/browser/sources/pages/procedural-worker.ts). */
interface ProceduralWorkerPage {
  compare(count: number): Promise<{ checked: number; mismatched: number; layerBytes: number[] }>;
  abort(): Promise<{
    before: boolean;
    after: boolean;
    midBatch: boolean;
    othersLoaded: number;
    later: boolean;
  }>;
  measure(count: number, workers: number): Promise<{ workerTilesPerS: number; mainThreadTilesPerS: number }>;
}

const PAGE = 'test/browser/sources/pages/procedural-worker.html';

test.describe('WorkerProceduralTileSource in Chromium (real module Web Workers)', () => {
  // Generation uses no GPU: one run is enough, not one per renderer backend.
  test.skip(({ backend }) => backend !== 'webgpu', 'CPU-only: runs under the webgpu project only');

  test('workers return the same bytes as in-thread generation', async ({ page, openPage }) => {
    await openPage(PAGE);
    await expect(page).toHaveTitle('ready');
    const result = await page.evaluate(
      (n) => (globalThis as never as { proceduralWorker: ProceduralWorkerPage }).proceduralWorker.compare(n),
      24,
    );
    expect(result).toEqual({ checked: 24, mismatched: 0, layerBytes: [128 * 128 * 4, 128 * 128 * 4] });
  });

  test('abort rejects the aborted request only; the pool keeps serving', async ({ page, openPage }) => {
    await openPage(PAGE);
    await expect(page).toHaveTitle('ready');
    const result = await page.evaluate(() =>
      (globalThis as never as { proceduralWorker: ProceduralWorkerPage }).proceduralWorker.abort(),
    );
    expect(result).toEqual({ before: true, after: true, midBatch: true, othersLoaded: 3, later: true });
  });

  test('measures tiles per second (logged, not asserted)', async ({ page, openPage }, testInfo) => {
    await openPage(PAGE);
    await expect(page).toHaveTitle('ready');
    const oneWorker = await page.evaluate(
      (n) =>
        (globalThis as never as { proceduralWorker: ProceduralWorkerPage }).proceduralWorker.measure(n, 1),
      96,
    );
    const twoWorkers = await page.evaluate(
      (n) =>
        (globalThis as never as { proceduralWorker: ProceduralWorkerPage }).proceduralWorker.measure(n, 2),
      96,
    );
    const line =
      `procedural tiles/s (128², albedo+normal): 1 worker ${oneWorker.workerTilesPerS.toFixed(0)}, ` +
      `2 workers ${twoWorkers.workerTilesPerS.toFixed(0)}, main thread ${oneWorker.mainThreadTilesPerS.toFixed(0)}`;
    console.log(line);
    testInfo.annotations.push({ type: 'tiles_per_s', description: line });
    expect(oneWorker.workerTilesPerS).toBeGreaterThan(0);
  });
});
