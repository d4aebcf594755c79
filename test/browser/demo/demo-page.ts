/** Helpers for driving the demo page (demo/index.html) through its automation API in tests. */

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect, type Page } from '@playwright/test';
import sharp from 'sharp';
import type { CameraPose, DemoStats, SettleResult, TransitionResult } from '../../../demo/automation';

/** Path of the demo page under the test server's root (the repository). */
export const DEMO_PAGE = 'demo/index.html';

/**
 * Mocks Vite's HMR websocket so edits to source files elsewhere in the repository (other work in
 * progress) cannot full-reload the page under a running test. Call before opening the page.
 */
export async function isolateFromDevServerReloads(page: Page): Promise<void> {
  await page.routeWebSocket(/\/\?token=|vite-hmr/, () => {});
}

/** Awaits `demo.ready`. */
export function demoReady(page: Page): Promise<void> {
  return page.evaluate(() => window.demo.ready);
}

/** `demo.renderFrames(n)`. */
export function renderFrames(page: Page, n: number): Promise<void> {
  return page.evaluate((count) => window.demo.renderFrames(count), n);
}

/** `demo.teleport(pose)`. */
export function teleport(page: Page, pose: CameraPose): Promise<void> {
  return page.evaluate((p) => window.demo.teleport(p), pose);
}

/** `demo.settle({ maxFrames })`. */
export function settle(page: Page, maxFrames: number): Promise<SettleResult> {
  return page.evaluate((m) => window.demo.settle({ maxFrames: m }), maxFrames);
}

/** `demo.transition(name)`. */
export function transition(page: Page, name: string): Promise<TransitionResult> {
  return page.evaluate((n) => window.demo.transition(n), name);
}

/** `demo.stats()`. */
export function demoStats(page: Page): Promise<DemoStats> {
  return page.evaluate(() => window.demo.stats());
}

/**
 * Screenshots the canvas to `file` and measures it: luminance standard deviation (0..255) and the
 * number of distinct colours, to tell a real view from a blank or uniform one. Reading the PNG in
 * Node works on both backends (a WebGPU canvas cannot be read back from script after its frame).
 */
export async function screenshotCanvas(
  page: Page,
  file: string,
): Promise<{ stddev: number; distinctColours: number }> {
  const { data, channels } = await screenshotPixels(page, 'canvas[data-engine]', file);
  let sum = 0;
  let sumSquares = 0;
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += channels) {
    const y = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
    sum += y;
    sumSquares += y * y;
    colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  }
  const n = data.length / channels;
  const mean = sum / n;
  return { stddev: Math.sqrt(Math.max(0, sumSquares / n - mean * mean)), distinctColours: colours.size };
}

/** Screenshots the element matching `selector` to `file` and returns its raw pixels (decoded in Node). */
export async function screenshotPixels(
  page: Page,
  selector: string,
  file: string,
): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  mkdirSync(dirname(file), { recursive: true });
  const png = await page.locator(selector).screenshot({ path: file });
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Ground colours told apart by {@link groundShares}. */
export type GroundColour = 'grass' | 'sand' | 'snow' | 'water' | 'other';

/**
 * The share of each ground colour among the pixels of a canvas screenshot, by hue rather than exact
 * value so the terrain's lighting does not matter: grass is green over red and blue, sand warm
 * (red over green over blue, red well above blue), snow bright and bluish white, water dark blue.
 */
export function groundShares(pixels: {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}): Record<GroundColour, number> {
  const counts: Record<GroundColour, number> = { grass: 0, sand: 0, snow: 0, water: 0, other: 0 };
  const n = pixels.width * pixels.height;
  for (let i = 0; i < n; i++) {
    const o = i * pixels.channels;
    const r = pixels.data[o];
    const g = pixels.data[o + 1];
    const b = pixels.data[o + 2];
    const colour: GroundColour =
      Math.min(r, g, b) > 150 && b >= r - 8
        ? 'snow'
        : b > r + 10 && b >= g - 10 && Math.max(r, g, b) < 140
          ? 'water'
          : g > r && g > b + 8
            ? 'grass'
            : r >= g && g > b && r - b > 35
              ? 'sand'
              : 'other';
    counts[colour]++;
  }
  for (const key of Object.keys(counts) as GroundColour[]) counts[key] = counts[key] / n;
  return counts;
}

/** The comparison's two close-ups as drawn on their canvases: RGBA rows, top first. */
export function comparisonPanes(
  page: Page,
): Promise<{ width: number; height: number; tessera: number[]; plainThree: number[] }> {
  return page.evaluate(() => {
    const read = (key: string) => {
      const canvas = document.querySelector(`[data-compare="${key}"] canvas`) as HTMLCanvasElement;
      return canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    };
    const tessera = read('tessera');
    const plainThree = read('plain-three');
    return {
      width: tessera.width,
      height: tessera.height,
      tessera: Array.from(tessera.data),
      plainThree: Array.from(plainThree.data),
    };
  });
}

/**
 * How alike two images' layouts are, whatever their sharpness: the Pearson correlation of their
 * mean luminances over a `columns` x `rows` grid of blocks (1: the same bright and dark areas in the
 * same places; near 0: unrelated pictures).
 */
