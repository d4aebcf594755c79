/**
 * A globe with Web Mercator imagery: `virtualTexture(vt, webMercatorUv())` on a `SphereGeometry`,
 * beside plain three.js drawing the same sphere with the same Mercator image as one `DataTexture`
 * sampled through the same mapping (`texture(map, webMercatorUv())`), its mips the levels the
 * virtual texture streams, so a settled frame must equal it.
 *
 * The image (`?image=` raw rgba8, `?size=` its side in texels, rows top down, north first) is served
 * as an in-memory image pyramid of 256² tiles down to one tile, with `wrapX: 'repeat'` as a
 * whole-world web map has, through `ImageryTileSource`. `?w=&h=` canvas size.
 *
 * Every frame the independent GPU tracker's count of the system's bytes is checked against the
 * budget (WebGPU: `tessera:` labels; WebGL2: GL texture bytes over those allocated before the
 * system was made).
 */

import { VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { type ImageryPyramid, type ImageryTile, ImageryTileSource } from '@tessera-vt/tessera/imagery';
import { WEB_MERCATOR_MAX_LATITUDE, webMercatorUv } from '@tessera-vt/tessera/three';
import {
  ClampToEdgeWrapping,
  DataTexture,
  FloatType,
  LinearFilter,
  LinearMipmapLinearFilter,
  Mesh,
  PerspectiveCamera,
  RepeatWrapping,
  RGBAFormat,
  Scene,
  SphereGeometry,
  SRGBColorSpace,
  UnsignedByteType,
  Vector3,
} from 'three';
import { texture } from 'three/tsl';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { downsampleRgba8 } from '../../../../src/sources/mips/box-downsample';
import { createTestRenderer } from '../../support/renderer';
import { linearToSrgb } from '../test-content';

const params = new URLSearchParams(location.search);
const size = Number(params.get('size') ?? 4096);
const width = Number(params.get('w') ?? 480);
const height = Number(params.get('h') ?? 360);
/** The system's budget, bytes. */
const BUDGET_BYTES = 32 * 2 ** 20;
/** Side of the pyramid's source tiles, texels (a web map's). */
const SOURCE_TILE = 256;

const renderer = await createTestRenderer(width, height);
const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;

// The image's levels, rows bottom up (south first): the reference texture's rows as three reads
// a DataTexture without flipY, and the pyramid reads them upside down into its north-first tiles.
const response = await fetch(params.get('image') as string);
if (!response.ok) throw new Error(`image: HTTP ${response.status}`);
const topDown = new Uint8Array(await response.arrayBuffer());
if (topDown.length !== size * size * 4) throw new Error(`image: ${topDown.length} bytes for ${size}²`);
const levels: { width: number; height: number; data: Uint8Array }[] = [
  { width: size, height: size, data: flipRows(topDown, size, size) },
];
while (levels[levels.length - 1].width > SOURCE_TILE) {
  const last = levels[levels.length - 1];
  const data = downsampleRgba8(last.data, last.width, last.height, true);
  levels.push({ width: last.width >> 1, height: last.height >> 1, data });
}

function flipRows(data: Uint8Array, w: number, h: number): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let y = 0; y < h; y++) out.set(data.subarray(y * w * 4, (y + 1) * w * 4), (h - 1 - y) * w * 4);
  return out;
}

/** A web map held in memory: level `i` of {@link levels}, cut into 256² tiles, north first. */
const pyramid: ImageryPyramid = {
  info: {
    levels: levels.map((l) => ({
      width: l.width,
      height: l.height,
      tileWidth: SOURCE_TILE,
      tileHeight: SOURCE_TILE,
    })),
    wrapX: 'repeat',
    attribution: 'xplanet-images',
  },
  async loadTile(level: number, x: number, y: number, signal: AbortSignal): Promise<ImageryTile | null> {
    if (signal.aborted) throw signal.reason;
    const l = levels[level];
    const w = Math.min(SOURCE_TILE, l.width - x * SOURCE_TILE);
    const h = Math.min(SOURCE_TILE, l.height - y * SOURCE_TILE);
    const data = new Uint8Array(w * h * 4);
    for (let j = 0; j < h; j++) {
      const row = l.height - 1 - (y * SOURCE_TILE + j);
      const from = (row * l.width + x * SOURCE_TILE) * 4;
      data.set(l.data.subarray(from, from + w * 4), j * w * 4);
    }
    return { width: w, height: h, data };
  },
};

