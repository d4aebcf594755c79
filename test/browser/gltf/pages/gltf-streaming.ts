/**
 * glTF scenes loaded through `registerGltfTextureStreaming` into a 704x128 view where each quad
 * covers about 120x120 pixels (a 512² texture needs mip 2), and the same KTX2 files through three's
 * KTX2Loader for comparison. The spec serves the files (answering Range, logging bytes by phase and
 * frame); this page runs the phases and reports what the budget, the planner and the independent
 * GPU tracker saw on every frame.
 */

import { type Object3D, OrthographicCamera, Scene } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/examples/jsm/loaders/KTX2Loader.js';
import type { Texture } from 'three/webgpu';
import { registerGltfTextureStreaming } from '../../../../src/three/gltf/gltf-texture-streaming';
import type { StreamedTexture } from '../../../../src/three/streamed/streamed-texture';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import { TesseraRuntime } from '../../../../src/three/tessera-runtime';
import { createTestRenderer, requestedBackend } from '../../support/renderer';

interface Tracker {
  liveBytesWithPrefix(prefix: string): number;
  snapshot(): { liveBytes: number };
}
const tracker = (globalThis as unknown as { __tesseraGpuTracker: Tracker }).__tesseraGpuTracker;
const mark = (globalThis as unknown as { markFrame(phase: string, frame: number): Promise<void> }).markFrame;
const backend = requestedBackend();
const params = new URLSearchParams(location.search);
// Default (the spec): 5.83 x 1.06 world units on 704 x 128 pixels, ~121 pixels a unit, so a 512²
// texture on a unit quad wants mip log2(512 / 121) = 2.08 (clear of the integer, where float noise
// could pick 1). The benchmark passes its own view (`w`, `h` pixels; `hw`, `hh` half extents).
const width = Number(params.get('w') ?? 704);
const height = Number(params.get('h') ?? 128);
const halfWidth = Number(params.get('hw') ?? 2.915);
const halfHeight = Number(params.get('hh') ?? 0.53);
const renderer = await createTestRenderer(width, height);
const camera = new OrthographicCamera(-halfWidth, halfWidth, halfHeight, -halfHeight, 0.1, 10);
camera.position.set(0, 0, 2);
const scene = new Scene();
renderer.render(scene, camera);
const glBaseline = tracker.liveBytesWithPrefix('webgl:texture');
const BUDGET = 8 << 20;

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The system's GPU bytes as the independent tracker counts them (placeholders included). */
function trackedBytes(): number {
  return backend === 'webgpu'
    ? tracker.liveBytesWithPrefix('tessera:')
    : tracker.liveBytesWithPrefix('webgl:texture') - glBaseline;
}

/** One frame: update, render, report it to the spec's byte log. */
async function frame(system: TextureStreamingSystem, phase: string, n: number): Promise<void> {
  system.update(camera, scene, n);
  renderer.render(scene, camera);
  await mark(phase, n);
  await nextTask();
}

