/**
 * The demo driven the way a tester drives a long session, for as long as a test can afford (the
 * 10,000-frame soak is the `soak` benchmark): each cycle a teleport, a region transition, a budget
 * change (96 -> 48 -> 64 MiB) and a low fast flight (a new view each frame, so terrain chunks are
 * built and evicted and pages stream), repeating every three cycles. After a warm-up of two
 * repetitions (the terrain's chunk cache fills in the first two), one more must leave the page
 * where it was at the same point of the path: the same live GPU objects (on WebGPU three's
 * per-object uniform buffers counted apart: they grew every cycle while the demo disposed only its
 * meshes' geometries, see docs/long-sessions.md), the same Tessera GPU bytes, and the JS heap
 * after GC within noise.
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
  teleport,
  transition,
} from './demo-page';

const REGIONS = ['snowfield', 'desert', 'valley'];
const BUDGETS_MIB = [96, 48, 64];
const POSES = [
  poseNear('snowfield', 0, 400, 250, 0, -0.35),
  { x: 600, z: 300, height: 12, yaw: 2, pitch: -0.1 },
  poseNear('valley', 0, 0, 30, 0, -0.2),
];
/** Frames of the low fast flight of one cycle (20 m a frame). */
const FLIGHT_FRAMES = 40;
/** Heap growth allowed over one repetition of the path (GC noise, lazily built caches), MiB. */
const HEAP_NOISE_MIB = 1;

interface PageFigures {
  heapMiB: number;
  objects: number;
  objectUniformBuffers: number;
  tesseraBytes: number;
}

async function cycle(page: Page, i: number): Promise<void> {
  await teleport(page, POSES[i % 3]);
  await renderFrames(page, 30);
  await transition(page, REGIONS[i % 3]);
  await page.evaluate((mib) => window.demo.setBudget(mib), BUDGETS_MIB[i % 3]);
  for (let f = 0; f < FLIGHT_FRAMES; f++) {
    await teleport(page, poseNear('valley', f * 20, -f * 10, 8, 0.5, -0.1));
    await renderFrames(page, 1);
  }
}

test('demo: a long session grows nothing once its path repeats (GPU objects, Tessera bytes, heap)', {
  tag: EXTENDED,
}, async ({ page, openPage, backend }) => {
  test.setTimeout(600_000);
  await isolateFromDevServerReloads(page);
  await openPage(DEMO_PAGE, { auto: 0, size: '320x180', hud: 0, budget: 64 });
  await demoReady(page);
  const cdp = await page.context().newCDPSession(page);
  const measure = async (): Promise<PageFigures> => {
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = await cdp.send('Runtime.getHeapUsage');
    const gpu = await page.evaluate(() => {
      const tracker = (
        globalThis as never as {
          __tesseraGpuTracker: {
            snapshot(): { textures: number; buffers: number };
            liveByLabel(): Record<string, { count: number }>;
            liveBytesWithPrefix(prefix: string): number;
          };
        }
      ).__tesseraGpuTracker;
      const snapshot = tracker.snapshot();
      let objectUniformBuffers = 0;
      for (const [label, entry] of Object.entries(tracker.liveByLabel()))
        if (label.startsWith('bindingBuffer#_object_')) objectUniformBuffers += entry.count;
      return {
        objects: snapshot.textures + snapshot.buffers,
        objectUniformBuffers,
        tesseraBytes: tracker.liveBytesWithPrefix('tessera:'),
      };
    });
    return { heapMiB: heap.usedSize / 2 ** 20, ...gpu };
  };

  for (let i = 0; i < 3; i++) await cycle(page, i);
  const first = await measure();
  for (let i = 3; i < 6; i++) await cycle(page, i);
  const warm = await measure();
  for (let i = 6; i < 9; i++) await cycle(page, i);
  const repeated = await measure();
  test.info().annotations.push({
    type: 'page after 3 / 6 / 9 cycles',
    description: [first, warm, repeated]
      .map(
        (f) =>
          `heap ${f.heapMiB.toFixed(2)} MiB, ${f.objects} GPU objects (${f.objectUniformBuffers} object uniform buffers), Tessera ${(f.tesseraBytes / 2 ** 20).toFixed(2)} MiB`,
      )
      .join('; '),
  });
  const stats = await demoStats(page);
  expect(stats.errors).toEqual([]);
  expect(stats.usedBytes).toBeLessThanOrEqual(stats.budgetBytes);
  if (backend === 'webgpu') {
    // The same place on the path: the render objects of the same chunks and props, give or take
    // the chunks the quadtree keeps cached (their eviction order follows frame counts).
    expect(repeated.objectUniformBuffers - warm.objectUniformBuffers).toBeLessThanOrEqual(24);
    expect(repeated.tesseraBytes).toBe(warm.tesseraBytes);
  }
  expect(repeated.objects - warm.objects).toBeLessThanOrEqual(48);
  expect(repeated.heapMiB - warm.heapMiB).toBeLessThanOrEqual(HEAP_NOISE_MIB);
});
