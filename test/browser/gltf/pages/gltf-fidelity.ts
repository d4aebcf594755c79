/**
 * The showcase glTF scene (test/support/gltf-showcase-scene.ts) drawn twice in one page: by three's
 * own GLTFLoader + KTX2Loader, and streamed through `registerGltfTextureStreaming` +
 * `TextureStreamingSystem`, as the README shows. Reports PSNR of the settled frame overall and per
 * mesh (a mask render names each pixel's mesh), what reached the GPU for each streamed texture
 * (WebGPU: the samplers bound beside its views, recorded by the spec's init script; WebGL2: the GL
 * texture parameters), the first textured frame and the bytes the budget saw.
 */

import {
  Color,
  DirectionalLight,
  HemisphereLight,
  type Material,
  type Mesh,
  MeshBasicMaterial,
  type Object3D,
  PerspectiveCamera,
  RenderTarget,
  Scene,
  type Texture,
} from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/examples/jsm/loaders/KTX2Loader.js';
import type { WebGPURenderer } from 'three/webgpu';
import { registerGltfTextureStreaming } from '../../../../src/three/gltf/gltf-texture-streaming';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import { SHOWCASE_CAMERA, SHOWCASE_MESHES } from '../../../support/gltf-showcase-view';
import { createTestRenderer, requestedBackend } from '../../support/renderer';

const params = new URLSearchParams(location.search);
const width = Number(params.get('w') ?? 640);
const height = Number(params.get('h') ?? 360);
const backend = requestedBackend();
const renderer = await createTestRenderer(width, height);
const target = new RenderTarget(width, height);
const camera = new PerspectiveCamera(
  SHOWCASE_CAMERA.fov,
  width / height,
  SHOWCASE_CAMERA.near,
  SHOWCASE_CAMERA.far,
);
camera.position.fromArray(SHOWCASE_CAMERA.position);
camera.lookAt(...SHOWCASE_CAMERA.target);
camera.updateMatrixWorld();
interface Tracker {
  liveBytesWithPrefix(prefix: string): number;
  snapshot(): { liveBytes: number };
}
const tracker = (globalThis as unknown as { __tesseraGpuTracker: Tracker }).__tesseraGpuTracker;
/** GPU bytes the independent tracker sees: everything on WebGPU, GL textures on WebGL2. */
const trackedBytes = () =>
  backend === 'webgpu' ? tracker.snapshot().liveBytes : tracker.liveBytesWithPrefix('webgl:texture');
/** Render pipelines created so far (WebGPU, counted by the spec's init script; 0 without it). */
const renderPipelines = () =>
  (globalThis as { __pipelineCounts?: { renderPipelines: number } }).__pipelineCounts?.renderPipelines ?? 0;
const mark = (globalThis as unknown as { markFrame(phase: string, frame: number): Promise<void> }).markFrame;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

function lit(root: Object3D): Scene {
  const scene = new Scene();
  scene.background = new Color(0x202830);
  scene.add(new HemisphereLight(0xffffff, 0x404040, 1.5));
  const sun = new DirectionalLight(0xffffff, 2);
  sun.position.set(3, 6, 4);
  scene.add(sun);
  scene.add(root);
  return scene;
}

async function draw(scene: Scene): Promise<Uint8Array> {
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  return new Uint8Array(
    (await renderer.readRenderTargetPixelsAsync(target, 0, 0, width, height)) as ArrayLike<number>,
  );
}

