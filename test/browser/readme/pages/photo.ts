/**
 * The README's "Add a virtual texture to your scene" path on a baked photograph, beside the same
 * photograph loaded by three's `TextureLoader` on the same mesh: the scene code below follows the
 * README line by line (the renderer comes from the test harness, for the backend choice).
 *
 * `?archive=` the baked .tsva, `?image=` the same image for TextureLoader, `?w=&h=` canvas size,
 * `?mesh=plane` (the README's), `sphere`, or `gltf`: a sphere written by GLTFExporter and read
 * back by GLTFLoader, sampled with `flipY: false` on both sides, as GLTFLoader loads a glTF's own
 * textures. `?pool=uastc`: the pool layer for an archive baked with `--encoding uastc`.
 */
import {
  type BufferGeometry,
  FloatType,
  LinearFilter,
  Mesh,
  type Object3D,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  SphereGeometry,
  SRGBColorSpace,
  TextureLoader,
} from 'three';
import { GLTFExporter } from 'three/examples/jsm/exporters/GLTFExporter.js';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { pageMip, pageX, pageY } from '../../../../src/core/index';
import {
  ArchiveTileSource,
  TesseraRuntime,
  type VirtualTextureFiltering,
  VirtualTextureSystem,
  virtualTexture,
} from '../../../../src/index';
import { createTestRenderer } from '../../support/renderer';
import { linearToSrgb } from '../../vt/test-content';

const params = new URLSearchParams(location.search);
const meshKind = params.get('mesh') ?? 'plane';
const flipY = meshKind !== 'gltf';

/** A sphere's geometry after a round trip through glTF (GLTFExporter, then GLTFLoader). */
async function gltfSphere(): Promise<BufferGeometry> {
  const json = await new GLTFExporter().parseAsync(new Mesh(new SphereGeometry(0.5, 48, 24)), {
    binary: false,
  });
  const gltf = await new GLTFLoader().parseAsync(JSON.stringify(json), '');
  let geometry: BufferGeometry | null = null;
  gltf.scene.traverse((object: Object3D) => {
    if ((object as Mesh).isMesh) geometry = (object as Mesh).geometry;
  });
  if (geometry === null) throw new Error('the glTF round trip lost the mesh');
  return geometry;
}
let width = Number(params.get('w') ?? 640);
let height = Number(params.get('h') ?? 320);
const renderer = await createTestRenderer(width, height);

// ?tight=1: a runtime whose budget others fill right after the system is made, so a resize finds no room.
const tight = params.get('tight') === '1';
const runtime = tight ? new TesseraRuntime({ budgetBytes: 48 * 2 ** 20 }) : undefined;
const shared = runtime?.budget;

/** The system's own budget when not `tight`, in bytes. */
const PHOTO_BUDGET_BYTES = 128 * 2 ** 20;

const filtering = (params.get('filtering') ?? 'trilinear') as VirtualTextureFiltering;

// --- The README's code ---
const vts = new VirtualTextureSystem(renderer, {
  ...(runtime ? { runtime, shareBytes: 40 * 2 ** 20 } : { budgetBytes: PHOTO_BUDGET_BYTES }),
  filtering,
  // ?pool=uastc: the archive was baked with `--encoding uastc`; its pool layer is the README's
  // block-compressed one (opaque photograph: no alpha).
  ...(params.get('pool') === 'uastc'
    ? { layers: [{ name: 'albedo', format: 'uastc-4x4-srgb', alpha: false } as const] }
    : {}),
});
const photo = vts.add(await ArchiveTileSource.open(params.get('archive') as string));
// Filled after `add`: a sparse page table reserves its first blocks from the budget when added.
if (shared) shared.tryReserve('other', shared.freeBytes);
const scene = new Scene();
const camera = new PerspectiveCamera(50, width / height, 0.1, 100);
camera.position.z = 1.1;
const material = new MeshBasicNodeMaterial();
material.colorNode =
  meshKind === 'gltf' ? virtualTexture(photo, undefined, { flipY: false }) : virtualTexture(photo);
