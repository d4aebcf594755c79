/**
 * A long session: the demo's scripted tour (fly-overs, teleports, region transitions, one through a
 * gate, the comparison view; one loop is 2,400 frames at 1/60 s) played for `SOAK_FRAMES` frames
 * (default 10,000, about four loops; `SOAK_VARIANTS=tessera` leaves out the baseline) in headless Chromium, 320 x 180, on both backends of
 * `WebGPURenderer`, twice each in the same run: the demo as shipped (`tessera`: the terrain's
 * runtime virtual texture and the streamed prop textures) and the plain baseline (`plain`: `?vt=0`,
 * the terrain textured by one ordinary texture, as plain three.js draws it; the props still stream).
 *
 * Every 500 frames, and at every multiple of the tour's loop, after a forced garbage collection:
 * the JS heap in use, the GPU objects (textures and buffers) alive, and their bytes split into
 * Tessera's (`tessera:` labels) and everything else, by the independent GPU tracker
 * (test/support/gpu-tracker.js; WebGL2 has no labels, so there everything counts as other).
 * Figures per backend and variant (`soak.<backend>.<variant>.*`):
 * - `*_per_1000_frames`: the least-squares slope after the first loop (warm-up) of the heap (KiB),
 *   the live GPU objects, Tessera's GPU bytes and the other GPU bytes (KiB);
 * - `*_repeat_delta`: the same figure at the end of the last whole loop minus at the end of the
 *   first (the same place on the path), heap in MiB, objects in count, GPU in MiB;
 * - `heap_mib_end`, `gpu_objects_end`, `ms_per_frame` (wall time of a frame on this machine),
 *   `frames` (the soak's length).
 */

import type { Page } from 'playwright-core';
import { withBenchBrowser } from './bench-browser';

/** Port of this benchmark's own Vite server (apart from the test server's and the other benches'). */
const BENCH_PORT = Number(process.env.TESSERA_BENCH_PORT ?? 5187) + 7;
/** Frames of the whole soak. */
const FRAMES = Number(process.env.SOAK_FRAMES ?? 10_000);
/** Frames between samples, and of one loop of the demo's default tour (40 s at 1/60 s). */
const SAMPLE_FRAMES = 500;
const TOUR_LOOP_FRAMES = 2400;
/** Which runs to make (`SOAK_VARIANTS=tessera` leaves out the baseline). */
const VARIANTS = (process.env.SOAK_VARIANTS ?? 'tessera,plain').split(',');

/** One sample of the page. */
interface SoakSample {
  frame: number;
  heapBytes: number;
  gpuObjects: number;
  tesseraGpuBytes: number;
  otherGpuBytes: number;
}

/** The frames at which to sample: every {@link SAMPLE_FRAMES}, and every whole tour loop. */
function sampleFrames(total: number): number[] {
  const frames = new Set<number>([0]);
  for (let f = SAMPLE_FRAMES; f <= total; f += SAMPLE_FRAMES) frames.add(f);
  for (let f = TOUR_LOOP_FRAMES; f <= total; f += TOUR_LOOP_FRAMES) frames.add(f);
  return [...frames].sort((a, b) => a - b);
}

/** Least-squares slope of `value` over `frame`, per 1,000 frames. */
function slopePer1000(samples: readonly SoakSample[], value: (s: SoakSample) => number): number {
  const n = samples.length;
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (const s of samples) {
    sx += s.frame;
    sy += value(s);
  }
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  for (const s of samples) {
    sxy += (s.frame - mx) * (value(s) - my);
    sxx += (s.frame - mx) ** 2;
  }
  return (sxy / sxx) * 1000;
}

async function sample(page: Page, frame: number, gc: () => Promise<void>, heap: () => Promise<number>) {
  await gc();
  const heapBytes = await heap();
  const gpu = await page.evaluate(() => {
    const tracker = (
      globalThis as unknown as {
        __tesseraGpuTracker: {
          snapshot(): { liveBytes: number; textures: number; buffers: number };
          liveBytesWithPrefix(prefix: string): number;
        };
      }
    ).__tesseraGpuTracker;
    const snapshot = tracker.snapshot();
    return {
      objects: snapshot.textures + snapshot.buffers,
      live: snapshot.liveBytes,
      tessera: tracker.liveBytesWithPrefix('tessera:'),
    };
  });
  return {
    frame,
    heapBytes,
    gpuObjects: gpu.objects,
    tesseraGpuBytes: gpu.tessera,
    otherGpuBytes: gpu.live - gpu.tessera,
  } satisfies SoakSample;
}

