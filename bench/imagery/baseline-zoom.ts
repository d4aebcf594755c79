/**
 * Imagery benchmark page: the plain three.js web map (baseline-map.ts) flying the zoom path
 * (zoom-run.ts). `?tiles=` the tile URL template, `?backend=`, `?hold=`, `?last=`.
 */

import { runBenchPage } from '../sources-browser/bench-page';
import { BaselineTileMap } from './baseline-map';
import { MAX_ZOOM } from './zoom-path';
import { createZoomStage, gpuTracker, requestedViewport, runZoomPath, type ZoomRenderer } from './zoom-run';

await runBenchPage(async () => {
  const params = new URLSearchParams(location.search);
  const stage = await createZoomStage();
  const map = new BaselineTileMap(stage.scene, {
    url: params.get('tiles') as string,
    maxZoom: MAX_ZOOM,
    cacheViews: Number(params.get('cacheviews') ?? 2),
    viewWidth: requestedViewport().width,
    viewHeight: requestedViewport().height,
  });
  const tracker = gpuTracker();
  let stepFrame = 0;
  let completeFrame = -1;
  let peakAlive = 0;
  const renderer: ZoomRenderer = {
    beginStep() {
      stepFrame = 0;
      completeFrame = -1;
    },
    frame(view) {
      const frame = map.update(view);
      stage.renderer.render(stage.scene, stage.camera);
      stepFrame++;
      if (frame.sharp === frame.wanted && completeFrame < 0) completeFrame = stepFrame;
      peakAlive = Math.max(peakAlive, frame.alive);
      return frame.changed;
    },
    completeFrame: () => completeFrame,
    gpuBytes: () => tracker.snapshot().liveBytes - stage.startBytes,
    gpuPeakBytes: () => tracker.snapshot().peakBytes - stage.startBytes,
    counters: () => ({ ...map.counters, peakTextures: peakAlive }),
    dispose: () => map.dispose(),
  };
  return runZoomPath(stage, renderer);
});