// The reference, built before the system so that on WebGL2 its bytes are in the tracker's baseline.
const tileSource = new ImageryTileSource(pyramid, { tileSize: 128, border: 4 });
const mipCount = Math.log2(Math.max(tileSource.info.widthPages, tileSource.info.heightPages)) + 1;
const mipmaps = [...levels];
while (mipmaps.length < mipCount) {
  const last = mipmaps[mipmaps.length - 1];
  const data = downsampleRgba8(last.data, last.width, last.height, true);
  mipmaps.push({ width: last.width >> 1, height: last.height >> 1, data });
}
// Only the virtual texture's mips: three's chain would go on to 1 x 1 where the sampler clamps.
mipmaps.length = mipCount;
const map = new DataTexture(levels[0].data, size, size, RGBAFormat, UnsignedByteType);
map.mipmaps = mipmaps;
map.generateMipmaps = false;
map.flipY = false;
map.colorSpace = SRGBColorSpace;
map.magFilter = LinearFilter;
map.minFilter = LinearMipmapLinearFilter;
// Longitude wraps as the pyramid's `wrapX: 'repeat'` borders do; latitude clamps.
map.wrapS = RepeatWrapping;
map.wrapT = ClampToEdgeWrapping;
map.needsUpdate = true;

const geometry = new SphereGeometry(1, 128, 64);
const referenceScene = new Scene();
const referenceMaterial = new MeshBasicNodeMaterial();
referenceMaterial.colorNode = texture(map, webMercatorUv());
referenceScene.add(new Mesh(geometry, referenceMaterial));

const camera = new PerspectiveCamera(40, width / height, 0.001, 20);
const capture = new RenderTarget(width, height, { type: FloatType });
capture.texture.name = 'tessera-test:capture';

interface Tracker {
  liveBytesWithPrefix(prefix: string): number;
  snapshot(): { byPrefix: Record<string, { live: number; peak: number }> };
}
const tracker = (globalThis as unknown as { __tesseraGpuTracker: Tracker }).__tesseraGpuTracker;
// Everything that is not the system's allocated now: the reference, the capture target.
renderer.setRenderTarget(capture);
renderer.render(referenceScene, camera);
renderer.setRenderTarget(null);
renderer.render(referenceScene, camera);
const glBaseline = isWebGPU ? 0 : tracker.liveBytesWithPrefix('webgl:texture');
function trackedBytes(): number {
  return isWebGPU
    ? tracker.liveBytesWithPrefix('tessera:')
    : tracker.liveBytesWithPrefix('webgl:texture') - glBaseline;
}

// --- The globe as an application writes it ---
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: BUDGET_BYTES,
  tileSize: 128,
  border: 4,
  filtering: 'trilinear',
});
const errors: string[] = [];
vts.events.on('error', (event) => errors.push(`${event.error.code}: ${event.error.message}`));
const earth = vts.add(tileSource);
const material = new MeshBasicNodeMaterial();
material.colorNode = virtualTexture(earth, webMercatorUv());
const scene = new Scene();
scene.add(new Mesh(geometry, material));
// --- end ---

/** Tracker bytes of the system: the largest seen after any frame, and frames over the budget. */
const budgetWatch = { frames: 0, maxTracked: 0, overFrames: 0, maxStats: 0 };

