/**
 * Web-map tiles from a flaky or dead server, streamed as virtual textures: two planes side by side,
 * `?left=` and `?right=` each an XYZ URL template (through the test server's fault injection,
 * `/__faults/...`, or straight), `?maxZoom=` their finest zoom. `run()` settles a close view
 * across both planes and an overview, and reports what each view drew, every `error` event and the
 * system's and sources' failure counts.
 */

import { HttpClient, VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { ImageryTileSource, XyzPyramid } from '@tessera-vt/tessera/imagery';
import { Mesh, PerspectiveCamera, PlaneGeometry, Scene, UnsignedByteType } from 'three';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { createTestRenderer } from '../../support/renderer';

const params = new URLSearchParams(location.search);
const WIDTH = 480;
const HEIGHT = 240;
const renderer = await createTestRenderer(WIDTH, HEIGHT);
const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;
const vts = new VirtualTextureSystem(renderer, { budgetBytes: 64 * 2 ** 20, filtering: 'trilinear' });
const errors: { vt: number; pageId: number; code: string; cause: string }[] = [];
vts.events.on('error', ({ vt, pageId, error }) => {
  const cause = (error as { cause?: { code?: string } }).cause?.code ?? '';
  errors.push({ vt, pageId, code: error.code, cause });
});

const scene = new Scene();
const sides = ['left', 'right'].map((side, i) => {
  const pyramid = new XyzPyramid({
    url: location.origin + (params.get(side) as string),
    maxZoom: Number(params.get('maxZoom')),
    // Quick retries: the faults are injected, not load on a real server.
    http: new HttpClient({ baseDelayMs: 20, maxDelayMs: 300, timeoutMs: 1000, retries: 4 }),
  });
  const source = new ImageryTileSource(pyramid);
  const vt = vts.add(source);
  const material = new MeshBasicNodeMaterial();
  material.colorNode = virtualTexture(vt);
  const mesh = new Mesh(new PlaneGeometry(1, 1), material);
  mesh.position.x = i - 0.5;
  scene.add(mesh);
  return { pyramid, source, vt };
});

const camera = new PerspectiveCamera(40, WIDTH / HEIGHT, 0.001, 10);
const capture = new RenderTarget(WIDTH, HEIGHT, { type: UnsignedByteType });
/** Camera distances: close (finest zoom, both planes' inner halves), the whole of both planes. */
const VIEWS = { close: 0.15, whole: 1.6 };

/** Frames until settled, or (`?frames=`, where a dead host keeps a texture from settling) a fixed count. */
async function settle(maxFrames = 600): Promise<number> {
  const fixed = Number(params.get('frames') ?? 0);
  if (fixed > 0) {
    for (let i = 0; i < fixed; i++) {
      vts.update(camera, scene);
      renderer.render(scene, camera);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
    return fixed;
  }
  let settled = false;
  vts.whenSettled().then(() => {
    settled = true;
  });
  for (let i = 0; i < maxFrames; i++) {
    vts.update(camera, scene);
    renderer.render(scene, camera);
    await new Promise((resolve) => requestAnimationFrame(resolve));
    if (settled) return i + 1;
  }
  return -1;
}

async function shoot(): Promise<number[]> {
  renderer.setRenderTarget(capture);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  const pixels = (await renderer.readRenderTargetPixelsAsync(capture, 0, 0, WIDTH, HEIGHT)) as Uint8Array;
  // Rows top down on both backends.
  const out = new Array<number>(pixels.length);
  for (let y = 0; y < HEIGHT; y++) {
    const row = isWebGPU ? y : HEIGHT - 1 - y;
    for (let x = 0; x < WIDTH * 4; x++) out[row * WIDTH * 4 + x] = pixels[y * WIDTH * 4 + x];
  }
  return out;
}

async function run() {
  const views: Record<string, { frames: number; pixels: number[] }> = {};
  for (const [name, distance] of Object.entries(VIEWS)) {
    camera.position.set(0, 0.05, distance);
    camera.lookAt(0, 0.05, 0);
    camera.updateMatrixWorld(true);
    const frames = await settle();
    views[name] = { frames, pixels: await shoot() };
  }
  const report = {
    views,
    errors,
    failedPages: vts.stats().streaming.failed,
    sources: sides.map(({ pyramid, source }) => ({ ...pyramid.counters, ...source.counters })),
  };
  // Aborts the loads still retrying (a dead host's), so no request fails after the report.
  vts.dispose();
  for (const { source } of sides) source.dispose();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return report;
}

Object.assign(window, { imageryFaults: { run } });
document.title = 'ready';
