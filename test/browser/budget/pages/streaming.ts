import { createDefaultContainer, VK_FORMAT_R8G8B8A8_SRGB, write } from 'ktx-parse';
import { Mesh, PerspectiveCamera, PlaneGeometry, Scene } from 'three';
import { MeshBasicNodeMaterial, RenderTarget, type WebGPURenderer } from 'three/webgpu';
import { Ktx2Source } from '../../../../src/sources/mips/ktx2-source';
import { LevelListSource } from '../../../../src/sources/mips/level-list-source';
import type { StreamedTexture } from '../../../../src/three/streamed/streamed-texture';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import type { TransitionResult } from '../../../../src/three/streamed/transitions/streaming-transition';
import { createTestRenderer, requestedBackend } from '../../support/renderer';

/** The tracker injected by the fixture (test/support/gpu-tracker.js). */
interface Tracker {
  liveBytesWithPrefix(prefix: string): number;
  snapshot(): { byPrefix: Record<string, { live: number; peak: number }> };
  resetPeak(): void;
}
const tracker = (globalThis as unknown as { __tesseraGpuTracker: Tracker }).__tesseraGpuTracker;
const SIZE = 128;
const backend = requestedBackend();
const renderer: WebGPURenderer = await createTestRenderer(SIZE, SIZE);
const target = new RenderTarget(SIZE, SIZE);
target.texture.name = 'tessera-test:target';

/** Bytes the tracker counts for Tessera: labelled `tessera:` on WebGPU, GL textures above a baseline on WebGL2. */
let glBaseline = 0;
function trackedBytes(): number {
  if (backend === 'webgpu') return tracker.liveBytesWithPrefix('tessera:');
  return tracker.liveBytesWithPrefix('webgl:texture') - glBaseline;
}
function trackedPeak(): number {
  const snapshot = tracker.snapshot().byPrefix;
  if (backend === 'webgpu') return snapshot['tessera:']?.peak ?? 0;
  return (snapshot['webgl:texture']?.peak ?? 0) - glBaseline;
}

/** Deterministic PRNG (mulberry32) so a failing run replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A full RGBA8 pyramid of `size`² whose every level is one solid colour (level l: rgb[i] scaled). */
function solidPyramid(size: number, rgb: [number, number, number]): Uint8Array[] {
  const levels: Uint8Array[] = [];
  for (let level = 0; size >> level >= 1; level++) {
    const edge = size >> level;
    const data = new Uint8Array(edge * edge * 4);
    for (let i = 0; i < edge * edge; i++) data.set([rgb[0], rgb[1], rgb[2], 255], i * 4);
    levels.push(data);
  }
  return levels;
}

const camera = new PerspectiveCamera(60, 1, 0.1, 100);
camera.position.set(0, 0, 3);
const geometry = new PlaneGeometry(2, 2);

// Baseline of GL allocations before Tessera allocates anything (WebGL2 counts unlabelled textures).
renderer.render(new Scene(), camera);
renderer.setRenderTarget(target);
renderer.render(new Scene(), camera);
renderer.setRenderTarget(null);
glBaseline = backend === 'webgl' ? tracker.liveBytesWithPrefix('webgl:texture') : 0;

interface Region {
  name: string;
  scene: Scene;
  meshes: Mesh[];
  textures: StreamedTexture[];
}

function makeRegion(
  system: TextureStreamingSystem,
  name: string,
  count: number,
  size: number,
  hue: number,
): Region {
  const scene = new Scene();
  const meshes: Mesh[] = [];
  const textures: StreamedTexture[] = [];
  for (let i = 0; i < count; i++) {
    const rgb: [number, number, number] = [(hue + 60 * i) % 256, (hue * 3 + 90 * i) % 256, 200];
    const texture = system.add(new LevelListSource(solidPyramid(size, rgb), { width: size, height: size }), {
      name: `${name}${i}`,
      tag: `scene:${name}`,
      core: i === 0,
    });
    const mesh = new Mesh(geometry, new MeshBasicNodeMaterial());
    mesh.position.set((i - (count - 1) / 2) * 2.2, 0, 0);
    scene.add(mesh);
    system.attach(mesh, texture);
    meshes.push(mesh);
    textures.push(texture);
  }
  return { name, scene, meshes, textures };
}

