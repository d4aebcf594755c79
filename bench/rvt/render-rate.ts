import { OrthographicCamera, Scene } from 'three';
import { RenderTarget, WebGPURenderer } from 'three/webgpu';
import { RenderedTerrain } from '../../demo/terrain/rendered-terrain';
import { TextureBudget } from '../../src/core/budget/texture-budget';
import { packPageId } from '../../src/core/vt/page-id';
import { ProceduralTileSource } from '../../src/sources/procedural/procedural-tile-source';
import { ProceduralWorld } from '../../src/sources/procedural/procedural-world';
import { BackendBridge } from '../../src/three/backend-bridge';
import { TileRenderStage } from '../../src/three/rendered/tile-render-stage';
import { PoolTextures } from '../../src/three/residency/pool-textures';

/** What the page leaves in `globalThis.benchResult`. */
export interface RenderRateResult {
  backend: 'webgpu' | 'webgl';
  /** Pages (albedo + normal) rendered and copied into their pool slots per second, GPU work finished. */
  renderOnlyTilesPerSecond: number;
  /**
   * Pages rendered and compressed on the GPU into BC7 pool slots (albedo sRGB + normal, mode 6, as
   * the demo) per second, GPU work finished; null on WebGL2 (no compressor).
   */
  renderCompressTilesPerSecond: number | null;
  /** CPU procedural tiles (albedo + normal) generated per second on this page's thread (one core). */
  cpuProceduralTilesPerSecond: number;
  tiles: number;
}

/**
 * Runtime virtual texture throughput, one backend per page (`?backend=`): the demo's terrain
 * material (splat-mapped detail textures, roads, labels) rendered page by page through the
 * system's own render stage (render into the tile-sized targets, `writeRenderedTile` into the
 * slot), against the CPU procedural generator's tiles on one core, in the same run; on WebGPU
 * also the same pages rendered and compressed into BC7 slots (`render_compress`, the
 * `CompressingTileWriter` path), timed the same way by the same loop.
 */
const backend = new URLSearchParams(location.search).get('backend') === 'webgl' ? 'webgl' : 'webgpu';
const TILES = 96;
try {
  const renderer = new WebGPURenderer({ forceWebGL: backend === 'webgl', antialias: false });
  renderer.setSize(64, 64);
  document.body.appendChild(renderer.domElement);
  await renderer.init();
  renderer.render(new Scene(), new OrthographicCamera());
  const bridge = new BackendBridge(renderer);
  const terrain = new RenderedTerrain(new ProceduralWorld({ seed: 1 }), 1);
  const formats = terrain.source.info.layers.map((l) => ({
    target: 'rgba8' as const,
    format: l.format as 'rgba8unorm',
    fellBack: false,
  }));
  const pool = new PoolTextures(
    bridge,
    { slotsPerRow: 16, slotRows: 8, arrayLayers: 1, tileSize: 128 },
    formats,
  );
  const budget = new TextureBudget({ budgetBytes: 64 << 20 });
  const stage = new TileRenderStage(
    bridge,
    budget,
    formats.map((f) => f.format),
    128,
    TILES,
  );
  stage.attach(0, terrain.source, new Int8Array([0, 1]), () => {});
  // A 1x1 target drawn after the pages (its read completes only after them, in order).
  const probe = new RenderTarget(1, 1);
  const finish = async () => {
    renderer.setRenderTarget(probe);
    renderer.render(new Scene(), new OrthographicCamera());
    renderer.setRenderTarget(null);
    const device = (renderer.backend as { device?: GPUDevice }).device;
    if (device) await device.queue.onSubmittedWorkDone();
    else {
      // A pixel read from the pool waits for every copy into it (finish alone may not on ANGLE).
      const gl = (renderer.backend as unknown as { gl: WebGL2RenderingContext }).gl;
      gl.finish();
      await renderer.readRenderTargetPixelsAsync(probe, 0, 0, 1, 1);
    }
  };
  // Pages of mip 0 around the valley (the demo's start), distinct each time (no caching anywhere).
  const page = (i: number) => packPageId(0, 0, 230 + (i % 12), 360 + Math.floor(i / 12));
  stage.beginFrame({} as never, pool); // nothing queued: no re-renders
  for (let i = 0; i < 8; i++) stage.render(0, pool, i, page(i)); // warm-up: pipelines compiled
  await finish();
  const t0 = performance.now();
  for (let i = 0; i < TILES; i++) stage.render(0, pool, i % pool.slotCount, page(i + 8));
  await finish();
  const renderSeconds = (performance.now() - t0) / 1000;
  let renderCompressTilesPerSecond: number | null = null;
  if (backend === 'webgpu') {
    // The same pages through a stage whose pool layers are BC7: rendered, then compressed into the slot.
    const bcFormats = [
      { target: 'bc7' as const, format: 'bc7-rgba-unorm-srgb' as const, fellBack: false },
      { target: 'bc7' as const, format: 'bc7-rgba-unorm' as const, fellBack: false },
    ];
    const bcPool = new PoolTextures(
      bridge,
      { slotsPerRow: 16, slotRows: 8, arrayLayers: 1, tileSize: 128 },
      bcFormats,
    );
    const bcStage = new TileRenderStage(
      bridge,
      budget,
      bcFormats.map((f) => f.format),
      128,
      TILES,
    );
    bcStage.attach(0, terrain.source, new Int8Array([0, 1]), () => {});
    bcStage.beginFrame({} as never, bcPool);
    for (let i = 0; i < 8; i++) bcStage.render(0, bcPool, i, page(i)); // warm-up: kernels compiled
    await finish();
    const compressTiles = TILES / 2;
    const t2 = performance.now();
    for (let i = 0; i < compressTiles; i++) bcStage.render(0, bcPool, i % bcPool.slotCount, page(i + 8));
    await finish();
    renderCompressTilesPerSecond = compressTiles / ((performance.now() - t2) / 1000);
    bcStage.dispose();
    bcPool.dispose();
  }
  const cpu = new ProceduralTileSource({ seed: 1 });
  const signal = new AbortController().signal;
  await cpu.load(0, 500, 500, signal);
  const t1 = performance.now();
  const cpuTiles = 24;
  for (let i = 0; i < cpuTiles; i++) await cpu.load(0, 230 + (i % 12), 360 + Math.floor(i / 12), signal);
  const cpuSeconds = (performance.now() - t1) / 1000;
  const result: RenderRateResult = {
    backend,
    renderOnlyTilesPerSecond: TILES / renderSeconds,
    renderCompressTilesPerSecond,
    cpuProceduralTilesPerSecond: cpuTiles / cpuSeconds,
    tiles: TILES,
  };
  stage.dispose();
  pool.dispose();
  terrain.dispose();
  (globalThis as { benchResult?: unknown }).benchResult = result;
  document.title = 'done';
} catch (error) {
  (globalThis as { benchError?: unknown }).benchError = String(error);
  document.title = 'error';
}
