/**
 * Page for fault-burst.spec.ts: a virtual texture (the committed WebP archive) on a large plane and
 * five streamed KTX2 textures (the valley props) on small planes, all read from `?assets=` (the
 * test server's fault injection, or the plain files). An orthographic camera looks down at poses
 * that need other pages and other levels. `faultBurst.visit(pose, frames)` renders a pose for a
 * number of frames, `faultBurst.settle(pose)` until both systems settle, `faultBurst.measure()`
 * counts live GPU objects (the independent tracker) and reads the systems' failure counts, and
 * `faultBurst.pixels()` reads the frame back. Sets the title to 'ready'.
 */
import { Mesh, OrthographicCamera, PlaneGeometry, Scene } from 'three';
import { uv } from 'three/tsl';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import {
  ArchiveTileSource,
  Ktx2Source,
  TextureStreamingSystem,
  VirtualTextureSystem,
  virtualTexture,
} from '../../../../src/index';
import { createTestRenderer } from '../../support/renderer';

const params = new URLSearchParams(location.search);
const assets = params.get('assets') as string;
const SIZE = 256;
const renderer = await createTestRenderer(SIZE, SIZE);
const capture = new RenderTarget(SIZE, SIZE);
const scene = new Scene();
const camera = new OrthographicCamera(-1, 1, 1, -1, 0.1, 10);
camera.position.set(0, 0, 5);

// The archive's two layers (albedo, normal) in rgba8 pools; the plane samples the albedo.
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: 24 * 2 ** 20,
  layers: [
    { name: 'albedo', format: 'rgba8unorm-srgb' },
    { name: 'normal', format: 'rgba8unorm', usage: 'normal' },
  ],
});
const source = await ArchiveTileSource.open(`${assets}world-seed7-64p.tsva`);
const world = vts.add(source, { name: 'world' });
const ground = new Mesh(new PlaneGeometry(16, 16), new MeshBasicNodeMaterial());
(ground.material as MeshBasicNodeMaterial).colorNode = virtualTexture(world, uv());
scene.add(ground);

const streaming = new TextureStreamingSystem(renderer, { budgetBytes: 16 * 2 ** 20 });
const props = ['bark', 'leaves', 'rock', 'roof', 'wall'];
const sources = await Promise.all(props.map((name) => Ktx2Source.open(`${assets}props/valley-${name}.ktx2`)));
sources.forEach((ktx2, i) => {
  const mesh = new Mesh(new PlaneGeometry(1.5, 1.5), new MeshBasicNodeMaterial());
  mesh.position.set(-5 + i * 2.5, (i % 2) * 3 - 1.5, 0.01);
  scene.add(mesh);
  streaming.attach(mesh, streaming.add(ktx2, { name: props[i] }));
});

/** Each error reported, with its chain of causes (what the spec shows when a count is off). */
const errors: string[] = [];
function errorChain(error: unknown): string {
  const parts: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) {
    parts.push(`${(e as { code?: string }).code ?? e.name}: ${e.message}`);
  }
  return parts.join(' <- ');
}
vts.events.on('error', ({ error }) => errors.push(`vt ${errorChain(error)}`));
streaming.events.on('error', ({ error }) => errors.push(`streamed ${errorChain(error)}`));

/**
 * Camera rectangles (centre x, y and half-height, world units): the first is where the test
 * measures; 1-5 are toured while the server is flaky, 6-9 while it is down.
 */
const POSES: [number, number, number][] = [
  [0, 0, 6],
  [-5, -1.5, 0.6],
  [5, 1.5, 0.5],
  [-6, 6, 1],
  [6, -6, 0.8],
  [2.5, 1.5, 0.7],
  [-3, -6, 0.7],
  [3, 6, 0.6],
  [-7, 1, 0.5],
  [0, -1.5, 0.9],
];

function pose(index: number): void {
  const [x, y, half] = POSES[index];
  camera.position.set(x, y, 5);
  camera.left = -half;
  camera.right = half;
  camera.top = half;
  camera.bottom = -half;
  camera.updateProjectionMatrix();
}

async function frame(): Promise<void> {
  vts.update(camera, scene);
  streaming.update(camera, scene);
  renderer.render(scene, camera);
  await new Promise((resolve) => requestAnimationFrame(resolve));
}

/** Renders pose `index` for `frames` frames. */
async function visit(index: number, frames: number): Promise<void> {
  pose(index);
  for (let i = 0; i < frames; i++) await frame();
}

/** Renders pose `index` until both systems settle (at most `maxFrames`); frames taken, -1 if not. */
async function settle(index: number, maxFrames = 900): Promise<number> {
  pose(index);
  let done = 0;
  const ignore = () => {};
  vts.whenSettled().then(() => done++, ignore);
  streaming.whenSettled().then(() => done++, ignore);
  for (let i = 0; i < maxFrames; i++) {
    await frame();
    if (done === 2) return i + 1;
  }
  return -1;
}

interface TrackerApi {
  snapshot(): { textures: number; buffers: number };
  liveByLabel(): Record<string, { count: number }>;
}

function measure() {
  const tracker = (globalThis as unknown as { __tesseraGpuTracker: TrackerApi }).__tesseraGpuTracker;
  const snapshot = tracker.snapshot();
  const byLabel: Record<string, number> = {};
  for (const [label, entry] of Object.entries(tracker.liveByLabel())) byLabel[label] = entry.count;
  const vt = vts.stats().streaming;
  const streamed = streaming.stats();
  return {
    objects: snapshot.textures + snapshot.buffers,
    byLabel,
    vt: { failed: vt.failed, failedTotal: vt.failedTotal, retries: vt.retries },
    streamed: {
      failed: streamed.streaming.failed,
      failedTotal: streamed.streaming.failedTotal,
      retries: streamed.streaming.retries,
    },
    errors: errors.length,
    errorCauses: errors.slice(),
  };
}

/** The frame at the current pose, rgba8. */
async function pixels(): Promise<number[]> {
  renderer.setRenderTarget(capture);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  return Array.from((await renderer.readRenderTargetPixelsAsync(capture, 0, 0, SIZE, SIZE)) as Uint8Array);
}

(globalThis as unknown as { faultBurst: unknown }).faultBurst = {
  visit,
  settle,
  measure,
  pixels,
  poses: POSES.length,
};
document.title = 'ready';