const geometry =
  meshKind === 'sphere'
    ? new SphereGeometry(0.5, 48, 24)
    : meshKind === 'gltf'
      ? await gltfSphere()
      : new PlaneGeometry(photo.aspect, 1);
const photoMesh = new Mesh(geometry, material);
scene.add(photoMesh);
// --- end of the README's code ---

// ?view=grazing: the photo as a floor seen from just above it, towards the far edge.
if (params.get('view') === 'grazing') {
  photoMesh.rotation.x = -Math.PI / 2;
  camera.position.set(0, 0.04, 0.5);
  camera.lookAt(0, 0, -0.5);
}

// `page-loaded` must fire once the page is mapped (resident in its page table), in the current frame.
const pageEvents = { count: 0, unmapped: 0, wrongFrame: 0 };
vts.events.on('page-loaded', (event) => {
  pageEvents.count++;
  if (!photo.pageTable.isResident(pageMip(event.pageId), pageX(event.pageId), pageY(event.pageId)))
    pageEvents.unmapped++;
  if (event.frame !== vts.frameNumber) pageEvents.wrongFrame++;
});

// The reference: three's own texture of the same image on the same plane (mipmapped, trilinear).
const reference = await new TextureLoader().loadAsync(params.get('image') as string);
reference.colorSpace = SRGBColorSpace;
reference.flipY = flipY;
const referenceScene = new Scene();
referenceScene.add(new Mesh(geometry, new MeshBasicNodeMaterial({ map: reference })));

const capture = new RenderTarget(width, height, { type: FloatType });
/** Supersampling factor of the {@link supersampled} reference, per axis. */
const SUPERSAMPLE = 4;
const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;

/** Renders `target` scene into the capture target and reads it as sRGB bytes, rows top-down. */
async function shoot(target: Scene): Promise<Uint8Array> {
  renderer.setRenderTarget(capture);
  renderer.render(target, camera);
  renderer.setRenderTarget(null);
  const linear = (await renderer.readRenderTargetPixelsAsync(capture, 0, 0, width, height)) as Float32Array;
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = isWebGPU ? y : height - 1 - y;
    for (let x = 0; x < width * 4; x++) {
      const v = linear[y * width * 4 + x];
      out[row * width * 4 + x] = (x & 3) === 3 ? Math.round(v * 255) : Math.round(linearToSrgb(v));
    }
  }
  return out;
}

/** One animation-loop iteration of the README: update, then render to the canvas. */
function frame(): void {
  vts.update(camera, scene);
  renderer.render(scene, camera);
}

/**
 * The reference for filtering quality: the photo's mip 0 (no mipmaps, bilinear) rendered at
 * 4 x 4 samples per pixel and box-filtered in linear light, as sRGB bytes, rows top-down.
 */
async function supersampled(): Promise<Uint8Array> {
  const level0 = reference.clone();
  level0.generateMipmaps = false;
  level0.minFilter = LinearFilter;
  level0.needsUpdate = true;
  const sceneAt0 = new Scene();
  const mesh = new Mesh(geometry, new MeshBasicNodeMaterial({ map: level0 }));
  mesh.rotation.copy(photoMesh.rotation);
  sceneAt0.add(mesh);
  const w = width * SUPERSAMPLE;
  const h = height * SUPERSAMPLE;
  const big = new RenderTarget(w, h, { type: FloatType });
  renderer.setRenderTarget(big);
  renderer.render(sceneAt0, camera);
  renderer.setRenderTarget(null);
  const linear = (await renderer.readRenderTargetPixelsAsync(big, 0, 0, w, h)) as Float32Array;
  big.dispose();
  level0.dispose();
  const out = new Uint8Array(width * height * 4);
  const n = SUPERSAMPLE * SUPERSAMPLE;
  for (let y = 0; y < height; y++) {
    const row = isWebGPU ? y : height - 1 - y;
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 4; c++) {
        let sum = 0;
        for (let sy = 0; sy < SUPERSAMPLE; sy++) {
          for (let sx = 0; sx < SUPERSAMPLE; sx++) {
            sum += linear[((y * SUPERSAMPLE + sy) * w + x * SUPERSAMPLE + sx) * 4 + c];
          }
        }
        const v = sum / n;
        out[(row * width + x) * 4 + c] = c === 3 ? Math.round(v * 255) : Math.round(linearToSrgb(v));
      }
    }
  }
  return out;
}