/** The mesh index (in SHOWCASE_MESHES) drawn at each pixel, 255 for the background. */
async function maskOf(root: Object3D): Promise<Uint8Array> {
  const saved = new Map<Mesh, Material | Material[]>();
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    saved.set(mesh, mesh.material);
    const index = SHOWCASE_MESHES.indexOf(meshName(mesh) as (typeof SHOWCASE_MESHES)[number]);
    mesh.material = new MeshBasicMaterial({
      color: new Color((index + 1) * 40, 0, 0).multiplyScalar(1 / 255),
    });
  });
  const scene = new Scene();
  scene.add(root);
  const pixels = await draw(scene);
  for (const [mesh, material] of saved) mesh.material = material;
  const mask = new Uint8Array(width * height).fill(255);
  for (let i = 0; i < mask.length; i++) {
    // Linear working colour into an 8-bit target: nearest of the planted levels.
    const red = pixels[i * 4];
    let best = 255;
    let bestError = 12;
    for (let m = 0; m < SHOWCASE_MESHES.length; m++) {
      const expected = Math.round((((m + 1) * 40) / 255) * 255);
      const error = Math.abs(red - expected);
      if (error < bestError) {
        bestError = error;
        best = m;
      }
    }
    mask[i] = best;
  }
  return mask;
}

/** A mesh's name as the scene names it (GLTFLoader names a node's mesh after the node). */
function meshName(object: Object3D): string {
  let node: Object3D | null = object;
  while (node !== null) {
    if ((SHOWCASE_MESHES as readonly string[]).includes(node.name)) return node.name;
    node = node.parent;
  }
  return object.name;
}

/** PSNR (dB, RGB, 8-bit) of `b` against `a` over the pixels where `mask` is `which` (all when undefined). */
function psnr(a: Uint8Array, b: Uint8Array, mask: Uint8Array, which?: number): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < mask.length; i++) {
    if (which !== undefined && mask[i] !== which) continue;
    for (let c = 0; c < 3; c++) {
      const d = a[i * 4 + c] - b[i * 4 + c];
      sum += d * d;
    }
    count += 3;
  }
  if (count === 0) return Number.NaN;
  return sum === 0 ? 99 : 10 * Math.log10((255 * 255) / (sum / count));
}

/** What three set up for a texture on the GPU: the GL parameters (WebGL2), or null on WebGPU (see the spec's recorder). */
function glParameters(texture: Texture): Record<string, number> | null {
  if (backend !== 'webgl') return null;
  const gl = (renderer.backend as unknown as { gl: WebGL2RenderingContext }).gl;
  const glTexture = (renderer.backend as unknown as { get(t: Texture): { textureGPU?: WebGLTexture } }).get(
    texture,
  ).textureGPU;
  if (glTexture === undefined) return null;
  gl.bindTexture(gl.TEXTURE_2D, glTexture);
  const out = {
    wrapS: gl.getTexParameter(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S) as number,
    wrapT: gl.getTexParameter(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T) as number,
    minFilter: gl.getTexParameter(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER) as number,
    magFilter: gl.getTexParameter(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER) as number,
  };
  gl.bindTexture(gl.TEXTURE_2D, null);
  return out;
}

/** Every material texture of `root`'s meshes, by `<mesh>.<property>`. */
function texturesByUse(root: Object3D): Map<string, Texture> {
  const out = new Map<string, Texture>();
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    const fields = mesh.material as unknown as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      const value = fields[key] as Texture | null;
      if (value?.isTexture) out.set(`${meshName(mesh)}.${key}`, value);
    }
  });
  return out;
}

/**
 * The README's path: the plugin on a GLTFLoader, the streaming system updated every frame (into
 * the target the settled frame is read from: its render objects live through every swap, so a
 * material built for the first texture bound and never rebuilt shows in the comparison), until
 * `whenSettled()` resolves (at most 600 frames). Bytes served are tagged `phase`.
 */
