/**
 * The side-by-side glTF page (gltf-peer.bench.ts): one scene, drawn in turn by three's plain
 * `GLTFLoader` + `KTX2Loader` on the original PNG/JPEG files (the reference every other frame is
 * compared with, per mesh), by Tessera on the `tessera gltf` output through
 * `registerGltfTextureStreaming(...).load(url)` (as the README shows), and by needle's
 * `@needle-tools/gltf-progressive` (`useNeedleProgressive(loader, renderer)`, as its README shows)
 * on needle's pipeline output. Each tool's files are served at `/gltf-peer/<tool>/`; every frame
 * is drawn to the canvas, as an application draws, and the settled frame once more into a target
 * to be read back.
 *
 * gltf-progressive 3.3.5 reads `renderer.renderLists.get(scene)` (a WebGLRenderer member) after
 * each render; three's WebGPURenderer keeps the same lists as `_renderLists.get(scene, camera,
 * lighting)`, so the page hands it that list (the meshes three drew, culled as WebGLRenderer's
 * list is). Its decoder paths default to CDNs; the page points them at three's own copies.
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
import { registerGltfTextureStreaming } from '../../src/three/gltf/gltf-texture-streaming';
import { TextureStreamingSystem } from '../../src/three/streamed/texture-streaming-system';
import { createTestRenderer, requestedBackend } from '../../test/browser/support/renderer';
import { SHOWCASE_CAMERA } from '../../test/support/gltf-showcase-view';

const params = new URLSearchParams(location.search);
const width = Number(params.get('w') ?? 1280);
const height = Number(params.get('h') ?? 720);
const sceneName = params.get('scene') ?? 'showcase';
const entries = {
  original: params.get('original') ?? `${sceneName}.gltf`,
  tessera: params.get('tessera') ?? `${sceneName}.glb`,
  needle: params.get('needle') ?? `${sceneName}.gltf`,
};
/** Where the bench installed gltf-progressive (outside package.json: a bench-only tool). */
const NEEDLE_RUNTIME = '/.tmp/needle-runtime/node_modules/@needle-tools/gltf-progressive/lib/index.js';
/** Frames without a request in flight or a texture or geometry swapped before a run counts as settled. */
const QUIET_FRAMES = 60;
const MAX_FRAMES = 900;

/**
 * The large scene's view: a wall of 8 x 6 unit quads (x -3.85..3.85, y -2.75..2.75 at z 0) seen
 * obliquely from its left, the nearest visible quads 2.8 m away (about 275 pixels a metre: mip 3
 * of 2048², more across the slant), the farthest 7 m; the two columns on the left (12 quads) are
 * out of view.
 */
const LARGE_CAMERA = { position: [-2.6, 0, 2.6], target: [1.2, 0, 0], fov: 50, near: 0.1, far: 100 };
const view = sceneName === 'showcase' ? SHOWCASE_CAMERA : LARGE_CAMERA;

const backend = requestedBackend();
const renderer = await createTestRenderer(width, height);
const target = new RenderTarget(width, height);
const camera = new PerspectiveCamera(view.fov, width / height, view.near, view.far);
camera.position.fromArray(view.position);
camera.lookAt(view.target[0], view.target[1], view.target[2]);
camera.updateMatrixWorld();

interface Tracker {
  liveBytesWithPrefix(prefix: string): number;
  snapshot(): { liveBytes: number };
}
const tracker = (globalThis as unknown as { __tesseraGpuTracker: Tracker }).__tesseraGpuTracker;
/** GPU bytes the independent tracker sees: everything on WebGPU, GL textures on WebGL2. */
const trackedBytes = () =>
  backend === 'webgpu' ? tracker.snapshot().liveBytes : tracker.liveBytesWithPrefix('webgl:texture');
const mark = (globalThis as unknown as { markFrame(phase: string, frame: number): Promise<void> }).markFrame;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// Requests in flight, whoever makes them (three's FileLoader, Tessera's client and
// gltf-progressive all fetch): a run is not settled while one is.
let inFlight = 0;
const pageFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  inFlight++;
  return pageFetch(input, init).finally(() => {
    inFlight--;
  });
};

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

/** A mesh's name: its node's (GLTFLoader names a node's mesh object after the node or nests it). */
function meshName(object: Object3D, names: readonly string[]): string {
  let node: Object3D | null = object;
  while (node !== null) {
    if (names.includes(node.name)) return node.name;
    node = node.parent;
  }
  return object.name;
}

/** Names of the nodes that carry meshes, children of the glTF's scene. */
function meshNodes(root: Object3D): string[] {
  const out: string[] = [];
  for (const child of root.children) {
    let hasMesh = false;
    child.traverse((o) => {
      if ((o as Mesh).isMesh) hasMesh = true;
    });
    if (hasMesh) out.push(child.name);
  }
  return out;
}

// Mask colours: mesh m is red (m % 7 + 1) * 32, green (floor(m / 7) + 1) * 32 (49 meshes at most),
// written unconverted into the 8-bit target and read back as the nearest planted level.
const level = (v: number) => {
  const k = Math.round(v / 32);
  return k >= 1 && k <= 7 && Math.abs(v - k * 32) <= 10 ? k - 1 : -1;
};

