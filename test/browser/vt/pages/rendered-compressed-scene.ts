import { DataTexture, FloatType, Mesh, OrthographicCamera, PlaneGeometry, RGBAFormat, Scene } from 'three';
import { positionWorld } from 'three/tsl';
import { MeshBasicNodeMaterial, type Node, RenderTarget } from 'three/webgpu';
import { createDetailTextures } from '../../../../demo/terrain/detail-textures';
import { RenderedTileSource } from '../../../../src/three/rendered/rendered-tile-source';
import { splatAlbedo } from '../../../../src/three/rendered/splat-albedo';
import { virtualTexture } from '../../../../src/three/sampling/virtual-texture-node';
import { TesseraRuntime } from '../../../../src/three/tessera-runtime';
import type { VirtualTexture } from '../../../../src/three/virtual-texture';
import { VirtualTextureSystem } from '../../../../src/three/virtual-texture-system';
import { createTestRenderer, requestedBackend } from '../../support/renderer';
import { linearToSrgb } from '../test-content';

/**
 * Test page for rendered pages in a block-compressed pool: one RenderedTileSource of 8 x 8 pages
 * (tile 128, border 4, one world unit per mip-0 texel; a splat-mapped blend of the demo's detail
 * textures) added to two systems sharing one budget: "bc" with its layer `rendered: 'compressed'`
 * (BC7 sRGB on WebGPU, compressed on the GPU as pages render; rgba8 on WebGL2) and "rgba8" with
 * `rendered: 'rgba8'`. Scene "direct" evaluates the same node straight on a plane. An orthographic
 * camera at 2^mip texels per pixel, 128 x 128 pixels, compares the three. Exposes `globalThis.bcrvt`.
 */
const SIZE = 128;
const WORLD = 960;
const BUDGET = 16 * 1024 * 1024;
const renderer = await createTestRenderer(SIZE, SIZE);
const isWebGPU = requestedBackend() === 'webgpu';
const capture = new RenderTarget(SIZE, SIZE, { type: FloatType });
capture.texture.name = 'tessera-test:capture';

const splatBytes = new Uint8Array(16 * 16 * 4);
for (let y = 0; y < 16; y++) {
  for (let x = 0; x < 16; x++) {
    splatBytes.set([255 - x * 16, x * 16, y * 16, Math.max(0, (x + y - 16) * 16)], (y * 16 + x) * 4);
  }
}
const splatMap = new DataTexture(splatBytes, 16, 16, RGBAFormat);
splatMap.needsUpdate = true;
// Another seed and other repeats than rendered-scene's: content the compressor was not tuned on.
const details = createDetailTextures(11, 128);
const albedo = splatAlbedo({
  splatMap,
  world: { x: 0, y: 0, width: WORLD, height: WORLD },
  layers: [
    { texture: details.grass, repeat: 56 },
    { texture: details.rock, repeat: 88 },
    { texture: details.sand, repeat: 40 },
    { texture: details.snow, repeat: 72 },
  ],
});
const source = new RenderedTileSource({
  widthPages: 8,
  heightPages: 8,
  world: { x: 0, y: 0, width: WORLD, height: WORLD },
  layers: [{ name: 'albedo', node: albedo }],
});
const runtime = new TesseraRuntime({ budgetBytes: BUDGET });
const budget = runtime.budget;
const camera = new OrthographicCamera(0, SIZE, SIZE, 0, 0.5, 20);
camera.position.z = 10;

/** A system of one rendered albedo layer stored as `rendered`, its texture on a plane. */
function rendered(storage: 'compressed' | 'rgba8') {
  const system = new VirtualTextureSystem(renderer, {
    runtime,
    shareBytes: BUDGET / 2,
    maxUploadsPerFrame: 8,
    maxRendersPerFrame: 6,
    layers: [{ name: 'albedo', format: 'rgba8unorm-srgb', rendered: storage }],
  });
  const vt: VirtualTexture = system.add(source, { name: storage });
  const material = new MeshBasicNodeMaterial();
  material.colorNode = virtualTexture(vt, positionWorld.xy.div(WORLD), { uvSpace: 'virtual' });
  return { system, scene: planeScene(material) };
}

function planeScene(material: MeshBasicNodeMaterial): Scene {
  const scene = new Scene();
  const plane = new Mesh(new PlaneGeometry(WORLD, WORLD), material);
  plane.position.set(WORLD / 2, WORLD / 2, 0);
  scene.add(plane);
  return scene;
}

