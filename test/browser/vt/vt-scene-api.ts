import type { Page } from '@playwright/test';

/** Result of comparing a captured frame with the analytic content (see pages/vt-scene.ts). */
export interface Comparison {
  psnr: number;
  garbagePixels: number;
  worstError: number;
  mipHistogram: number[];
  /** Normal layers: largest |blue - z(red, green)| (linear), else 0. */
  worstZ: number;
}

/** The page API of pages/vt-scene.ts, as seen from a spec through `page.evaluate`. */
export interface VtSceneApi {
  size: number;
  pages: number;
  mipCount: number;
  isWebGPU: boolean;
  setOrthoView(cu: number, cv: number, lod: number): void;
  setPose(x: number, y: number, z: number, yaw: number, pitch: number): void;
  step(frames?: number): void;
  compare(lod: number, tolerance?: number): Promise<Comparison>;
  comparePerspective(
    tolerance?: number,
  ): Promise<{ checked: number; garbagePixels: number; worstError: number }>;
  /** True when the texture's page table is stored densely (`?storage=dense|sparse` forces one). */
  pageTableDense: boolean;
  waitReady(maxFrames?: number): Promise<number>;
  settle(maxFrames?: number): Promise<number>;
  /** Frames until the system reports settled (stricter than settle), -1 if it never did. */
  waitSettled(maxFrames?: number): Promise<number>;
  stats(): {
    frame: number;
    gpuBytes: {
      total: number;
      poolLayers: number[];
      pageTables: number;
      feedbackTargets: number;
      readbackBuffers: number;
    };
    residentPages: number;
    /** Texel format of each pool layer. */
    poolFormats: string[];
    slotCount: number;
    uploadsLastFrame: number;
    feedbackSize: { width: number; height: number };
    byCategory: Record<'vt-pool' | 'page-table' | 'feedback' | 'readback' | 'staging', number>;
    pageTableShareBytes: number;
    uploadsTotal: number;
    mipBias: number;
    readbacks: { started: number; delivered: number; dropped: number; skipped: number; skippedStill: number };
    streaming: { queued: number; settled: boolean; failed: number };
  };
  stepAndCompareFeedback(): Promise<{ gpu: number[]; sim: number[]; pixelAgreement: number } | null>;
  /**
   * Steps up to `frames` GPU-paced frames (calling `move(i)` before each) and gathers the feedback
   * delivered: distinct pages, jitter offsets seen (jitter frame mod 16), readback counter growth;
   * stops once `untilPhases` offsets arrived (0: never).
   */
  gatherFeedback(
    frames: number,
    untilPhases?: number,
    move?: ((i: number) => void) | null,
  ): Promise<{
    pages: number[];
    phases: number[];
    frames: number;
    started: number;
    skipped: number;
    skippedStill: number;
  }>;
  /** The simulator's distinct pages for the current pose over all 16 jitter offsets. */
  simulatedPagesOverCycle(): number[];
  /** The system's `setStillFeedbackInterval`. */
  setStillFeedbackInterval(frames: number): void;
  /** Virtual-texture ids seen in any feedback so far. */
  requestedVts(): number[];
  dispose(): void;
  /** Format-choice probes (see pages/vt-scene.ts). */
  tryFormats(): { forced: string; fallbackFormats: string[][] };
  /** 16 small textures in a 1 MiB page-table share (see pages/vt-scene.ts). */
  manySmallTextures(): {
    dense: boolean[];
    pageTables: number;
    reserved: number;
    share: number;
    total: number;
    readback: number;
    tracked: number;
  };
  /** Two systems (BC7 and rgba8 pools) on one budget (see pages/vt-scene.ts). */
  twoPools(): {
    slots: number[];
    formats: string[][];
    total: number;
    readback: number;
    tracked: number;
    live: number;
    budgetBytes: number;
    trackedAfter: number;
    liveAfter: number;
  };
  /** The pool's slot grid. */
  poolShape(): { slotsPerRow: number; slotRows: number; arrayLayers: number; tileSize: number };
  /** Disposes the VT system alone. */
  disposeSystem(): void;
  /** Bytes the independent tracker counts for Tessera (WebGL2: textures only). */
  trackedBytes(): number;
  /** Bytes reserved in the system's budget. */
  budgetLiveBytes(): number;
  /** Resolves once the GPU has run everything submitted so far. */
  gpuIdle(): Promise<void>;
  /** Tile errors the system emitted so far. */
  tileErrors(): { code: string; cause: string | undefined; pageId: number }[];
}

/** Path of the test page. */
export const VT_SCENE = 'test/browser/vt/pages/vt-scene.html';

/** Waits for the page to finish its setup (title 'ready'). */
export async function waitForScene(page: Page): Promise<void> {
  await page.waitForFunction(() => document.title === 'ready', null, { timeout: 60_000 });
}

declare const vtScene: VtSceneApi;

/**
 * Shows the ortho view the steady-frame tests start from and waits until it has streamed in and
 * settled (at most 60 frames).
 */
export async function settleStartView(page: Page): Promise<void> {
  await page.evaluate(async () => {
    vtScene.setOrthoView(0.1, 0.1, 0.5);
    await vtScene.waitReady();
    await vtScene.settle(60);
  });
}

/**
 * Flies six frames of a short perspective path while tiles arrive late (open the page with a
 * `delay`), comparing every frame with the analytic content at some mip.
 */
export function flyAndComparePerspective(page: Page): Promise<{
  frames: Awaited<ReturnType<VtSceneApi['comparePerspective']>>[];
  residentPages: number;
}> {
  return page.evaluate(async () => {
    vtScene.setPose(0.3, 0.05, 0.2, 0.4, -0.5);
    await vtScene.waitReady();
    const frames = [];
    for (let i = 0; i < 6; i++) {
      vtScene.setPose(0.3 + i * 0.01, 0.05, 0.2 + i * 0.01, 0.4 + i * 0.05, -0.5);
      vtScene.step();
      frames.push(await vtScene.comparePerspective(10));
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return { frames, residentPages: vtScene.stats().residentPages };
  });
}
