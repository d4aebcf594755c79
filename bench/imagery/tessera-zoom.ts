/**
 * Imagery benchmark page: the same XYZ tiles as one virtual texture on one plane, flying the zoom
 * path (zoom-run.ts). `?tiles=` the tile URL template, `?backend=`, `?hold=`, `?last=`,
 * `?budgetMiB=` the system's budget (default 64), `?page=` the page side (default 264).
 * A frame changed what is drawn when a page was mapped during it; a step is complete once
 * `whenSettled()` (asked at the step's start, so the feedback must have seen the new view) says so.
 */

import { VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { ImageryTileSource, XyzPyramid } from '@tessera-vt/tessera/imagery';
import { Mesh, PlaneGeometry } from 'three';
import { MeshBasicNodeMaterial } from 'three/webgpu';
import { runBenchPage } from '../sources-browser/bench-page';
import { MAX_ZOOM } from './zoom-path';
import { createZoomStage, gpuTracker, runZoomPath, type ZoomRenderer } from './zoom-run';

/**
 * Page side with its border (`?page=`, default 264), and the border, texels: 256 texels of payload
 * a page, one XYZ tile each (with `?page=256`, 248: pages straddle tiles).
 */
const PAGE_SIZE = Number(new URLSearchParams(location.search).get('page') ?? 264);
const PAGE_BORDER = 4;

await runBenchPage(async () => {
  const params = new URLSearchParams(location.search);
  const stage = await createZoomStage();
  const vts = new VirtualTextureSystem(stage.renderer, {
    // The system's whole GPU budget (pool, page tables, feedback, staging).
    budgetBytes: Number(params.get('budgetMiB') ?? 64) * 2 ** 20,
    tileSize: PAGE_SIZE,
    border: PAGE_BORDER,
    filtering: 'trilinear',
  });
  const pyramid = new XyzPyramid({ url: params.get('tiles') as string, maxZoom: MAX_ZOOM });
  const source = new ImageryTileSource(pyramid, { tileSize: PAGE_SIZE, border: PAGE_BORDER });
  const map = vts.add(source);
  const material = new MeshBasicNodeMaterial();
  material.colorNode = virtualTexture(map);
  const geometry = new PlaneGeometry(1, 1);
  stage.scene.add(new Mesh(geometry, material));

  let mapped = false;
  let refreshed = 0;
  const markChanged = () => {
    mapped = true;
  };
  vts.events.on('page-loaded', markChanged);
  // A page written again with its neighbours' border changes what is drawn too.
  vts.events.on('page-refreshed', () => {
    refreshed++;
    mapped = true;
  });
  const tracker = gpuTracker();
  // WebGL2 has no labels: there the system's bytes are all bytes above the renderer's own.
  const labelled = requestedWebGPU();
  let step = 0;
  let stepStart = 0;
  let completeFrame = -1;
  // Per step, frames from the camera move until the feedback of the new view was analysed, and
  // until the first page was mapped: where the frames to sharp go.
  let feedbackFrame = -1;
  let firstPageFrame = -1;
  const feedbackFrames: number[] = [];
  const firstPageFrames: number[] = [];
  const endStep = () => {
    if (step > 0) {
      feedbackFrames.push(feedbackFrame);
      firstPageFrames.push(firstPageFrame);
    }
  };
  const renderer: ZoomRenderer = {
    beginStep() {
      endStep();
      const current = ++step;
      completeFrame = -1;
      feedbackFrame = -1;
      firstPageFrame = -1;
      stepStart = vts.frameNumber;
      // The frame the system knew it had settled, not the earlier feedback frame it resolves with.
      vts.whenSettled().then(
        () => {
          if (step === current) completeFrame = vts.frameNumber - stepStart;
        },
        () => {},
      );
    },
    frame() {
      mapped = false;
      vts.update(stage.camera, stage.scene);
      stage.renderer.render(stage.scene, stage.camera);
      const inStep = vts.frameNumber - stepStart;
      // Frame stepStart + 1 is the first drawn with the new camera.
      if (feedbackFrame < 0 && vts.stats().streaming.lastFeedbackFrame > stepStart) feedbackFrame = inStep;
      if (firstPageFrame < 0 && mapped) firstPageFrame = inStep;
      return mapped;
    },
    completeFrame: () => completeFrame,
    gpuBytes: () => {
      const s = tracker.snapshot();
      return labelled ? (s.byPrefix['tessera:']?.live ?? 0) : s.liveBytes - stage.startBytes;
    },
    gpuPeakBytes: () => {
      const s = tracker.snapshot();
      return labelled ? (s.byPrefix['tessera:']?.peak ?? 0) : s.peakBytes - stage.startBytes;
    },
    counters: () => {
      endStep();
      step = 0;
      const stats = vts.stats();
      return {
        uploadsTotal: stats.uploadsTotal,
        residentPages: stats.residentPages,
        slotCount: stats.slotCount,
        mipBias: stats.mipBias,
        pagesRefreshed: refreshed,
        feedbackFramesMedian: upperMedian(feedbackFrames),
        firstPageFramesMedian: upperMedian(firstPageFrames),
        ...source.counters,
      };
    },
    dispose: () => {
      vts.dispose();
      source.dispose();
      geometry.dispose();
      material.dispose();
    },
  };
  return runZoomPath(stage, renderer);
});

function requestedWebGPU(): boolean {
  return new URLSearchParams(location.search).get('backend') !== 'webgl';
}

function upperMedian(values: number[]): number {
  return values.length === 0 ? -1 : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}
