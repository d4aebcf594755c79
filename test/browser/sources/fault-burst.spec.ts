/**
 * Issue #43 item 6: a burst of network faults releases what it creates. A virtual texture and five
 * streamed KTX2 textures read through the test server's fault injection (one request in twenty
 * failing: 5xx, resets, truncated bodies, a Range answered 200, a wrong Content-Range, and a 416 to
 * a satisfiable range, as a browser's cache produces) settle at a first view; then the server goes
 * down while the camera visits other views (loads fail for good), comes back, and the camera returns
 * to the first view. There the live GPU objects (the independent tracker) must be within 10% of
 * what they were before the burst, the frame the same (no page lost), and the failures counted:
 * `failedTotal` kept, and every failure reported.
 */

import { expect, test } from '../fixtures';

const FAULTS = '503,500,reset,truncated,range-ignored,bad-range,416';

interface Figures {
  objects: number;
  byLabel: Record<string, number>;
  vt: { failed: number; failedTotal: number; retries: number };
  streamed: { failed: number; failedTotal: number; retries: number };
  errors: number;
  /** Each error reported, with its chain of causes. */
  errorCauses: string[];
}

interface FaultBurstApi {
  visit(pose: number, frames: number): Promise<void>;
  settle(pose: number, maxFrames?: number): Promise<number>;
  measure(): Figures;
  pixels(): Promise<number[]>;
  poses: number;
}
declare const faultBurst: FaultBurstApi;

/** What Chromium logs for each failed request (the injected faults, the 416s), and nothing else. */
const INJECTED =
  /^console\.error: Failed to load resource: (the server responded with a status of (416|500|503)|net::ERR_)/;

/** Labels whose live count changed, before -> after. */
function changedLabels(before: Figures, after: Figures): Record<string, string> {
  const out: Record<string, string> = {};
  for (const label of new Set([...Object.keys(before.byLabel), ...Object.keys(after.byLabel)])) {
    const a = before.byLabel[label] ?? 0;
    const b = after.byLabel[label] ?? 0;
    if (a !== b) out[label] = `${a} -> ${b}`;
  }
  return out;
}