const bc = rendered('compressed');
const rgba8 = rendered('rgba8');
const directMaterial = new MeshBasicNodeMaterial();
directMaterial.colorNode = albedo(positionWorld.xy as unknown as Node) as never;
const direct = { scene: planeScene(directMaterial) };

const frames: { budgetLive: number; tracked: number; rendered: number }[] = [];
const tracker = (globalThis as unknown as { __tesseraGpuTracker: { liveBytesWithPrefix(p: string): number } })
  .__tesseraGpuTracker;

/** One frame of system `s`: its update (feedback pass, renders) and its scene on the canvas. */
function frame(s: typeof bc): void {
  s.system.update(camera, s.scene);
  renderer.render(s.scene, camera);
  frames.push({
    budgetLive: budget.liveBytes,
    tracked: isWebGPU ? tracker.liveBytesWithPrefix('tessera:') : 0,
    rendered: s.system.stats().rendering.renderedLastFrame,
  });
}

async function read(scene: Scene): Promise<Float32Array> {
  renderer.setRenderTarget(capture);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  renderer.render(scene, camera);
  return (await renderer.readRenderTargetPixelsAsync(capture, 0, 0, SIZE, SIZE)) as Float32Array;
}

/** PSNR of two linear captures, compared as sRGB bytes (what the canvas shows), in dB. */
function psnr(a: Float32Array, b: Float32Array): number {
  let squared = 0;
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    if (i % 4 === 3) continue;
    squared += (linearToSrgb(a[i]) - linearToSrgb(b[i])) ** 2;
    n++;
  }
  return squared === 0 ? 99 : 10 * Math.log10((255 * 255) / (squared / n));
}

/** True when `s`'s latest feedback is recent and it has nothing queued, loading, awaiting upload or waiting to re-render. */
function quiet(s: typeof bc): boolean {
  const stats = s.system.stats();
  const q = stats.streaming;
  // Readbacks lag behind the GPU's queue (the compression kernels are slow on SwiftShader): only a
  // recent feedback can say nothing is missing.
  const recent = stats.frame - q.lastFeedbackFrame <= 3;
  return recent && q.queued + q.loading + q.awaitingUpload === 0 && stats.rendering.renderedLastFrame === 0;
}

/**
 * Runs frames of both systems (interleaved) until both have been quiet for 24 frames in a row
 * (past a full 16-frame jitter cycle of feedback), at most `maxFrames`; returns the frames run.
 */
async function settle(maxFrames = 300): Promise<number> {
  let quietFrames = 0;
  let n = 0;
  while (quietFrames < 24 && n < maxFrames) {
    frame(bc);
    frame(rgba8);
    quietFrames = quiet(bc) && quiet(rgba8) ? quietFrames + 1 : 0;
    n++;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return n;
}

const api = {
  /** Settles both systems at `mip` from texel (x0, y0) and compares them and the direct render. */
  async compare(x0: number, y0: number, mip: number) {
    const s = 2 ** mip;
    camera.left = x0;
    camera.right = x0 + SIZE * s;
    camera.bottom = y0;
    camera.top = y0 + SIZE * s;
    camera.updateProjectionMatrix();
    const settleFrames = await settle();
    const [bcPixels, rgbaPixels, directPixels] = [
      await read(bc.scene),
      await read(rgba8.scene),
      await read(direct.scene),
    ];
    const stats = bc.system.stats();
    return {
      settleFrames,
      bcVsDirect: psnr(bcPixels, directPixels),
      bcVsRgba8: psnr(bcPixels, rgbaPixels),
      rgba8VsDirect: psnr(rgbaPixels, directPixels),
      poolFormats: stats.poolFormats,
      rgba8PoolFormats: rgba8.system.stats().poolFormats,
      compressedTotal: stats.rendering.compressedTotal,
      renderedTotal: stats.rendering.renderedTotal,
      renderTargetBytes: stats.gpuBytes.renderTargets,
      stagingReserved: stats.byCategory.staging,
      bcStreaming: stats.streaming,
      rgba8Streaming: rgba8.system.stats().streaming,
      bcSettled: bc.system.isSettled,
      rgba8Settled: rgba8.system.isSettled,
    };
  },
  frames: () => frames,
  budgetBytes: BUDGET,
  dispose(): number {
    bc.system.dispose();
    rgba8.system.dispose();
    runtime.dispose();
    source.dispose();
    return isWebGPU ? tracker.liveBytesWithPrefix('tessera:') : 0;
  },
};
(globalThis as unknown as { bcrvt: typeof api }).bcrvt = api;
document.title = 'ready';
