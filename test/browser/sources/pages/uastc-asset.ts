/**
 * Page for uastc-archive.spec.ts: the committed UASTC archive (`?archive=`, albedo + normal
 * layers) opened with `ArchiveTileSource.open(url)` and added to a system with the README's UASTC
 * pool layers and no forced target, so each layer's pool format is the device's choice. A plane shows both layers (albedo lit by the
 * normal layer's tangent-space normal), so both pools are sampled and requested. Exposes
 * `globalThis.uastcAsset` and sets the title to 'ready'.
 */
import { Mesh, OrthographicCamera, PlaneGeometry, Scene } from 'three';
import { dot, uv, vec3 } from 'three/tsl';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { ArchiveTileSource, VirtualTextureSystem, virtualTexture } from '../../../../src/index';
import { createTestRenderer } from '../../support/renderer';

const params = new URLSearchParams(location.search);
const width = 512;
const height = 512;
/** The system's budget, in bytes. */
const BUDGET_BYTES = 48 * 2 ** 20;

const renderer = await createTestRenderer(width, height);
const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;
const tracker = (
  globalThis as unknown as { __tesseraGpuTracker: { liveBytesWithPrefix(prefix: string): number } }
).__tesseraGpuTracker;
// WebGL2 textures carry no labels: count GL texture bytes over those three made before the system.
/** The frame rendered into (rgba8), for {@link frameVariety}. */
const capture = new RenderTarget(width, height);
const scene = new Scene();
// A third of the plane (640 of 1920 texels) over 512 pixels: mip 0 is wanted, finer than the
// three pinned mips, so pages must stream in.
const camera = new OrthographicCamera(-1 / 6, 1 / 6, 1 / 6, -1 / 6, 0.1, 10);
camera.position.set(0.1, -0.05, 1);
renderer.render(scene, camera);
renderer.setRenderTarget(capture);
renderer.render(scene, camera);
renderer.setRenderTarget(null);
const glBaseline = isWebGPU ? 0 : tracker.liveBytesWithPrefix('webgl:texture');

// The README's block-compressed pool layers; the terrain is opaque.
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: BUDGET_BYTES,
  layers: [
    { name: 'albedo', format: 'uastc-4x4-srgb', alpha: false },
    { name: 'normal', format: 'uastc-4x4', usage: 'normal' },
  ],
});
const source = await ArchiveTileSource.open(params.get('archive') as string);
const world = vts.add(source, { name: 'world' });
const albedo = virtualTexture(world, uv(), { uvSpace: 'virtual' });
const normal = albedo.layer('normal');
const material = new MeshBasicNodeMaterial();
// Lambert term of the decoded normal under a light from above-left: both layers shape the frame.
const light = vec3(-0.4, 0.4, 0.82).normalize();
material.colorNode = albedo.rgb.mul(dot(normal.rgb.mul(2).sub(1).normalize(), light).max(0.2));
scene.add(new Mesh(new PlaneGeometry(1, 1), material));

const errors: string[] = [];
vts.events.on('error', (event) => errors.push(`${event.error.code}: ${event.error.message}`));

/** Runs frames (rendered to the canvas) until `whenSettled()` resolves; frames taken, -1 if not. */
async function settle(maxFrames = 600): Promise<number> {
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

/** Distinct colours and the mean of the frame (a blank, black or flat frame has few). */
async function frameVariety(): Promise<{ distinct: number; mean: number }> {
  renderer.setRenderTarget(capture);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  const pixels = (await renderer.readRenderTargetPixelsAsync(capture, 0, 0, width, height)) as Uint8Array;
  const seen = new Set<number>();
  let sum = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
    sum += pixels[i] + pixels[i + 1] + pixels[i + 2];
  }
  return { distinct: seen.size, mean: sum / ((pixels.length / 4) * 3) };
}

const api = {
  settle,
  stats: () => vts.stats(),
  layers: () =>
    source.info.layers.map((layer) => ({ name: layer.name, format: layer.format, usage: layer.usage })),
  errors: () => [...errors],
  budgetBytes: BUDGET_BYTES,
  /** Tessera's GPU bytes as the independent tracker counts them. */
  trackedBytes: () =>
    isWebGPU
      ? tracker.liveBytesWithPrefix('tessera:')
      : tracker.liveBytesWithPrefix('webgl:texture') - glBaseline,
  frameVariety,
  dispose(): void {
    vts.dispose();
    source.dispose();
  },
};
(globalThis as unknown as { uastcAsset: typeof api }).uastcAsset = api;
document.title = 'ready';