/** A soak's samples and the wall time of a frame, ms. */
interface SoakRun {
  samples: SoakSample[];
  msPerFrame: number;
}

async function soak(page: Page, backend: string, variant: string, url: string): Promise<SoakRun> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.addInitScript({ path: new URL('../test/support/gpu-tracker.js', import.meta.url).pathname });
  const cdp = await page.context().newCDPSession(page);
  const gc = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
  };
  const heap = async () => (await cdp.send('Runtime.getHeapUsage')).usedSize;
  await page.goto(url);
  await page.evaluate(() => window.demo.ready);
  const samples: SoakSample[] = [];
  const started = performance.now();
  let frame = 0;
  for (const at of sampleFrames(FRAMES)) {
    if (at > frame) await page.evaluate((n) => window.demo.renderFrames(n), at - frame);
    frame = at;
    const s = await sample(page, frame, gc, heap);
    samples.push(s);
    if (errors.length > 0) throw new Error(`soak ${backend} ${variant}: ${errors.join('; ')}`);
    console.error(
      `soak ${backend} ${variant} frame ${frame}: heap ${(s.heapBytes / 2 ** 20).toFixed(2)} MiB, ` +
        `${s.gpuObjects} GPU objects, tessera ${(s.tesseraGpuBytes / 2 ** 20).toFixed(2)} MiB, ` +
        `other ${(s.otherGpuBytes / 2 ** 20).toFixed(2)} MiB`,
    );
  }
  const stats = await page.evaluate(() => window.demo.stats());
  if (stats.errors.length > 0) throw new Error(`soak ${backend} ${variant}: ${stats.errors.join('; ')}`);
  return { samples, msPerFrame: (performance.now() - started) / FRAMES };
}

/** The figures of one soak (see the module's doc comment). */
function figures(prefix: string, { samples, msPerFrame }: SoakRun): Record<string, number> {
  const warm = samples.filter((s) => s.frame >= TOUR_LOOP_FRAMES);
  const loops = samples.filter((s) => s.frame > 0 && s.frame % TOUR_LOOP_FRAMES === 0);
  const first = loops[0];
  const last = loops[loops.length - 1];
  const round = (x: number, digits: number) => Number(x.toFixed(digits));
  const end = samples[samples.length - 1];
  const out: Record<string, number> = {
    [`${prefix}.heap_kib_per_1000_frames`]: round(
      slopePer1000(warm, (s) => s.heapBytes / 1024),
      1,
    ),
    [`${prefix}.gpu_objects_per_1000_frames`]: round(
      slopePer1000(warm, (s) => s.gpuObjects),
      1,
    ),
    [`${prefix}.tessera_gpu_kib_per_1000_frames`]: round(
      slopePer1000(warm, (s) => s.tesseraGpuBytes / 1024),
      1,
    ),
    [`${prefix}.other_gpu_kib_per_1000_frames`]: round(
      slopePer1000(warm, (s) => s.otherGpuBytes / 1024),
      1,
    ),
    [`${prefix}.heap_mib_end`]: round(end.heapBytes / 2 ** 20, 2),
    [`${prefix}.gpu_objects_end`]: end.gpuObjects,
    [`${prefix}.ms_per_frame`]: round(msPerFrame, 1),
    [`${prefix}.frames`]: end.frame,
  };
  if (first && last && last !== first) {
    out[`${prefix}.heap_mib_repeat_delta`] = round((last.heapBytes - first.heapBytes) / 2 ** 20, 2);
    out[`${prefix}.gpu_objects_repeat_delta`] = last.gpuObjects - first.gpuObjects;
    out[`${prefix}.gpu_mib_repeat_delta`] = round(
      (last.tesseraGpuBytes + last.otherGpuBytes - first.tesseraGpuBytes - first.otherGpuBytes) / 2 ** 20,
      2,
    );
  }
  return out;
}

export default {
  name: 'soak',
  async run(): Promise<Record<string, number>> {
    return withBenchBrowser(BENCH_PORT, async (browser) => {
      const out: Record<string, number> = {};
      for (const backend of ['webgpu', 'webgl']) {
        for (const variant of VARIANTS) {
          const query = new URLSearchParams({ backend, auto: '0', hud: '0', tour: '1', size: '320x180' });
          if (variant === 'plain') query.set('vt', '0');
          const page = await browser.newPage({ viewport: { width: 320, height: 180 } });
          try {
            const url = `http://localhost:${BENCH_PORT}/demo/index.html?${query}`;
            Object.assign(
              out,
              figures(`soak.${backend}.${variant}`, await soak(page, backend, variant, url)),
            );
          } finally {
            await page.close();
          }
        }
      }
      return out;
    });
  },
};