test('a fault burst (5% faults with 416s, then a dead server) releases the GPU objects it made, and loses no page', async ({
  page,
  openPage,
  errorLog,
  request,
  backend,
}) => {
  test.setTimeout(240_000);
  // Not the backend's name: the error log takes warnings naming WebGPU or WebGL for GPU problems.
  const seed = `burst-${backend === 'webgpu' ? 'a' : 'b'}-${Date.now()}`;
  // What a browser's cache does besides: one Range request in five (each URL and range once, so
  // the retry reaches the server) is answered 416 without reaching the server.
  const answered416 = new Set<string>();
  let rangeRequests = 0;
  await page.route('**/__faults/**', (route) => {
    const range = route.request().headers().range;
    const key = `${route.request().url()} ${range}`;
    if (range !== undefined && !answered416.has(key) && ++rangeRequests % 5 === 0) {
      answered416.add(key);
      return route.fulfill({ status: 416, headers: { 'content-range': 'bytes */*' } });
    }
    return route.continue();
  });
  await openPage('/test/browser/sources/pages/fault-burst.html', {
    assets: `/__faults/${FAULTS}/0.05/${seed}/assets/`,
  });
  await expect(page).toHaveTitle('ready', { timeout: 60_000 });
  const settledBefore = await page.evaluate(() => faultBurst.settle(0));
  expect(settledBefore).toBeGreaterThan(0);
  // The flaky server: a tour of new views, each settled; the retries lose no page and no level.
  const toured = await page.evaluate(async () => {
    const frames: number[] = [];
    for (let pose = 1; pose <= 5; pose++) frames.push(await faultBurst.settle(pose, 600));
    return frames;
  });
  expect(
    toured.every((frames) => frames > 0),
    `frames to settle ${toured}`,
  ).toBe(true);
  const flaky = await page.evaluate(() => faultBurst.measure());
  expect(flaky.vt.failedTotal, flaky.errorCauses.join('\n')).toBe(0);
  expect(flaky.streamed.failedTotal, flaky.errorCauses.join('\n')).toBe(0);
  await page.evaluate(() => faultBurst.settle(0));
  // Read back first: its render target and render objects exist at both measures.
  const framesBefore = await page.evaluate(() => faultBurst.pixels());
  const before = await page.evaluate(() => faultBurst.measure());
  const cdp = await page.context().newCDPSession(page);
  const heapMiB = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize / 2 ** 20;
  };
  const heapBefore = await heapMiB();

  // The burst: views never seen while the server is down (their loads fail for good), then the
  // same views once it is back, then the first view again.
  await request.get(`/__faults/kill/${seed}`);
  // Until loads have failed for good (each after the client's retries, about a second).
  await page.evaluate(async () => {
    for (let pose = 6; pose < faultBurst.poses; pose++) await faultBurst.visit(pose, 40);
    for (let frames = 0; frames < 600 && faultBurst.measure().vt.failed === 0; frames += 10) {
      await faultBurst.visit(faultBurst.poses - 1, 10);
    }
  });
  const during = await page.evaluate(() => faultBurst.measure());
  await request.get(`/__faults/revive/${seed}`);
  await page.evaluate(async () => {
    for (let pose = faultBurst.poses - 1; pose >= 6; pose--) await faultBurst.visit(pose, 30);
  });
  const settledAfter = await page.evaluate(() => faultBurst.settle(0));
  const framesAfter = await page.evaluate(() => faultBurst.pixels());
  const after = await page.evaluate(() => faultBurst.measure());
  const heapAfter = await heapMiB();
  // Chromium reports each failed request a while after it fails: drain until a quiet half second.
  for (let quiet = 0; quiet < 2; ) {
    const batch = await errorLog.take();
    expect(batch.filter((e) => !INJECTED.test(e))).toEqual([]);
    quiet = batch.length === 0 ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  // (The server's counts span every test using it.)
  const injected = (
    (await (await request.get('/__faults/stats')).json()) as { injected: Record<string, number> }
  ).injected;
  console.log(
    `[fault burst ${backend}] ${answered416.size} browser-made 416s, server faults ${JSON.stringify(injected)}; GPU objects ${before.objects} -> ${during.objects} (dead server) -> ${after.objects} (recovered, settled in ${settledAfter} frames); heap after GC ${heapBefore.toFixed(2)} -> ${heapAfter.toFixed(2)} MiB; vt ${JSON.stringify(after.vt)}, streamed ${JSON.stringify(after.streamed)}, errors ${after.errors}; changed labels ${JSON.stringify(changedLabels(before, after))}`,
  );
  // The faults happened and were counted.
  expect(answered416.size).toBeGreaterThan(0);
  expect(during.vt.failedTotal + during.streamed.failedTotal).toBeGreaterThan(0);
  expect(after.vt.failedTotal).toBeGreaterThanOrEqual(during.vt.failedTotal);
  expect(after.streamed.failedTotal).toBeGreaterThanOrEqual(during.streamed.failedTotal);
  expect(after.errors).toBe(after.vt.failedTotal + after.streamed.failedTotal);
  // Back where it started: settled, the same frame (no page or level lost), the GPU objects back.
  expect(settledAfter).toBeGreaterThan(0);
  let differing = 0;
  for (let i = 0; i < framesBefore.length; i += 4) {
    if (
      Math.abs(framesBefore[i] - framesAfter[i]) > 1 ||
      Math.abs(framesBefore[i + 1] - framesAfter[i + 1]) > 1 ||
      Math.abs(framesBefore[i + 2] - framesAfter[i + 2]) > 1
    ) {
      differing++;
    }
  }
  expect(differing).toBe(0);
  expect(Math.abs(after.objects - before.objects)).toBeLessThanOrEqual(before.objects * 0.1);
});
