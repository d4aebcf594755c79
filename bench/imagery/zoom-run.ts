/**
 * The frame loop both imagery benchmark pages run (baseline-zoom.ts, tessera-zoom.ts): the same
 * orthographic top-down camera flies the steps of zoom-path.ts, holding each for `?hold=` frames
 * (default {@link DEFAULT_HOLD_FRAMES}), one frame per `requestAnimationFrame`, so both renderers
 * get the same frames whatever their speed. Per step it records when the view became sharp: the
 * frame after which what the renderer draws no longer changed (the renderer says which frames
 * changed it), and when the renderer itself called the view complete. Per frame
 * it samples the GPU bytes the independent tracker (test/support/gpu-tracker.js) counts for the
 * renderer. Results go to `globalThis.benchResult` (see bench/sources-browser/bench-page.ts).
 */

import { OrthographicCamera, Scene } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { createTestRenderer, requestedBackend } from '../../test/browser/support/renderer';
import { median } from '../sources-browser/bench-page';
import { MAX_ZOOM, type PathView, VIEW_HEIGHT, VIEW_WIDTH, viewAt } from './zoom-path';

/** The canvas size the page was asked for (`?width=&height=`), CSS pixels. */
export function requestedViewport(): { width: number; height: number } {
  const params = new URLSearchParams(location.search);
  return {
    width: Number(params.get('width') ?? VIEW_WIDTH),
    height: Number(params.get('height') ?? VIEW_HEIGHT),
  };
}

/** Frames each step is held when the page is not told otherwise. */
export const DEFAULT_HOLD_FRAMES = 60;

/** One renderer of the map, driven by {@link runZoomPath}. */
export interface ZoomRenderer {
  /** The camera has just moved to a new step's view. */
  beginStep(): void;
  /** Updates for `view` and renders; true when this frame changed what is drawn. */
  frame(view: PathView): boolean;
  /**
   * At the step's end: the frame of the step (1 = its first) from which the renderer called the
   * view complete (everything it wants drawn at its wanted resolution), or -1 if it never did.
   */
  completeFrame(): number;
  /**
   * GPU bytes of this renderer now, from the tracker: `tessera:` labels for Tessera on WebGPU,
   * else every live byte above what the renderer held before the map existed.
   */
  gpuBytes(): number;
  /** Peak of {@link gpuBytes} since the run started (the tracker's peak, between frames too). */
  gpuPeakBytes(): number;
  /** Counters worth reporting, by name. */
  counters(): Record<string, number>;
  dispose(): void;
}

/** One step's timing. */
export interface StepResult {
  step: number;
  /** Frames from the camera move until the view stopped changing (1 = the first frame). */
  sharpFrames: number;
  /** Milliseconds from just before the step's first frame to the end of its sharp frame. */
  sharpMs: number;
  /** Whether the renderer called the view complete at the hold's end. */
  complete: boolean;
  /** Frame of the step from which the renderer called the view complete (-1: never). */
  completeFrames: number;
}

/** What a page leaves in `globalThis.benchResult`. */
export interface ZoomRunResult {
  backend: 'webgpu' | 'webgl';
  holdFrames: number;
  steps: StepResult[];
  frames: number;
  /** Median wall time of a frame (rAF to rAF), ms. */
  frameMsMedian: number;
  gpuPeakBytes: number;
  gpuMeanBytes: number;
  counters: Record<string, number>;
  /** GPU validation errors the tracker caught. */
  gpuErrors: string[];
}

/** The tracker the driver injects before the page loads. */
export interface GpuTracker {
  snapshot(): {
    liveBytes: number;
    peakBytes: number;
    byPrefix: Record<string, { live: number; peak: number }>;
  };
  resetPeak(): void;
  checkErrors(): Promise<string[]>;
}