export function blockStructureCorrelation(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  width: number,
  height: number,
  columns = 12,
  rows = 8,
): number {
  const means = (pixels: ArrayLike<number>) => {
    const sums = new Float64Array(columns * rows);
    const counts = new Float64Array(columns * rows);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const o = (y * width + x) * 4;
        const block = Math.floor((y * rows) / height) * columns + Math.floor((x * columns) / width);
        sums[block] += 0.2126 * pixels[o] + 0.7152 * pixels[o + 1] + 0.0722 * pixels[o + 2];
        counts[block]++;
      }
    return sums.map((s, i) => s / counts[i]);
  };
  const ma = means(a);
  const mb = means(b);
  const avg = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
  const [ca, cb] = [avg(ma), avg(mb)];
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < ma.length; i++) {
    cov += (ma[i] - ca) * (mb[i] - cb);
    va += (ma[i] - ca) ** 2;
    vb += (mb[i] - cb) ** 2;
  }
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : 0;
}

/** Writes `value` as pretty JSON to `path` (relative to the repository), creating folders. */
export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** What the independent tracker attributes to Tessera, bytes. */
export interface TrackedTessera {
  /** WebGPU: live bytes labelled `tessera:`. WebGL2: texture + renderbuffer bytes above the baseline. */
  bytes: number;
  /** Live bytes of every GPU allocation on the page (WebGPU), or all GL allocations (WebGL2). */
  liveBytes: number;
  /** WebGL2 only: growth over the baseline by kind (textures, buffers, renderbuffers). */
  glDelta?: { texture: number; buffer: number; renderbuffer: number };
}

/**
 * Installs `window.demoProbe`, which records the tracker's snapshot when the demo says it is about
 * to allocate Tessera's first GPU object (after the renderer drew one empty frame). Call before
 * opening the page (after the fixture's tracker init script).
 */
export async function installBaselineProbe(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as {
      demoProbe: (phase: string) => void;
      __demoBaseline?: unknown;
      __tesseraGpuTracker: { snapshot(): unknown };
    };
    w.demoProbe = () => {
      w.__demoBaseline = w.__tesseraGpuTracker.snapshot();
    };
  });
}

/**
 * Reads Tessera's bytes from the independent tracker. WebGL2 has no labels: Tessera's pool, page
 * tables, streamed chains and feedback target are textures and renderbuffers, counted as growth
 * over the baseline the probe took; buffers are reported apart (they are mostly the demo's own
 * terrain geometry and three's uniform buffers, which grow with the scene, not with Tessera).
 */
export async function trackedTessera(page: Page, backend: 'webgpu' | 'webgl'): Promise<TrackedTessera> {
  return page.evaluate((b) => {
    type Snapshot = { liveBytes: number; byPrefix: Record<string, { live: number }> };
    const w = window as unknown as {
      __demoBaseline?: Snapshot;
      __tesseraGpuTracker: { snapshot(): Snapshot };
    };
    const now = w.__tesseraGpuTracker.snapshot();
    if (b === 'webgpu') return { bytes: now.byPrefix['tessera:']?.live ?? 0, liveBytes: now.liveBytes };
    const base = w.__demoBaseline;
    if (!base) throw new Error('no baseline: the demo never called demoProbe');
    const live = (s: Snapshot, key: string) => s.byPrefix[key]?.live ?? 0;
    const texture = live(now, 'webgl:texture') - live(base, 'webgl:texture');
    const buffer = live(now, 'webgl:buffer') - live(base, 'webgl:buffer');
    const renderbuffer = live(now, 'webgl:renderbuffer') - live(base, 'webgl:renderbuffer');
    return {
      bytes: texture + renderbuffer,
      liveBytes: now.liveBytes,
      glDelta: { texture, buffer, renderbuffer },
    };
  }, backend);
}

/** Per-frame figures of {@link trackedFrames}. */
export interface TrackedFrameRun {
  frames: number;
  /** Largest tracked Tessera bytes over the frames (see {@link trackedTessera}). */
  maxTrackedBytes: number;
  /** Largest budget live bytes (`stats().usedBytes`) over the frames. */
  maxUsedBytes: number;
  /** Frames whose tracked bytes exceeded the budget in force at that frame. */
  overBudgetFrames: { frame: number; tracked: number; budget: number }[];
}

/**
 * Renders `n` frames one by one inside the page, reading the tracker after each (every frame is
 * checked, not just checkpoints). With `path`, the camera flies linearly from `path.from` to
 * `path.to` over the frames (a fly-over).
 */