/** The mesh index (in `names`) drawn at each pixel, 255 for the background. */
async function maskOf(root: Object3D, names: readonly string[]): Promise<Uint8Array> {
  const saved = new Map<Mesh, Material | Material[]>();
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    saved.set(mesh, mesh.material);
    const index = names.indexOf(meshName(mesh, names));
    mesh.material = new MeshBasicMaterial({
      color: new Color(((index % 7) + 1) * 32, (Math.floor(index / 7) + 1) * 32, 0).multiplyScalar(1 / 255),
    });
  });
  const scene = new Scene();
  scene.add(root);
  const pixels = await draw(scene);
  for (const [mesh, material] of saved) {
    (mesh.material as Material).dispose();
    mesh.material = material;
  }
  scene.remove(root);
  const mask = new Uint8Array(width * height).fill(255);
  for (let i = 0; i < mask.length; i++) {
    const r = level(pixels[i * 4]);
    const g = level(pixels[i * 4 + 1]);
    if (r >= 0 && g >= 0 && g * 7 + r < names.length) mask[i] = g * 7 + r;
  }
  return mask;
}

/** PSNR (dB, RGB, 8-bit) of `b` against `a` where `mask` is `which` (every mesh pixel when undefined). */
function psnr(a: Uint8Array, b: Uint8Array, mask: Uint8Array, which?: number): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] === 255 || (which !== undefined && mask[i] !== which)) continue;
    for (let c = 0; c < 3; c++) {
      const d = a[i * 4 + c] - b[i * 4 + c];
      sum += d * d;
    }
    count += 3;
  }
  if (count === 0) return Number.NaN;
  return sum === 0 ? 99 : 10 * Math.log10((255 * 255) / (sum / count));
}

/** Every texture of `root`'s materials. */
function texturesOf(root: Object3D): Set<Texture> {
  const out = new Set<Texture>();
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    for (const material of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) {
      for (const value of Object.values(material as unknown as Record<string, unknown>)) {
        if ((value as Texture | null)?.isTexture) out.add(value as Texture);
      }
    }
  });
  return out;
}

/** What is bound now (textures and geometries by id): a change means something was swapped in. */
function boundState(root: Object3D): string {
  const ids: number[] = [];
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    ids.push(mesh.geometry.id);
    for (const texture of texturesOf(mesh)) ids.push(texture.id, texture.version);
  });
  return ids.join(',');
}

function disposeAll(root: Object3D): void {
  for (const texture of texturesOf(root)) texture.dispose();
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    mesh.geometry.dispose();
    for (const material of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) material.dispose();
  });
}

let reference: { pixels: Uint8Array; mask: Uint8Array; names: string[] } | null = null;

/** What each run reports; PSNR against three's render of the original files. */
export interface PeerRun {
  /** Frames after `loadAsync` resolved until every mesh showed its textures (three: 1). */
  firstTexturedFrame: number;
  /** Frame the run settled at (-1: not within the run). */
  settledAt: number;
  frames: number;
  /** Tessera: the budget's exact count; others: the tracker's. */
  gpuBytes: number;
  /** The independent GPU tracker's count for the run (all tools). */
  trackedGpuBytes: number;
  overBudgetFrames: number;
  overall: number;
  perMesh: Record<string, number>;
}

function compared(pixels: Uint8Array): { overall: number; perMesh: Record<string, number> } {
  if (reference === null) throw new Error('draw the reference first');
  const ref = reference;
  const perMesh: Record<string, number> = {};
  ref.names.forEach((name, m) => {
    perMesh[name] = psnr(ref.pixels, pixels, ref.mask, m);
  });
  return { overall: psnr(ref.pixels, pixels, ref.mask), perMesh };
}

/** three's GLTFLoader + KTX2Loader on the original files: the reference pixels and mask. */
async function three(phase: string) {
  const ktx2Loader = new KTX2Loader().setTranscoderPath('/node_modules/three/examples/jsm/libs/basis/');
  ktx2Loader.detectSupport(renderer as unknown as WebGPURenderer);
  const before = trackedBytes();
  await mark(phase, 0);
  const gltf = await new GLTFLoader()
    .setKTX2Loader(ktx2Loader)
    .loadAsync(`/gltf-peer/original/${entries.original}`);
  const scene = lit(gltf.scene);
  await renderer.compileAsync(scene, camera);
  renderer.render(scene, camera);
  await mark(phase, 1);
  const pixels = await draw(scene);
  const gpuBytes = trackedBytes() - before;
  const names = meshNodes(gltf.scene);
  const mask = await maskOf(gltf.scene, names);
  reference = { pixels, mask, names };
  disposeAll(gltf.scene);
  ktx2Loader.dispose();
  await nextTask();
  return {
    gpuBytes,
    names,
    maskCounts: names.map((_, m) => mask.filter((x) => x === m).length),
    gpuBytesAfterDispose: trackedBytes() - before,
  };
}