/** The injected tracker. @throws Error when the page was loaded without it. */
export function gpuTracker(): GpuTracker {
  const tracker = (globalThis as { __tesseraGpuTracker?: GpuTracker }).__tesseraGpuTracker;
  if (tracker === undefined) throw new Error('the GPU tracker was not injected');
  return tracker;
}

/** The camera and scene both renderers draw with, and the renderer on the requested backend. */
export interface ZoomStage {
  renderer: WebGPURenderer;
  scene: Scene;
  camera: OrthographicCamera;
  /** Live GPU bytes before the map existed (the renderer's own: depth buffer, ...). */
  startBytes: number;
}

/** Makes the renderer and draws one empty frame, so its own allocations exist before the map. */
export async function createZoomStage(): Promise<ZoomStage> {
  const { width, height } = requestedViewport();
  const renderer = await createTestRenderer(width, height);
  const scene = new Scene();
  const camera = new OrthographicCamera(-1, 1, 1, -1, 0.1, 10);
  placeCamera(camera, viewAt(0, width, height));
  renderer.render(scene, camera);
  await nextFrame();
  return { renderer, scene, camera, startBytes: gpuTracker().snapshot().liveBytes };
}

/** Points the top-down camera at `view` (the map is the unit square on z = 0, y north). */
function placeCamera(camera: OrthographicCamera, view: PathView): void {
  const halfW = view.width / 2 / view.pixelsPerWorld;
  const halfH = view.height / 2 / view.pixelsPerWorld;
  camera.left = -halfW;
  camera.right = halfW;
  camera.top = halfH;
  camera.bottom = -halfH;
  camera.position.set(view.center.x - 0.5, 0.5 - view.center.y, 1);
  camera.lookAt(view.center.x - 0.5, 0.5 - view.center.y, 0);
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld();
}

function nextFrame(): Promise<number> {
  return new Promise((resolve) => requestAnimationFrame(resolve));
}

/** Flies the path with `map` (see the file's TSDoc). */
export async function runZoomPath(stage: ZoomStage, map: ZoomRenderer): Promise<ZoomRunResult> {
  const params = new URLSearchParams(location.search);
  const holdFrames = Number(params.get('hold') ?? DEFAULT_HOLD_FRAMES);
  const lastStep = Number(params.get('last') ?? MAX_ZOOM);
  const viewport = requestedViewport();
  const tracker = gpuTracker();
  tracker.resetPeak();
  const steps: StepResult[] = [];
  const frameMs: number[] = [];
  let gpuSum = 0;
  let frames = 0;
  let previous = await nextFrame();
  for (let step = 0; step <= lastStep; step++) {
    const view = viewAt(step, viewport.width, viewport.height);
    // Tells the tile server which step the requests that follow belong to (the accounting).
    const mark = params.get('mark');
    if (mark !== null) await fetch(`${mark}${step}`, { cache: 'no-store' });
    placeCamera(stage.camera, view);
    map.beginStep();
    const started = performance.now();
    // The first frame is the earliest the new view can be drawn, changed or not.
    let lastChange = 1;
    let lastChangeAt = started;
    for (let f = 1; f <= holdFrames; f++) {
      const now = await nextFrame();
      frameMs.push(now - previous);
      previous = now;
      if (map.frame(view) || f === 1) {
        lastChange = f;
        lastChangeAt = performance.now();
      }
      gpuSum += map.gpuBytes();
      frames++;
    }
    const completeFrames = map.completeFrame();
    steps.push({
      step,
      sharpFrames: lastChange,
      sharpMs: lastChangeAt - started,
      complete: completeFrames > 0,
      completeFrames,
    });
  }
  const result: ZoomRunResult = {
    backend: requestedBackend(),
    holdFrames,
    steps,
    frames,
    frameMsMedian: median(frameMs),
    gpuPeakBytes: map.gpuPeakBytes(),
    gpuMeanBytes: gpuSum / frames,
    counters: map.counters(),
    gpuErrors: await tracker.checkErrors(),
  };
  map.dispose();
  return result;
}