export function trackedFrames(
  page: Page,
  backend: 'webgpu' | 'webgl',
  n: number,
  path?: { from: CameraPose; to: CameraPose },
): Promise<TrackedFrameRun> {
  return page.evaluate(
    async ({ b, count, fly }) => {
      type Snapshot = { byPrefix: Record<string, { live: number }> };
      const w = window as unknown as {
        __demoBaseline?: Snapshot;
        __tesseraGpuTracker: { snapshot(): Snapshot };
      };
      const live = (s: Snapshot | undefined, key: string) => s?.byPrefix[key]?.live ?? 0;
      const tracked = () => {
        const now = w.__tesseraGpuTracker.snapshot();
        if (b === 'webgpu') return live(now, 'tessera:');
        const base = w.__demoBaseline;
        return (
          live(now, 'webgl:texture') -
          live(base, 'webgl:texture') +
          live(now, 'webgl:renderbuffer') -
          live(base, 'webgl:renderbuffer')
        );
      };
      const out = {
        frames: 0,
        maxTrackedBytes: 0,
        maxUsedBytes: 0,
        overBudgetFrames: [] as { frame: number; tracked: number; budget: number }[],
      };
      for (let i = 0; i < count; i++) {
        if (fly) {
          const t = count > 1 ? i / (count - 1) : 1;
          const pose = {} as Record<string, number>;
          for (const key of ['x', 'z', 'height', 'yaw', 'pitch'] as const) {
            pose[key] = fly.from[key] + (fly.to[key] - fly.from[key]) * t;
          }
          window.demo.teleport(pose as unknown as CameraPose);
        }
        await window.demo.renderFrames(1);
        const stats = window.demo.stats();
        const bytes = tracked();
        out.frames++;
        out.maxTrackedBytes = Math.max(out.maxTrackedBytes, bytes);
        out.maxUsedBytes = Math.max(out.maxUsedBytes, stats.usedBytes);
        if (bytes > stats.budgetBytes)
          out.overBudgetFrames.push({ frame: stats.frame, tracked: bytes, budget: stats.budgetBytes });
      }
      return out;
    },
    { b: backend, count: n, fly: path },
  );
}

/** What every budget-suite checkpoint records; `extra` holds what a suite adds (settle, transition...). */
export interface CheckpointRecord {
  name: string;
  frame: number;
  tracked: TrackedTessera;
  stats: DemoStats;
  screenshot: { stddev: number; distinctColours: number; file: string };
}

/**
 * A checkpoint of a budget suite: the independent tracker's Tessera bytes within `budgetBytes()`,
 * the budget's live bytes within the budget, no demo errors, and a screenshot (written to
 * `file(name, index)`) that is neither blank nor uniform. Returns the demo's stats.
 */
export function checkpointRecorder<T extends CheckpointRecord>(
  page: Page,
  backend: 'webgpu' | 'webgl',
  budgetBytes: () => number,
  file: (name: string, index: number) => string,
): { checkpoints: T[]; checkpoint(name: string, extra?: Partial<T>): Promise<DemoStats> } {
  const checkpoints: T[] = [];
  const checkpoint = async (name: string, extra: Partial<T> = {}) => {
    const stats = await demoStats(page);
    const tracked = await trackedTessera(page, backend);
    expect(tracked.bytes, `tracked Tessera bytes at ${name}`).toBeLessThanOrEqual(budgetBytes());
    expect(stats.usedBytes, `budget's live bytes at ${name}`).toBeLessThanOrEqual(stats.budgetBytes);
    expect(stats.errors, `demo errors at ${name}`).toEqual([]);
    const path = file(name, checkpoints.length);
    const variety = await screenshotCanvas(page, path);
    // A real view of terrain, sky and props has many colours and contrast; blank or uniform has not.
    expect(variety.distinctColours, `distinct colours at ${name}`).toBeGreaterThan(50);
    expect(variety.stddev, `luminance spread at ${name}`).toBeGreaterThan(4);
    checkpoints.push({
      name,
      frame: stats.frame,
      tracked,
      stats,
      screenshot: { ...variety, file: path },
      ...extra,
    } as T);
    return stats;
  };
  return { checkpoints, checkpoint };
}

/** Starts a new peak measurement in the independent tracker (its peaks restart from the live figures). */
export function resetTrackedPeak(page: Page): Promise<void> {
  return page.evaluate(() =>
    (window as unknown as { __tesseraGpuTracker: { resetPeak(): void } }).__tesseraGpuTracker.resetPeak(),
  );
}

/**
 * The independent tracker's peak of Tessera's bytes since {@link resetTrackedPeak}: WebGPU the
 * `tessera:` prefix's peak; WebGL2 the texture and renderbuffer peaks over the baseline, summed (each
 * peaks on its own, so the sum bounds the true peak from above).
 */
export function trackedTesseraPeak(page: Page, backend: 'webgpu' | 'webgl'): Promise<number> {
  return page.evaluate((b) => {
    type Snapshot = { byPrefix: Record<string, { live: number; peak: number }> };
    const w = window as unknown as {
      __demoBaseline?: Snapshot;
      __tesseraGpuTracker: { snapshot(): Snapshot };
    };
    const now = w.__tesseraGpuTracker.snapshot();
    if (b === 'webgpu') return now.byPrefix['tessera:']?.peak ?? 0;
    const base = w.__demoBaseline;
    if (!base) throw new Error('no baseline: the demo never called demoProbe');
    const over = (key: string) => (now.byPrefix[key]?.peak ?? 0) - (base.byPrefix[key]?.live ?? 0);
    return over('webgl:texture') + over('webgl:renderbuffer');
  }, backend);
}