/** Tessera on the baked files under `budgetBytes`, bytes served tagged `phase`. */
async function tessera(budgetBytes: number, phase: string): Promise<PeerRun> {
  const before = trackedBytes();
  const streaming = new TextureStreamingSystem(renderer as unknown as WebGPURenderer, { budgetBytes });
  const errors: string[] = [];
  streaming.events.on('error', ({ error, textureName }) => errors.push(`${textureName}: ${error.code}`));
  const gltfStreaming = registerGltfTextureStreaming(new GLTFLoader(), streaming, {
    tag: `scene:${sceneName}`,
  });
  await mark(phase, 0);
  const gltf = await gltfStreaming.load(`/gltf-peer/tessera/${entries.tessera}`);
  const scene = lit(gltf.scene);
  const textures = gltfStreaming.texturesOf(gltf.scene);
  let settledAt = -1;
  void streaming.whenSettled().then((frame) => {
    settledAt = frame;
  });
  let firstTexturedFrame = -1;
  let overBudgetFrames = 0;
  let n = 0;
  while (n < MAX_FRAMES && settledAt < 0) {
    streaming.update(camera, scene, ++n);
    renderer.render(scene, camera);
    if (firstTexturedFrame < 0 && textures.every((t) => streaming.planner.isRenderable(t.id))) {
      firstTexturedFrame = n;
    }
    if (streaming.budget.stats().liveBytes > budgetBytes) overBudgetFrames++;
    await mark(phase, n);
    await nextTask();
  }
  const pixels = await draw(scene);
  const run: PeerRun = {
    firstTexturedFrame,
    settledAt,
    frames: n,
    gpuBytes: streaming.budget.stats().liveBytes,
    trackedGpuBytes: trackedBytes() - before,
    overBudgetFrames,
    ...compared(pixels),
  };
  scene.remove(gltf.scene);
  gltfStreaming.dispose();
  streaming.dispose();
  disposeAll(gltf.scene);
  await nextTask();
  if (errors.length > 0) throw new Error(`Tessera stream errors: ${errors.join('; ')}`);
  return run;
}

interface NeedleModule {
  useNeedleProgressive(loader: GLTFLoader, renderer: unknown): { disable(): void };
  setDracoDecoderLocation(path: string): void;
  setKTX2TranscoderLocation(path: string): void;
}

/**
 * gltf-progressive on the files at /gltf-peer/<tool>/ (needle's pipeline output, or its rewrite
 * with more LODs), run until nothing loads or swaps for QUIET_FRAMES.
 */
async function needle(phase: string, tool: string): Promise<PeerRun> {
  const progressive = (await import(/* @vite-ignore */ NEEDLE_RUNTIME)) as NeedleModule;
  progressive.setDracoDecoderLocation('/node_modules/three/examples/jsm/libs/draco/gltf/');
  progressive.setKTX2TranscoderLocation('/node_modules/three/examples/jsm/libs/basis/');
  const internals = renderer as unknown as {
    _renderLists: {
      get(
        scene: Scene,
        camera: PerspectiveCamera,
        lighting: unknown,
      ): { opaque: unknown[]; transparent: unknown[] };
    };
    lighting: unknown;
    renderLists?: unknown;
  };
  // WebGPURenderer's list has no transmissive part (it draws transmission with the transparent).
  internals.renderLists = {
    get: (scene: Scene) => {
      const list = internals._renderLists.get(scene, camera, internals.lighting);
      return { opaque: list.opaque, transparent: list.transparent, transmissive: [] };
    },
  };
  const before = trackedBytes();
  const loader = new GLTFLoader();
  const lods = progressive.useNeedleProgressive(loader, renderer);
  await mark(phase, 0);
  const gltf = await loader.loadAsync(`/gltf-peer/${tool}/${entries.needle}`);
  const scene = lit(gltf.scene);
  const textured = () => [...texturesOf(gltf.scene)].every((t) => t.image !== null && t.image !== undefined);
  let firstTexturedFrame = -1;
  let lastActivity = 0;
  let state = boundState(gltf.scene);
  let n = 0;
  while (n < MAX_FRAMES && n - lastActivity < QUIET_FRAMES) {
    renderer.render(scene, camera);
    n++;
    if (firstTexturedFrame < 0 && textured()) firstTexturedFrame = n;
    const now = boundState(gltf.scene);
    if (now !== state || inFlight > 0) lastActivity = n;
    state = now;
    await mark(phase, n);
    await nextTask();
  }
  const pixels = await draw(scene);
  const trackedGpuBytes = trackedBytes() - before;
  const run: PeerRun = {
    firstTexturedFrame,
    settledAt: n - lastActivity >= QUIET_FRAMES ? lastActivity : -1,
    frames: n,
    gpuBytes: trackedGpuBytes,
    trackedGpuBytes,
    overBudgetFrames: 0,
    ...compared(pixels),
  };
  lods.disable();
  delete internals.renderLists;
  scene.remove(gltf.scene);
  disposeAll(gltf.scene);
  await nextTask();
  return run;
}

(globalThis as unknown as { peerPage: unknown }).peerPage = { three, tessera, needle };
document.title = 'ready';