async function run(ktx2Urls: string[]) {
  const runtime = new TesseraRuntime({ budgetBytes: BUDGET });
  const budget = runtime.budget;
  const system = new TextureStreamingSystem(renderer, { runtime, needRefreshFrames: 1 });
  const errors: { name: string; code: string }[] = [];
  const loader = new GLTFLoader();
  const gltfStreaming = registerGltfTextureStreaming(loader, system, {
    tag: 'scene:a',
    // Per-texture core set and filtering: A's PNG is outside the core set.
    isCore: (name) => name !== 'a-png.png',
    anisotropy: 2,
  });
  // Textures that could not be streamed at all come as error events with no texture.
  system.events.on('error', ({ error, texture, textureName }) => {
    if (texture === null) errors.push({ name: textureName ?? '', code: error.code });
  });
  let n = 0;

  // Phase 1: scene A streams to what the view needs.
  const a = await loader.loadAsync('/gltf-files/a.gltf');
  scene.add(a.scene);
  const texturesA = gltfStreaming.texturesOf(a.scene);
  // Quads slightly smaller from left to right: the same mip need (2), decreasing importance.
  const quads: Object3D[] = a.scene.children;
  for (let i = 0; i < quads.length; i++) quads[i].scale.setScalar(1 - 0.03 * i);
  const mapsAreStreamed = a.scene.children.every((child) => {
    const material = (child as unknown as { material: { map: Texture | null } }).material;
    return texturesA.some((t) => t.texture === material.map);
  });
  let firstTexturedFrame = -1;
  /** The first frame each texture rendered textured (its pinned chain on the GPU), by name. */
  const firstRenderable: Record<string, number> = {};
  let peakKtx2 = 0;
  const isKtx2 = (t: StreamedTexture) => t.name.endsWith('.ktx2');
  // Until every texture has streamed what the view needs (frames, not time: the transcoders'
  // pace varies with the machine's load).
  const settled = (list: readonly StreamedTexture[]) => list.every((t) => system.planner.isSettled(t.id));
  for (let i = 0; i < 600 && (i < 20 || !settled(texturesA)); i++) {
    await frame(system, 'stream', ++n);
    if (firstTexturedFrame < 0 && texturesA.every((t) => system.planner.isRenderable(t.id)))
      firstTexturedFrame = n;
    for (const t of texturesA)
      if (firstRenderable[t.name] === undefined && system.planner.isRenderable(t.id))
        firstRenderable[t.name] = n;
    let ktx2Bytes = 0;
    for (const t of texturesA) if (isKtx2(t)) ktx2Bytes += system.planner.residentBytesOf(t.id);
    peakKtx2 = Math.max(peakKtx2, ktx2Bytes);
  }
  const streamed = {
    firstTexturedFrame,
    firstRenderable,
    mapsAreStreamed,
    textures: texturesA.map((t) => ({
      name: t.name,
      tag: t.tag,
      core: t.core,
      anisotropy: t.texture.anisotropy,
      format: t.source.format,
      mip: system.residentMipOf(t),
      bytes: system.planner.residentBytesOf(t.id),
    })),
    peakKtx2,
    budgetLive: budget.stats().liveBytes,
    tracked: trackedBytes(),
  };

  // Phase 2: the same KTX2 files through three's KTX2Loader (whole files, every level uploaded).
  await mark('ktx2loader', n);
  const ktx2Loader = new KTX2Loader().setTranscoderPath('/node_modules/three/examples/jsm/libs/basis/');
  ktx2Loader.detectSupport(renderer);
  const before = tracker.snapshot().liveBytes;
  const loaded: Texture[] = [];
  for (const url of ktx2Urls) loaded.push((await ktx2Loader.loadAsync(url)) as unknown as Texture);
  for (const texture of loaded) renderer.initTexture(texture);
  const ktx2LoaderBytes = tracker.snapshot().liveBytes - before;
  for (const texture of loaded) texture.dispose();
  ktx2Loader.dispose();
  await mark('pressure', n);

  // Phase 3: a budget smaller than the scene, then the full budget again.
  const full = budget.stats().liveBytes;
  let pinned = 0;
  for (const t of texturesA) pinned += t.pinnedBytes;
  const placeholders = budget.stats().byCategory.other ?? 0;
  const cut = Math.round(placeholders + pinned + 0.5 * (full - placeholders - pinned));
  budget.setBudget(cut);
  let overBudgetFrames = 0;
  const afterCut: number[] = [];
  for (let i = 0; i < 30; i++) {
    await frame(system, 'pressure', ++n);
    if (budget.stats().liveBytes > cut || trackedBytes() > cut) overBudgetFrames++;
  }
  for (const t of texturesA) afterCut.push(system.residentMipOf(t));
  budget.setBudget(BUDGET);
  for (let i = 0; i < 600 && (i < 20 || !settled(texturesA)); i++) await frame(system, 'regrow', ++n);
  const afterRegrow = texturesA.map((t) => system.residentMipOf(t));

  // Phase 4: scene B (one bad file among its textures) loaded, then a transition A -> B.
  gltfStreaming.tag = 'scene:b';
  const b = await loader.loadAsync('/gltf-files/b.gltf');
  const texturesB = gltfStreaming.texturesOf(b.scene);
  const bytesA = trackedBytes();
  let peak = bytesA;
  const transition = system.transition(texturesA, texturesB);
  let result: { peakBytes: number } | null = null;
  void transition.done.then((r) => {
    result = r;
  });
  let swapped = false;
  void transition.ready.then(() => {
    swapped = true;
  });
  for (let i = 0; i < 600 && result === null; i++) {
    if (swapped && a.scene.parent !== null) {
      scene.remove(a.scene);
      scene.add(b.scene);
    }
    await frame(system, 'transition', ++n);
    peak = Math.max(peak, trackedBytes());
  }
  // The view shows B from the frame its core textures were ready (or the transition ended).
  if (a.scene.parent !== null) {
    scene.remove(a.scene);
    scene.add(b.scene);
  }
  for (let i = 0; i < 600 && (i < 20 || !settled(texturesB)); i++) {
    await frame(system, 'settle-b', ++n);
    peak = Math.max(peak, trackedBytes());
  }
  const bytesB = trackedBytes();
  const out = {
    streamed,
    ktx2LoaderBytes,
    cut,
    overBudgetFrames,
    afterCut,
    afterRegrow,
    importanceOrder: texturesA.map((t) => t.name),
    transition: {
      done: result !== null,
      bytesA,
      bytesB,
      peak,
      budgetPeak: (result as { peakBytes: number } | null)?.peakBytes ?? -1,
      releasedA: texturesA.every((t) => t.released),
      texturesB: texturesB.map((t) => ({ name: t.name, tag: t.tag, mip: system.residentMipOf(t) })),
      bHasNullMap: b.scene.children.some(
        (child) => (child as unknown as { material: { map: Texture | null } }).material.map === null,
      ),
    },
    errors,
    budget: BUDGET,
  };
  gltfStreaming.dispose();
  system.dispose();
  runtime.dispose();
  await nextTask();
  return out;
}

(globalThis as unknown as { gltfPage: unknown }).gltfPage = { run };
document.title = 'ready';