async function streamScene(budgetBytes: number, phase: string) {
  const streaming = new TextureStreamingSystem(renderer as unknown as WebGPURenderer, { budgetBytes });
  const loader = new GLTFLoader();
  const gltfStreaming = registerGltfTextureStreaming(loader, streaming, { tag: 'scene:showcase' });
  await mark(phase, 0);
  const gltf = await loader.loadAsync('/gltf-files/showcase.gltf');
  const scene = lit(gltf.scene);
  const textures = gltfStreaming.texturesOf(gltf.scene);
  let settledAt = -1;
  void streaming.whenSettled().then((frame) => {
    settledAt = frame;
  });
  let firstTexturedFrame = -1;
  let pipelinesAtFirstFrame = -1;
  let overBudgetFrames = 0;
  let n = 0;
  while (n < 600 && settledAt < 0) {
    streaming.update(camera, scene, ++n);
    renderer.setRenderTarget(target);
    renderer.render(scene, camera);
    renderer.setRenderTarget(null);
    if (firstTexturedFrame < 0 && textures.every((t) => streaming.planner.isRenderable(t.id))) {
      firstTexturedFrame = n;
      pipelinesAtFirstFrame = renderPipelines();
    }
    if (streaming.budget.stats().liveBytes > budgetBytes) overBudgetFrames++;
    await mark(phase, n);
    await nextTask();
  }
  const report = {
    frames: n,
    settledAt,
    firstTexturedFrame,
    overBudgetFrames,
    pipelinesAfterFirstFrame: pipelinesAtFirstFrame < 0 ? -1 : renderPipelines() - pipelinesAtFirstFrame,
    gpuBytes: streaming.budget.stats().liveBytes,
    textures: textures.map((t) => ({
      name: t.name,
      format: t.source.format,
      mip: streaming.residentMipOf(t),
      label: t.texture.name,
      channel: t.texture.channel,
      repeat: [t.texture.repeat.x, t.texture.repeat.y],
      offset: [t.texture.offset.x, t.texture.offset.y],
    })),
  };
  const dispose = async () => {
    gltfStreaming.dispose();
    streaming.dispose();
    await nextTask();
  };
  return { gltf, scene, report, dispose };
}

/** The settled frame against three's own render of the same file, per mesh, and what reached the GPU. */
async function compare(budgetBytes: number) {
  const url = '/gltf-files/showcase.gltf';
  const ktx2Loader = new KTX2Loader().setTranscoderPath('/node_modules/three/examples/jsm/libs/basis/');
  ktx2Loader.detectSupport(renderer as unknown as WebGPURenderer);
  await mark('reference', 0);
  const before = trackedBytes();
  const reference = await new GLTFLoader().setKTX2Loader(ktx2Loader).loadAsync(url);
  const referenceScene = lit(reference.scene);
  await renderer.compileAsync(referenceScene, camera);
  const referencePixels = await draw(referenceScene);
  const referenceGpuBytes = trackedBytes() - before;
  const referenceTextures = texturesByUse(reference.scene);
  const referenceGl = Object.fromEntries([...referenceTextures].map(([use, t]) => [use, glParameters(t)]));
  const mask = await maskOf(reference.scene);
  referenceScene.remove(reference.scene);
  for (const texture of referenceTextures.values()) texture.dispose();
  ktx2Loader.dispose();

  const streamed = await streamScene(budgetBytes, 'stream');
  const streamedPixels = await draw(streamed.scene);
  const streamedTextures = texturesByUse(streamed.gltf.scene);
  const perMesh: Record<string, number> = {};
  for (let m = 0; m < SHOWCASE_MESHES.length; m++)
    perMesh[SHOWCASE_MESHES[m]] = psnr(referencePixels, streamedPixels, mask, m);
  const out = {
    ...streamed.report,
    overall: psnr(referencePixels, streamedPixels, mask),
    perMesh,
    maskCounts: SHOWCASE_MESHES.map((_, m) => mask.filter((x) => x === m).length),
    uses: [...streamedTextures].map(([use, t]) => ({ use, label: t.name, colorSpace: t.colorSpace })),
    gl: Object.fromEntries([...streamedTextures].map(([use, t]) => [use, glParameters(t)])),
    referenceGl,
    referenceGpuBytes,
  };
  await streamed.dispose();
  return out;
}

/** Streams the scene under `budgetBytes`, bytes served tagged `phase`. */
async function stream(budgetBytes: number, phase: string) {
  const streamed = await streamScene(budgetBytes, phase);
  await streamed.dispose();
  return streamed.report;
}

(globalThis as unknown as { fidelityPage: unknown }).fidelityPage = { compare, stream };
document.title = 'ready';