function frame(): void {
  vts.update(camera, scene);
  renderer.render(scene, camera);
  const tracked = trackedBytes();
  const total = vts.stats().gpuBytes.total;
  budgetWatch.frames++;
  budgetWatch.maxTracked = Math.max(budgetWatch.maxTracked, tracked);
  budgetWatch.maxStats = Math.max(budgetWatch.maxStats, total);
  if (tracked > BUDGET_BYTES || total > BUDGET_BYTES) budgetWatch.overFrames++;
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

/** A camera pose: looking at the globe's centre from above (`lat`, `lon`) degrees, at `distance` radii. */
interface View {
  lat: number;
  lon: number;
  distance: number;
}
let current: View = { lat: 0, lon: 0, distance: 4 };

/** The point of the sphere at (`lat`, `lon`) degrees, as `SphereGeometry` places uv (u = (lon + 180) / 360). */
function direction(lat: number, lon: number): Vector3 {
  const phi = ((lon + 180) / 360) * 2 * Math.PI;
  const theta = (lat * Math.PI) / 180;
  return new Vector3(-Math.cos(phi) * Math.cos(theta), Math.sin(theta), Math.sin(phi) * Math.cos(theta));
}

function setView(view: View): void {
  current = { ...view };
  camera.position.copy(direction(view.lat, view.lon).multiplyScalar(view.distance));
  camera.up.set(0, 1, 0);
  camera.lookAt(0, 0, 0);
  camera.near = Math.max(0.001, (view.distance - 1) * 0.5);
  camera.far = view.distance + 2;
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld(true);
}
setView(current);

/** Moves the camera to `to` over `frames` frames (distance eased in log space), one update each. */
async function fly(to: View, frames: number): Promise<void> {
  const from = { ...current };
  for (let i = 1; i <= frames; i++) {
    const t = i / frames;
    setView({
      lat: from.lat + (to.lat - from.lat) * t,
      lon: from.lon + (to.lon - from.lon) * t,
      distance: Math.exp(Math.log(from.distance) + (Math.log(to.distance) - Math.log(from.distance)) * t),
    });
    frame();
    await nextFrame();
  }
}

/** Runs frames until `vts.whenSettled()` resolves; returns the frames it took (-1: maxFrames ran out). */
async function settle(maxFrames = 600): Promise<number> {
  let settled = false;
  vts.whenSettled().then(() => {
    settled = true;
  });
  for (let i = 0; i < maxFrames; i++) {
    frame();
    await nextFrame();
    if (settled) return i + 1;
  }
  return -1;
}

/** Renders `target` into the capture target and reads it as sRGB bytes, rows top down. */
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

/**
 * Pixels whose centre ray meets the globe (a sphere just inside the mesh's, so the faceted limb
 * is left out), as 1/0, rows top down.
 */
function globeMask(): Uint8Array {
  const mask = new Uint8Array(width * height);
  const origin = camera.position;
  const ray = new Vector3();
  const tanHalf = Math.tan((camera.fov * Math.PI) / 360);
  const r = 0.995;
  for (let py = 0; py < height; py++) {
    for (let px = 0; px < width; px++) {
      const ndcX = ((px + 0.5) / width) * 2 - 1;
      const ndcY = 1 - ((py + 0.5) / height) * 2;
      ray.set(ndcX * tanHalf * camera.aspect, ndcY * tanHalf, -1).transformDirection(camera.matrixWorld);
      const b = origin.dot(ray);
      const c = origin.lengthSq() - r * r;
      if (b * b - c > 0) mask[py * width + px] = 1;
    }
  }
  return mask;
}

/** PSNR (dB, RGB) of the virtual texture's frame against the reference over the globe's pixels. */
async function compare(): Promise<{ psnr: number; worst: number; pixels: number }> {
  const a = await shoot(scene);
  const b = await shoot(referenceScene);
  const mask = globeMask();
  let sum = 0;
  let count = 0;
  let worst = 0;
  for (let p = 0; p < mask.length; p++) {
    if (mask[p] === 0) continue;
    for (let c = 0; c < 3; c++) {
      const d = a[p * 4 + c] - b[p * 4 + c];
      sum += d * d;
      worst = Math.max(worst, Math.abs(d));
    }
    count++;
  }
  const mse = sum / (count * 3);
  return { psnr: mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse), worst, pixels: count };
}

/** Both frames as RGBA bytes, for a test to save and look at. */
async function frames(): Promise<{ width: number; height: number; vt: number[]; reference: number[] }> {
  return {
    width,
    height,
    vt: Array.from(await shoot(scene)),
    reference: Array.from(await shoot(referenceScene)),
  };
}

const api = {
  mipCount,
  maxLatitudeDegrees: (WEB_MERCATOR_MAX_LATITUDE * 180) / Math.PI,
  setView,
  fly,
  settle,
  compare,
  frames,
  isSettled: () => vts.isSettled,
  /** Resident pages per mip (index = mip). */
  residentMips: () => vts.residentPagesByMip(earth),
  budget: () => ({
    ...budgetWatch,
    budget: BUDGET_BYTES,
    peak: isWebGPU ? (tracker.snapshot().byPrefix['tessera:']?.peak ?? 0) : null,
  }),
  errors: () => [...errors],
  counters: () => tileSource.counters,
};
(globalThis as unknown as { globeScene: typeof api }).globeScene = api;
document.title = 'ready';
