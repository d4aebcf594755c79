/**
 * A glTF made streamable by `tessera gltf` (a .glb with one .ktx2 per texture beside it), loaded
 * as the README says: `registerGltfTextureStreaming(loader, streaming, { tag }).load(url)`, in a
 * 704x128 view where each unit quad covers about 121 pixels. Reports the first frame every
 * texture rendered textured, and where each texture settled; keeps the settled frame's pixels, and
 * those three's own GLTFLoader + KTX2Loader draw of the same file, to compare.
 */

import { AmbientLight, OrthographicCamera, RenderTarget, Scene } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/examples/jsm/loaders/KTX2Loader.js';
import type { Texture } from 'three/webgpu';
import { registerGltfTextureStreaming } from '../../../../src/three/gltf/gltf-texture-streaming';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import { createTestRenderer } from '../../support/renderer';

const mark = (globalThis as unknown as { markFrame(phase: string, frame: number): Promise<void> }).markFrame;
const width = 704;
const height = 128;
const renderer = await createTestRenderer(width, height);
const target = new RenderTarget(width, height);
const camera = new OrthographicCamera(-2.915, 2.915, 0.53, -0.53, 0.1, 10);
camera.position.set(0, 0, 2);
const scene = new Scene();
// Lit, so the settled frames compared show the textures (the quads are rough dielectrics).
scene.add(new AmbientLight(0xffffff, Math.PI));
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Pixels of the last frame drawn by each run, by its name. */
const frames = new Map<string, Uint8Array>();

/** Renders into the target (the frame the spec compares) and reads it back. */
async function drawAndRead(): Promise<Uint8Array> {
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  return new Uint8Array(
    (await renderer.readRenderTargetPixelsAsync(target, 0, 0, width, height)) as ArrayLike<number>,
  );
}

/**
 * Streams `url` until settled; bytes served are tagged `<name>-load` until the first frame, then
 * `<name>-stream` with the frame number. The settled frame is kept as `name`.
 */
async function run(url: string, name = 'baked') {
  const streaming = new TextureStreamingSystem(renderer, { budgetBytes: 64 << 20 });
  const errors: string[] = [];
  streaming.events.on('error', ({ error, textureName }) =>
    errors.push(`${textureName}: ${error.code}: ${error.message}`),
  );
  const gltfStreaming = registerGltfTextureStreaming(new GLTFLoader(), streaming, { tag: 'scene' });
  await mark(`${name}-load`, 0);
  const gltf = await gltfStreaming.load(url);
  scene.add(gltf.scene);
  const textures = gltfStreaming.texturesOf(gltf.scene);
  const mapsAreStreamed = gltf.scene.children.every((child) => {
    const material = (child as unknown as { material: { map: Texture | null } }).material;
    return textures.some((t) => t.texture === material.map);
  });
  let firstTexturedFrame = -1;
  let frameCount = 0;
  const settled = () => textures.every((t) => streaming.planner.isSettled(t.id));
  for (let n = 1; n <= 600 && (n <= 10 || !settled()); n++) {
    streaming.update(camera, scene, n);
    renderer.render(scene, camera);
    await mark(`${name}-stream`, n);
    if (firstTexturedFrame < 0 && textures.every((t) => streaming.planner.isRenderable(t.id)))
      firstTexturedFrame = n;
    frameCount = n;
    await nextTask();
  }
  frames.set(name, await drawAndRead());
  const result = {
    firstTexturedFrame,
    settled: settled(),
    frames: frameCount,
    mapsAreStreamed,
    errors,
    textures: textures.map((t) => ({
      name: t.name,
      format: t.source.format,
      levels: t.source.mipLevelCount,
      mip: streaming.residentMipOf(t),
    })),
  };
  scene.remove(gltf.scene);
  gltfStreaming.dispose();
  streaming.dispose();
  return result;
}

/** three's own GLTFLoader + KTX2Loader on `url` (no Tessera), its frame kept as `name`. */
async function reference(url: string, name: string) {
  const ktx2Loader = new KTX2Loader().setTranscoderPath('/node_modules/three/examples/jsm/libs/basis/');
  ktx2Loader.detectSupport(renderer);
  await mark(`${name}-load`, 0);
  const gltf = await new GLTFLoader().setKTX2Loader(ktx2Loader).loadAsync(url);
  scene.add(gltf.scene);
  frames.set(name, await drawAndRead());
  scene.remove(gltf.scene);
  gltf.scene.traverse((object) => {
    const map = (object as unknown as { material?: { map?: Texture | null } }).material?.map;
    map?.dispose();
  });
  ktx2Loader.dispose();
}

/**
 * The largest channel difference and the PSNR (dB, RGB, 8-bit; Infinity when equal) of frame `b`
 * against `a`, and the share of `b`'s pixels that are not the clear colour (black): a frame where
 * nothing was drawn would equal another such frame.
 */
function compare(a: string, b: string): { maxDifference: number; psnr: number; drawn: number } {
  const x = frames.get(a) as Uint8Array;
  const y = frames.get(b) as Uint8Array;
  let maxDifference = 0;
  let squares = 0;
  let drawn = 0;
  for (let i = 0; i < x.length; i += 4) {
    if (y[i] + y[i + 1] + y[i + 2] > 0) drawn++;
    for (let c = 0; c < 3; c++) {
      const d = x[i + c] - y[i + c];
      maxDifference = Math.max(maxDifference, Math.abs(d));
      squares += d * d;
    }
  }
  const mse = squares / ((x.length / 4) * 3);
  return {
    maxDifference,
    psnr: mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse),
    drawn: drawn / (x.length / 4),
  };
}

(globalThis as unknown as { gltfPage: unknown }).gltfPage = { run, reference, compare };
document.title = 'ready';