async function nextTask(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Per-frame record of the scripted run. */
interface FrameRecord {
  frame: number;
  tracked: number;
  live: number;
  budget: number;
  overBudget: number;
}

/**
 * The scripted sequence: region A, then transitions A->B, B->C, C->A with random camera moves,
 * the budget cut halfway. Returns every frame's figures and each transition's result.
 */
async function scriptedRun(options: { budgetBytes: number; cutBytes: number; size: number; seed: number }) {
  const system = new TextureStreamingSystem(renderer, {
    budgetBytes: options.budgetBytes,
    planner: { dropAfterFrames: 4 },
  });
  const rand = random(options.seed);
  const frames: FrameRecord[] = [];
  const results: (TransitionResult & { trackedPeak: number })[] = [];
  let regionIndex = 0;
  const hues = [40, 120, 200];
  let current = makeRegion(system, 'A', 3, options.size, hues[0]);
  let frame = 0;
  let cut = -1;
  const step = async () => {
    frame++;
    camera.position.set((rand() - 0.5) * 6, (rand() - 0.5) * 2, 0.6 + rand() * 4);
    camera.lookAt(camera.position.x * 0.5, 0, 0);
    system.update(camera, current.scene, frame);
    renderer.render(current.scene, camera);
    await nextTask();
    const stats = system.budget;
    frames.push({
      frame,
      tracked: trackedBytes(),
      live: stats.liveBytes,
      budget: stats.budgetBytes,
      overBudget: Math.max(0, stats.liveBytes - stats.budgetBytes),
    });
  };
  for (let i = 0; i < 12; i++) await step();
  const finestBefore = Math.min(...current.textures.map((t) => system.residentMipOf(t)));
  const pinnedMip = system.planner.pinnedMipOf(current.textures[0].id);
  const placeholderChecks: { mapName: string; released: boolean }[] = [];
  for (let t = 0; t < 3; t++) {
    if (t === 1) {
      system.budget.setBudget(options.cutBytes);
      cut = frame;
    }
    regionIndex = (regionIndex + 1) % 3;
    const name = 'ABC'[regionIndex];
    if (name === 'A') system.sweep.beginScene('A');
    const next = makeRegion(system, `${name}${t}`, 3, options.size, hues[regionIndex]);
    tracker.resetPeak();
    const transition = system.transition(current.textures, next.textures);
    let ready = false;
    void transition.ready.then(() => {
      ready = true;
    });
    let done: TransitionResult | null = null;
    void transition.done.then((r) => {
      done = r;
    });
    const old = current;
    while (!ready) await step();
    current = next;
    while (done === null) await step();
    results.push({ ...(done as TransitionResult), trackedPeak: trackedPeak() });
    // The old region's materials now bind the placeholder; render it once to prove it draws.
    for (const mesh of old.meshes) {
      const map = (mesh.material as MeshBasicNodeMaterial).map;
      placeholderChecks.push({
        mapName: map?.name ?? 'none',
        released: old.textures.every((x) => x.released),
      });
    }
    renderer.render(old.scene, camera);
    for (let i = 0; i < 6; i++) await step();
  }
  const stats = system.stats();
  system.dispose();
  await nextTask();
  return {
    frames,
    results,
    cut,
    finestBefore,
    pinnedMip,
    placeholderChecks,
    stats: { textures: stats.textures, byCategory: stats.budget.byCategory, byTag: stats.budget.byTag },
    trackedAfterDispose: trackedBytes(),
  };
}

/** Renders `scene` into the target and returns the centre pixel (RGBA). */
async function centrePixel(scene: Scene): Promise<number[]> {
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  const pixels = (await renderer.readRenderTargetPixelsAsync(target, SIZE / 2, SIZE / 2, 1, 1)) as Uint8Array;
  return Array.from(pixels);
}

/** Bad input and lifetime cases; returns what happened in each. */
async function badInput() {
  const out: Record<string, unknown> = {};
  const code = (fn: () => unknown) => {
    try {
      fn();
      return 'no error';
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
  };
  out.budgetBelowPinnedMinimum = code(
    () => new TextureStreamingSystem(renderer, { budgetBytes: 1000, pinnedMinimumBytes: 5000 }),
  );
  const small = new TextureStreamingSystem(renderer, { budgetBytes: 10_000 });
  out.pinnedChainOverBudget = code(() =>
    small.add(new LevelListSource(solidPyramid(256, [1, 2, 3]), { width: 256, height: 256 })),
  );
  small.dispose();

  const system = new TextureStreamingSystem(renderer, {
    budgetBytes: 2 << 20,
    sweep: { cadenceFrames: 1, transient: { kind: 'idle-frames', frames: 3 } },
    needRefreshFrames: 1,
  });
  const errors: string[] = [];
  system.events.on('error', (event) =>
    errors.push(`${event.error.code}:${event.texture?.name ?? event.textureName}`),
  );
  const scene = new Scene();
  camera.position.set(0, 0, 1.5);
  camera.lookAt(0, 0, 0);
  const failing = system.add(
    {
      width: 64,
      height: 64,
      mipLevelCount: 7,
      format: 'rgba8unorm-srgb',
      loadLevel: () => Promise.reject(new Error('planted load failure')),
    },
    { name: 'failing' },
  );
  const failingMesh = new Mesh(geometry, new MeshBasicNodeMaterial());
  scene.add(failingMesh);
  system.attach(failingMesh, failing);
  for (let i = 1; i <= 4; i++) {
    system.update(camera, scene, i);
    renderer.render(scene, camera);
    await nextTask();
  }
  out.loadErrors = errors;
  out.failingMapName = (failingMesh.material as MeshBasicNodeMaterial).map?.name;
  out.failingPixel = await centrePixel(scene);

  // A transient texture drawn, then hidden: swept after 3 idle frames, placeholder bound, no GPU error.
  scene.remove(failingMesh);
  const transient = system.add(
    new LevelListSource(solidPyramid(128, [255, 0, 0]), { width: 128, height: 128 }),
    { name: 'transient', tag: 'transient' },
  );
  const mesh = new Mesh(geometry, new MeshBasicNodeMaterial());
  scene.add(mesh);
  system.attach(mesh, transient);
  let frame = 4;
  for (let i = 0; i < 12; i++) {
    system.update(camera, scene, ++frame);
    renderer.render(scene, camera);
    await nextTask();
  }
  out.transientLoadedMap = (mesh.material as MeshBasicNodeMaterial).map?.name;
  out.transientPixel = await centrePixel(scene);
  out.transientResidentMip = system.residentMipOf(transient);
  mesh.visible = false;
  for (let i = 0; i < 8; i++) {
    system.update(camera, scene, ++frame);
    renderer.render(scene, camera);
    await nextTask();
  }
  mesh.visible = true;
  out.transientReleased = transient.released;
  out.sweptMapName = (mesh.material as MeshBasicNodeMaterial).map?.name;
  out.sweptPixel = await centrePixel(scene);

  // Copied levels: a far plane samples a coarse level of a chain whose coarse levels were copied
  // GPU-to-GPU (WebGPU) or re-uploaded from the CPU cache (WebGL2); a mip bias makes it stream level 0.
  const biased = new TextureStreamingSystem(renderer, {
    budgetBytes: 2 << 20,
    planner: { mipBias: -4 },
    needRefreshFrames: 1,
  });
  const green = biased.add(new LevelListSource(solidPyramid(256, [0, 255, 0]), { width: 256, height: 256 }), {
    name: 'green',
  });
  const farScene = new Scene();
  const far = new Mesh(geometry, new MeshBasicNodeMaterial());
  farScene.add(far);
  biased.attach(far, green);
  camera.position.set(0, 0, 12);
  camera.lookAt(0, 0, 0);
  for (let i = 1; i <= 10; i++) {
    biased.update(camera, farScene, i);
    renderer.render(farScene, camera);
    await nextTask();
  }
  out.copiedResidentMip = biased.residentMipOf(green);
  out.copiedPixel = await centrePixel(farScene);
  biased.dispose();
  camera.position.set(0, 0, 1.5);

  // KTX2 (uncompressed RGBA8) round trip through ktx-parse; a file of no known vkFormat is refused at construction.
  const container = createDefaultContainer();
  container.vkFormat = VK_FORMAT_R8G8B8A8_SRGB;
  container.pixelWidth = 128;
  container.pixelHeight = 128;
  container.levelCount = 8;
  container.levels = solidPyramid(128, [0, 0, 255]).map((levelData) => ({
    levelData: levelData as Uint8Array<ArrayBuffer>,
    uncompressedByteLength: levelData.byteLength,
  }));
  const ktx = new Ktx2Source(write(container));
  out.ktxLevels = ktx.mipLevelCount;
  out.ktxFormat = ktx.format;
  const basis = createDefaultContainer();
  basis.pixelWidth = 4;
  basis.pixelHeight = 4;
  basis.levelCount = 1;
  basis.levels = [{ levelData: new Uint8Array(16), uncompressedByteLength: 16 }];
  out.ktxBasis = code(() => new Ktx2Source(write(basis)));
  const blue = system.add(ktx, { name: 'ktx' });
  const ktxMesh = new Mesh(geometry, new MeshBasicNodeMaterial());
  const ktxScene = new Scene();
  ktxScene.add(ktxMesh);
  system.attach(ktxMesh, blue);
  for (let i = 0; i < 6; i++) {
    system.update(camera, ktxScene, ++frame);
    renderer.render(ktxScene, camera);
    await nextTask();
  }
  out.ktxPixel = await centrePixel(ktxScene);

  // Releasing twice, and a texture of another system.
  out.releaseTwice = code(() => system.remove(transient));
  const other = new TextureStreamingSystem(renderer, { budgetBytes: 1 << 20 });
  const foreign = other.add(new LevelListSource(solidPyramid(64, [0, 0, 0]), { width: 64, height: 64 }));
  out.releaseUnknown = code(() => system.remove(foreign));
  out.unretainUnheld = code(() => system.unretain(failing));
  other.dispose();
  system.dispose();
  out.trackedAfterDispose = trackedBytes();
  return out;
}

Object.assign(globalThis, { budgetPage: { scriptedRun, badInput, backend } });
document.title = 'ready';