/** PSNR (dB) of RGB bytes `a` against `b`. */
function psnrOf(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    if ((i & 3) === 3) continue;
    sum += (a[i] - b[i]) ** 2;
  }
  const mse = sum / ((a.length / 4) * 3);
  return mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
}

/** PSNR (dB) of the virtual texture's frame against the 4 x 4 supersampled reference. */
async function compareSupersampled(): Promise<number> {
  return psnrOf(await shoot(scene), await supersampled());
}

/** Runs frames until `vts.whenSettled()` resolves; returns the frames it took (-1: maxFrames ran out). */
async function settle(maxFrames = 400): Promise<number> {
  let settled = false;
  vts.whenSettled().then(() => {
    settled = true;
  });
  for (let i = 0; i < maxFrames; i++) {
    frame();
    await new Promise((resolve) => requestAnimationFrame(resolve));
    if (settled) return i + 1;
  }
  return -1;
}

/** PSNR (dB) of the virtual texture's frame against the TextureLoader reference, RGB channels. */
async function compare(): Promise<{ psnr: number; worst: number; top: number[]; bottom: number[] }> {
  const a = await shoot(scene);
  const b = await shoot(referenceScene);
  let worst = 0;
  for (let i = 0; i < a.length; i++) if ((i & 3) !== 3) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  const centre = (row: number) =>
    Array.from(a.subarray((row * width + width / 2) * 4, (row * width + width / 2) * 4 + 3));
  return {
    psnr: psnrOf(a, b),
    worst,
    top: centre(Math.round(height * 0.25)),
    bottom: centre(Math.round(height * 0.75)),
  };
}

/** The README's resize handler: camera aspect, then `renderer.setSize` (the feedback follows). */
function resize(w: number, h: number): void {
  width = w;
  height = h;
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  renderer.setSize(w, h);
  capture.setSize(w, h);
}

/** Both frames as RGBA bytes (for a failing test to save and look at). */
async function frames(): Promise<{ width: number; height: number; vt: number[]; reference: number[] }> {
  return {
    width,
    height,
    vt: Array.from(await shoot(scene)),
    reference: Array.from(await shoot(referenceScene)),
  };
}

const api = {
  settle,
  frames,
  compare,
  resize,
  stats: () => vts.stats(),
  pageEvents: () => ({ ...pageEvents }),
  compareSupersampled,
  budget: () =>
    shared ? { live: shared.liveBytes, budget: shared.budgetBytes, peak: shared.peakBytes } : null,
  budgetBytes: PHOTO_BUDGET_BYTES,
  disposeSystem: () => vts.dispose(),
  /** Bytes the independent tracker counts: `tessera:` labels on WebGPU, every GL texture on WebGL2 (no labels). */
  trackedBytes: () => {
    const tracker = (
      globalThis as unknown as { __tesseraGpuTracker: { liveBytesWithPrefix(prefix: string): number } }
    ).__tesseraGpuTracker;
    return tracker.liveBytesWithPrefix(isWebGPU ? 'tessera:' : 'webgl:texture');
  },
  content: () => ({ width: photo.contentWidth, height: photo.contentHeight, aspect: photo.aspect }),
};
(window as unknown as { photoScene: typeof api }).photoScene = api;
document.title = 'ready';
