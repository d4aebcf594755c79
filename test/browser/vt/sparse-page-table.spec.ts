import { expect, test } from '../fixtures';
import { VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

declare const vtScene: VtSceneApi;

const BUDGET = 24 * 1024 * 1024;
/** Issue 17's bound on a 4096²-page texture's page table after settling on a view. */
const PAGE_TABLE_LIMIT = 8 * 1024 * 1024;

/**
 * A 4096 x 4096-page virtual texture (491520² texels of procedural content; its dense page table
 * would be 85 MiB, 3.5x this whole budget) settles on views at both ends of the texture at mip 0:
 * every pixel right (PSNR against the analytic content), the page tables within their bound, and
 * the independent tracker's bytes within the budget and equal to the system's own accounting.
 */
test('a 4096²-page texture settles at both ends within budget', async ({
  page,
  openPage,
  gpuTracker,
  backend,
}) => {
  await openPage(VT_SCENE, { pages: 4096, budget: BUDGET });
  await waitForScene(page);
  for (const [u, v] of [
    [0.004, 0.004],
    [0.996, 0.996],
  ]) {
    const result = await page.evaluate(
      async ([cu, cv]) => {
        await vtScene.waitReady();
        vtScene.setOrthoView(cu, cv, 0.3);
        const frames = await vtScene.settle(200);
        // The system's own rule also wants 4 quiet jitter offsets (readbacks lag under load, so the
        // scene's quiet test can pass first).
        const settleFrames = await vtScene.waitSettled(200);
        return { frames, settleFrames, comparison: await vtScene.compare(0.3), stats: vtScene.stats() };
      },
      [u, v],
    );
    const { comparison, stats } = result;
    // Settled by the system's own rule (the scene's frame count also waits on readbacks, which
    // SwiftShader sometimes delays under load).
    expect(result.settleFrames, JSON.stringify({ u, v, stats })).toBeGreaterThanOrEqual(0);
    expect(comparison.psnr, JSON.stringify(comparison)).toBeGreaterThanOrEqual(35);
    expect(comparison.garbagePixels).toBe(0);
    expect(comparison.mipHistogram[0]).toBeGreaterThan(0.99 * 256 * 256);
    expect(stats.gpuBytes.pageTables).toBeLessThanOrEqual(PAGE_TABLE_LIMIT);
    // The page-table reservation is exactly what the page tables hold.
    expect(stats.byCategory['page-table']).toBe(stats.gpuBytes.pageTables);
    expect(stats.gpuBytes.total).toBeLessThanOrEqual(BUDGET);
    if (backend === 'webgpu') {
      expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBe(stats.gpuBytes.total);
      expect((await gpuTracker.snapshot()).byPrefix['tessera:']?.peak ?? 0).toBeLessThanOrEqual(BUDGET);
    }
  }
});

/**
 * The page-table atlas follows the pool down as well as up: after views spread over a 4096²-page
 * texture filled it with blocks, a smaller share evicts the earlier views' pages, their blocks are
 * freed and the atlas shrinks (blocks moved to the front), within a few jitter cycles. Lookups stay
 * right through the move, at the current view and back at the first one (where blocks grow again),
 * and the reservation and the independent tracker follow the atlas exactly.
 */
test('the page-table atlas shrinks when its pages leave, and every lookup stays right', async ({
  page,
  openPage,
  gpuTracker,
  backend,
}) => {
  await openPage(VT_SCENE, { pages: 4096, budget: BUDGET });
  await waitForScene(page);
  const result = await page.evaluate(async () => {
    const { system, vt } = (
      vtScene as unknown as {
        debug: {
          system: { setShareBytes(bytes: number): void };
          vt: { pageTable: { usedBlocks: number; blockCapacity: number } };
        };
      }
    ).debug;
    const table = vt.pageTable;
    const settleAt = async (u: number, v: number) => {
      vtScene.setOrthoView(u, v, 0.3);
      await vtScene.settle(200);
      return vtScene.waitSettled(200);
    };
    await vtScene.waitReady();
    // Spots spread over the texture: each stores its own blocks at the mips finer than 16² pages.
    const spots = [
      [0.9, 0.4],
      [0.1, 0.1],
      [0.3, 0.7],
      [0.5, 0.2],
      [0.7, 0.9],
      [0.2, 0.5],
      [0.6, 0.6],
      [0.8, 0.1],
    ];
    let peak = { used: 0, capacity: 0, bytes: 0 };
    const settleFrames: number[] = [];
    for (const [u, v] of spots) {
      settleFrames.push(await settleAt(u, v));
      const bytes = vtScene.stats().gpuBytes.pageTables;
      if (bytes > peak.bytes) peak = { used: table.usedBlocks, capacity: table.blockCapacity, bytes };
    }
    // A smaller share (half the budget: 110 slots here, room for the view at mip bias 0): the pool
    // keeps about the current view's pages; the others leave.
    system.setShareBytes(12 * 1024 * 1024);
    settleFrames.push(await vtScene.waitSettled(200));
    // The shrink is checked once per jitter cycle (16 frames).
    vtScene.step(48);
    const shrunk = {
      used: table.usedBlocks,
      capacity: table.blockCapacity,
      stats: vtScene.stats(),
      comparison: await vtScene.compare(0.3),
      tracked: vtScene.trackedBytes(),
    };
    settleFrames.push(await settleAt(spots[0][0], spots[0][1]));
    const back = { stats: vtScene.stats(), comparison: await vtScene.compare(0.3), used: table.usedBlocks };
    return { peak, shrunk, back, settleFrames };
  });
  const { peak, shrunk, back } = result;
  console.log(
    `[${backend}] atlas: peak ${peak.used}/${peak.capacity} blocks (${peak.bytes} B), ` +
      `shrunk ${shrunk.used}/${shrunk.capacity} (${shrunk.stats.gpuBytes.pageTables} B), back ${back.used} blocks`,
  );
  for (const frames of result.settleFrames) expect(frames, JSON.stringify(result)).toBeGreaterThanOrEqual(0);
  expect(peak.used, 'the spots filled blocks').toBeGreaterThan(32);
  expect(shrunk.capacity).toBeLessThan(peak.capacity);
  expect(shrunk.stats.gpuBytes.pageTables).toBeLessThan(peak.bytes);
  expect(shrunk.stats.byCategory['page-table']).toBe(shrunk.stats.gpuBytes.pageTables);
  // The tracker counts WebGL2 textures only (the readback ring is pixel-pack buffers there).
  const { gpuBytes } = shrunk.stats;
  expect(shrunk.tracked).toBe(gpuBytes.total - (backend === 'webgl' ? gpuBytes.readbackBuffers : 0));
  for (const { comparison } of [shrunk, back]) {
    expect(comparison.psnr, JSON.stringify(comparison)).toBeGreaterThanOrEqual(35);
    expect(comparison.garbagePixels).toBe(0);
    expect(comparison.mipHistogram[0]).toBeGreaterThan(0.99 * 256 * 256);
  }
  expect(back.used).toBeGreaterThan(shrunk.used);
  if (backend === 'webgpu') {
    expect(await gpuTracker.liveBytesWithPrefix('tessera:')).toBe(back.stats.gpuBytes.total);
    expect((await gpuTracker.snapshot()).byPrefix['tessera:']?.peak ?? 0).toBeLessThanOrEqual(BUDGET);
  }
});

/**
 * Small tables are dense (one fetch per lookup) only while that leaves room: 16 textures of 128²
 * pages (192 KiB each dense, 3 MiB for all) fit a 1 MiB page-table share, the first ones dense and
 * the rest sparse, with the reservation exactly the tables' bytes and the tracker agreeing.
 */
test('many small textures fit a small page-table share: dense while room is left, then sparse', async ({
  page,
  openPage,
  backend,
}) => {
  await openPage(VT_SCENE, { pages: 16 });
  await waitForScene(page);
  const r = await page.evaluate(() => vtScene.manySmallTextures());
  expect(r.dense.slice(0, 2)).toEqual([true, true]);
  expect(r.dense.slice(2)).toEqual(new Array(14).fill(false));
  expect(r.reserved).toBe(r.pageTables);
  expect(r.pageTables).toBeLessThanOrEqual(r.share);
  expect(r.tracked).toBe(r.total - (backend === 'webgl' ? r.readback : 0));
});
