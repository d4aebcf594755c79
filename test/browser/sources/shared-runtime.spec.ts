/**
 * One runtime, one of each: virtual textures from two tile archives (one UASTC), three imagery
 * layers (XYZ, PMTiles, COG) and a streamed glTF with KTX2 textures, all given one `TesseraRuntime`, open one
 * network client (every source's counters are the runtime's, and the server never has more of
 * this scene's requests in flight than the client's per-host cap), one pool of decode workers,
 * one of transcoder workers; disposing the runtime and the sources stops every worker and frees
 * every budgeted byte.
 */

import { expect, test } from '../fixtures';
import { type LatencyFileStats, SESSION_TOTAL } from '../latency-file-service';
import type { SharedRuntimeRun } from './pages/shared-runtime';

const PAGE = 'test/browser/sources/pages/shared-runtime.html';
/** The client's default cap on requests in flight per host. */
const PER_HOST = 6;

test('one runtime: one client (one per-host cap), one decode pool, one transcoder pool, all stopped by dispose', async ({
  page,
  openPage,
}) => {
  test.setTimeout(240_000);
  await openPage(PAGE);
  await expect(page).toHaveTitle('ready');
  const session = `shared-runtime-${Date.now()}`;
  const run = (await page.evaluate(
    (base) =>
      (
        globalThis as never as { sharedRuntime: { run(b: string): Promise<SharedRuntimeRun> } }
      ).sharedRuntime.run(base),
    `/__latency/${session}/`,
  )) as SharedRuntimeRun;
  const stats = (await (await page.request.get(`/__latency/stats/${session}`)).json()) as Record<
    string,
    LatencyFileStats
  >;
  const total = stats[SESSION_TOTAL];
  console.info(
    `shared runtime: settled at frame ${run.settledFrame}, ${run.requests} requests (server: ${total.requests}, ` +
      `peak in flight ${total.peakInFlight}), workers started ${JSON.stringify(run.started)}, ` +
      `stopped ${JSON.stringify(run.stopped)}`,
  );
  expect(run.errors).toEqual([]);
  expect(run.settledFrame).toBeGreaterThan(0);
  expect(run.virtualTextures).toBe(5);
  expect(run.streamedTextures).toBeGreaterThan(0);
  expect(run.oneClient).toBe(true);
  // One per-host cap across every source: reached, never passed.
  expect(total.peakInFlight).toBeLessThanOrEqual(PER_HOST);
  expect(total.peakInFlight).toBeGreaterThanOrEqual(2);
  // One pool of each kind: its workers start once, whatever the number of sources.
  const poolSize = await page.evaluate(() =>
    Math.max(1, Math.min(4, (navigator.hardwareConcurrency ?? 2) - 1)),
  );
  expect(run.started['tessera-decode']).toBe(poolSize);
  expect(run.started['tessera-transcode']).toBe(poolSize);
  expect(run.started['tessera-image-pyramid'] ?? 0).toBeLessThanOrEqual(poolSize);
  // The COG's compressed tiles decode in geotiff's pool (its workers have no name): one, shared by every COG.
  expect(run.started.unnamed ?? 0).toBeLessThanOrEqual(poolSize);
  // Disposing stops every worker the library started and frees every byte.
  for (const [name, count] of Object.entries(run.started)) expect(run.stopped[name] ?? 0, name).toBe(count);
  expect(run.liveBytesAfter).toBe(0);
});
