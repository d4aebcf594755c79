/**
 * One globe from orbit to street level: `ImageryGlobe` over the deterministic tile server
 * (`/__globe-tiles/{z}/{x}/{y}.png`, zooms 0..18, test/support/imagery/globe-tiles.ts) in a
 * `VirtualTextureSystem` of 96 MiB, flown through the stops of {@link STOPS}. At each stop,
 * `compare()` draws a reference with plain three.js: a patch of the sphere, its vertices computed
 * in doubles relative to the camera, textured by a `DataTexture` whose mip levels are the server's
 * own tiles at the stop's zooms (fetched and decoded here, apart from the library), and reports the
 * PSNR over the pixels both drew, with the pixels around a region's edge (where one texture of the
 * cascade meets the next) counted apart. Every frame checks the budget: the system's reserved and
 * allocated bytes against 96 MiB.
 */

import { VirtualTextureSystem } from '@tessera-vt/tessera';
import { openXyzPyramid } from '@tessera-vt/tessera/imagery';
import { ImageryGlobe } from '@tessera-vt/tessera/three';
import {
  BufferAttribute,
  BufferGeometry,
  ClampToEdgeWrapping,
  DataTexture,
  DoubleSide,
  FloatType,
  LinearFilter,
  LinearMipmapLinearFilter,
  Mesh,
  PerspectiveCamera,
  RGBAFormat,
  Scene,
  SphereGeometry,
  SRGBColorSpace,
  UnsignedByteType,
  Vector3,
} from 'three';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { mercatorY, worldTexel } from '../../../../src/sources/imagery/globe-cascade';
import { downsampleRgba8 } from '../../../../src/sources/mips/box-downsample';
import { GLOBE_MAX_ZOOM, GLOBE_TILE_SIZE } from '../../../support/imagery/globe-tiles';
import { type ErrorStats, ErrorSum } from '../../support/error-sum';
import { createTestRenderer } from '../../support/renderer';
import { linearToSrgb } from '../../vt/test-content';

const params = new URLSearchParams(location.search);
const width = Number(params.get('w') ?? 640);
const height = Number(params.get('h') ?? 360);
const BUDGET = 96 * 2 ** 20;
const DEG = Math.PI / 180;
/** Earth radius, metres: only to state altitudes in the stops. */
const EARTH_M = 6.371e6;

/**
 * A place to look from: straight down at (`lon`, `lat`) degrees from `altitudeM` metres, north up.
 * The reference is `tiles` x `tiles` tiles of zoom `zoom` around the ground point, with mips from
 * the server's tiles `mipsFromTiles` zooms down.
 */
interface Stop {
  lon: number;
  lat: number;
  altitudeM: number;
  reference: { zoom: number; tiles: number; mipsFromTiles: number; wholeWorld?: boolean };
  /** Texels of the reference's zoom the `shifted` check moves it by: about one texel of the zoom shown. */
  shiftTexels: number;
}

/**
 * The flight: the whole Earth, zoom 18 over Paris (1.5 screen pixels per texel), up to 260 km
 * beside the region's centre where its edge crosses the view, then a jump to Sydney at zoom 18.
 */
const STOPS: Record<string, Stop> = {
  orbit: {
    lon: 10,
    lat: 30,
    altitudeM: 1.8 * EARTH_M,
    reference: { zoom: 4, tiles: 16, mipsFromTiles: 4, wholeWorld: true },
    shiftTexels: 8,
  },
  paris: {
    lon: 2.3522,
    lat: 48.8566,
    altitudeM: 0,
    reference: { zoom: 18, tiles: 4, mipsFromTiles: 2 },
    shiftTexels: 1,
  },
  edge: {
    lon: 0,
    lat: 0,
    altitudeM: 260_000,
    reference: { zoom: 9, tiles: 8, mipsFromTiles: 2 },
    shiftTexels: 4,
  },

  sydney: {
    lon: 151.2093,
    lat: -33.8688,
    altitudeM: 0,
    reference: { zoom: 18, tiles: 4, mipsFromTiles: 2 },
    shiftTexels: 1,
  },
};

/** Altitude (radii) where a texel of `zoom` spans `pixelsPerTexel` screen pixels at latitude `lat`, looking straight down. */
function altitudeFor(zoom: number, lat: number, pixelsPerTexel: number, fovDeg: number): number {
  const texelRadians = (2 * Math.PI * Math.cos(lat * DEG)) / (GLOBE_TILE_SIZE * 2 ** zoom);
  const viewRadians = (height / pixelsPerTexel) * texelRadians;
  return viewRadians / (2 * Math.tan((fovDeg * DEG) / 2));
}

const renderer = await createTestRenderer(width, height);
const isWebGPU = (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend === true;
const capture = new RenderTarget(width, height, { type: FloatType });
capture.texture.name = 'tessera-test:capture';

/** The tracker injected by the fixture (test/support/gpu-tracker.js). */
const tracker = (globalThis as unknown as { __tesseraGpuTracker: { liveBytesWithPrefix(p: string): number } })
  .__tesseraGpuTracker;
/** WebGL2 has no labels: GL texture bytes allocated before Tessera's, subtracted from the count. */
let glBaseline = 0;
if (!isWebGPU) {
  const probe = new PerspectiveCamera();
  renderer.setRenderTarget(capture);
  renderer.render(new Scene(), probe);
  renderer.setRenderTarget(null);
  renderer.render(new Scene(), probe);
  glBaseline = tracker.liveBytesWithPrefix('webgl:texture');
}
/** Bytes the independent tracker counts for Tessera (WebGPU: `tessera:` labels; WebGL2: GL textures over the baseline). */
function trackedBytes(): number {
  return isWebGPU
    ? tracker.liveBytesWithPrefix('tessera:')
    : tracker.liveBytesWithPrefix('webgl:texture') - glBaseline;
}
// Pages of 264 with a border of 4: a page's 256-texel payload is one of the server's tiles.
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: BUDGET,
  tileSize: 264,
  border: 4,
  filtering: 'trilinear',
});
const errors: string[] = [];
vts.events.on('error', (event) => errors.push(`${event.error.code}: ${event.error.message}`));
const tileTemplate = `${location.origin}/__globe-tiles/{z}/{x}/{y}.png`;
const globe = new ImageryGlobe(vts, await openXyzPyramid(tileTemplate, { maxZoom: GLOBE_MAX_ZOOM }));
const material = new MeshBasicNodeMaterial();
material.colorNode = globe.colorNode();
const scene = new Scene();
scene.add(new Mesh(new SphereGeometry(1, 128, 64), material));
const camera = new PerspectiveCamera(45, width / height, 0.1, 10);

/** Worst figures seen over every frame so far. */
const budget = { frames: 0, maxReserved: 0, maxGpu: 0, overBudgetFrames: 0, stopMaxGpu: 0 };

function placeCamera(lon: number, lat: number, altitude: number): void {
  const l = lon * DEG;
  const p = lat * DEG;
  const r = 1 + altitude;
  camera.position.set(r * Math.cos(p) * Math.cos(l), r * Math.sin(p), -r * Math.cos(p) * Math.sin(l));
  // North up on screen, looking at the centre (straight down).
  camera.up.set(-Math.sin(p) * Math.cos(l), Math.cos(p), Math.sin(p) * Math.sin(l));
  camera.lookAt(0, 0, 0);
  camera.near = altitude * 0.5;
  camera.far = altitude + 2;
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld(true);
}

/** Where a stop puts the camera: [lon, lat, altitude in radii]. */
function stopPlace(name: string): [number, number, number] {
  const stop = STOPS[name];
  if (stop === undefined) throw new Error(`unknown stop ${name}`);
  if (name === 'edge') {
    // Beside the finest region's centre, a fifth of its side east (not far enough to move it),
    // high enough that its east edge crosses the view.
    const region = globe.cascade[globe.cascade.length - 1];
    const world = GLOBE_TILE_SIZE * 2 ** region.zoom;
    const cx = region.originX + region.texels * 0.5 + region.texels * 0.22;
    const cy = region.originY + region.texels * 0.5;
    const lon = (cx / world - 0.5) * 360;
    const lat = Math.atan(Math.sinh(Math.PI * (1 - (2 * cy) / world))) / DEG;
    return [lon, lat, stop.altitudeM / EARTH_M];
  }
  const altitude = stop.altitudeM > 0 ? stop.altitudeM / EARTH_M : altitudeFor(18, stop.lat, 1.5, camera.fov);
  return [stop.lon, stop.lat, altitude];
}

/** One frame: globe, system, render; the budget checked. */
function frame(): void {
  globe.update(camera);
  vts.update(camera, scene);
  renderer.render(scene, camera);
  const stats = vts.stats();
  const reserved = Object.values(stats.byCategory).reduce((sum, bytes) => sum + bytes, 0);
  budget.frames++;
  budget.maxReserved = Math.max(budget.maxReserved, reserved);
  budget.maxGpu = Math.max(budget.maxGpu, stats.gpuBytes.total);
  budget.stopMaxGpu = Math.max(budget.stopMaxGpu, stats.gpuBytes.total);
  if (reserved > BUDGET || stats.gpuBytes.total > BUDGET) budget.overBudgetFrames++;
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

/**
 * Flies to stop `name` over `frames` frames (altitude and position interpolated in log space and
 * along the great circle, not waiting for anything), leaving the camera there.
 */
async function fly(name: string, frames = 12): Promise<void> {
  const [lon1, lat1, alt1] = stopPlace(name);
  const from = camera.position.clone();
  const alt0 = from.length() - 1;
  const lon0 = Math.atan2(-from.z, from.x) / DEG;
  const lat0 = Math.asin(from.y / from.length()) / DEG;
  for (let i = 1; i <= frames; i++) {
    const t = i / frames;
    const dLon = ((((lon1 - lon0) % 360) + 540) % 360) - 180;
    placeCamera(
      lon0 + dLon * t,
      lat0 + (lat1 - lat0) * t,
      Math.exp(Math.log(alt0) + (Math.log(alt1) - Math.log(alt0)) * t),
    );
    frame();
    await nextFrame();
  }
}

/**
 * Jumps to stop `name` and runs frames until the system is settled and no region is moving for
 * 3 frames in a row; returns the frames it took (-1: `maxFrames` ran out).
 */
async function settle(maxFrames = 600): Promise<number> {
  let calm = 0;
  for (let i = 0; i < maxFrames; i++) {
    frame();
    await nextFrame();
    calm = vts.isSettled && !globe.cascade.some((level: { moving: boolean }) => level.moving) ? calm + 1 : 0;
    if (calm >= 3) return i + 1;
  }
  return -1;
}

function jump(name: string): void {
  const [lon, lat, altitude] = stopPlace(name);
  placeCamera(lon, lat, altitude);
}

/** Renders `target` scene with `cam` into the capture and reads sRGB bytes (rows top down) and alpha. */
async function shoot(target: Scene, cam: PerspectiveCamera): Promise<Uint8Array> {
  renderer.setRenderTarget(capture);
  renderer.setClearColor(0x000000, 0);
  renderer.clear();
  renderer.render(target, cam);
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

/** One decoded tile from the server (decoded by the browser, not the library). */
async function fetchTile(z: number, x: number, y: number): Promise<ImageData> {
  const response = await fetch(`${location.origin}/__globe-tiles/${z}/${x}/${y}.png`);
  if (!response.ok) throw new Error(`tile ${z}/${x}/${y}: HTTP ${response.status}`);
  const bitmap = await createImageBitmap(await response.blob(), {
    colorSpaceConversion: 'none',
    premultiplyAlpha: 'none',
  });
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
  context.drawImage(bitmap, 0, 0);
  return context.getImageData(0, 0, bitmap.width, bitmap.height);
}

/** Texels [x0, x0 + side) x [y0, y0 + side) of zoom `z`, assembled from the server's tiles. */
async function assemble(z: number, x0: number, y0: number, side: number): Promise<Uint8Array> {
  const out = new Uint8Array(side * side * 4);
  const T = GLOBE_TILE_SIZE;
  const jobs: Promise<void>[] = [];
  for (let ty = Math.floor(y0 / T); ty * T < y0 + side; ty++) {
    for (let tx = Math.floor(x0 / T); tx * T < x0 + side; tx++) {
      jobs.push(
        fetchTile(z, tx, ty).then((tile) => {
          for (let j = 0; j < T; j++) {
            const y = ty * T + j - y0;
            if (y < 0 || y >= side) continue;
            for (let i = 0; i < T; i++) {
              const x = tx * T + i - x0;
              if (x < 0 || x >= side) continue;
              const from = (j * T + i) * 4;
              out.set(tile.data.subarray(from, from + 4), (y * side + x) * 4);
            }
          }
        }),
      );
    }
  }
  await Promise.all(jobs);
  return out;
}

/** The reference of stop `name`: a patch of the sphere relative to the camera, and a camera at the origin. */
async function reference(
  name: string,
): Promise<{ scene: Scene; camera: PerspectiveCamera; dispose(): void }> {
  const stop = STOPS[name];
  const { zoom, tiles, mipsFromTiles, wholeWorld } = stop.reference;
  const T = GLOBE_TILE_SIZE;
  const world = T * 2 ** zoom;
  const side = tiles * T;
  const lon = Math.atan2(-camera.position.z, camera.position.x);
  const lat = Math.asin(camera.position.y / camera.position.length());
  const [gx, gy] = worldTexel(lon, lat, world);
  // Tile-aligned, so that each coarser zoom's texels of the block start on a texel.
  const x0 = wholeWorld ? 0 : (Math.floor(gx / T) - tiles / 2) * T;
  const y0 = wholeWorld ? 0 : (Math.floor(gy / T) - tiles / 2) * T;
  const mipmaps: { data: Uint8Array; width: number; height: number }[] = [];
  for (let k = 0; side >> k >= 1; k++) {
    const s = side >> k;
    const data =
      k <= mipsFromTiles
        ? await assemble(zoom - k, x0 >> k, y0 >> k, s)
        : downsampleRgba8(mipmaps[k - 1].data, s * 2, s * 2, true);
    mipmaps.push({ data, width: s, height: s });
  }
  const texture = new DataTexture(mipmaps[0].data, side, side, RGBAFormat, UnsignedByteType);
  texture.mipmaps = mipmaps;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.colorSpace = SRGBColorSpace;
  texture.magFilter = LinearFilter;
  texture.minFilter = LinearMipmapLinearFilter;
  texture.wrapS = ClampToEdgeWrapping;
  texture.wrapT = ClampToEdgeWrapping;
  texture.needsUpdate = true;
  // Vertices on the sphere, in doubles relative to the camera (float32 then holds them exactly enough).
  const N = 128;
  const positions = new Float32Array((N + 1) * (N + 1) * 3);
  const uvs = new Float32Array((N + 1) * (N + 1) * 2);
  const c = camera.position;
  for (let j = 0; j <= N; j++) {
    const Y = y0 + (side * j) / N;
    const vLat = Math.atan(Math.sinh(Math.PI * (1 - (2 * Y) / world)));
    for (let i = 0; i <= N; i++) {
      const X = x0 + (side * i) / N;
      const vLon = (X / world) * 2 * Math.PI - Math.PI;
      const k = j * (N + 1) + i;
      positions[k * 3] = Math.cos(vLat) * Math.cos(vLon) - c.x;
      positions[k * 3 + 1] = Math.sin(vLat) - c.y;
      positions[k * 3 + 2] = -Math.cos(vLat) * Math.sin(vLon) - c.z;
      uvs[k * 2] = i / N;
      uvs[k * 2 + 1] = j / N;
    }
  }
  const index: number[] = [];
  for (let j = 0; j < N; j++) {
    for (let i = 0; i < N; i++) {
      const a = j * (N + 1) + i;
      index.push(a, a + N + 1, a + 1, a + 1, a + N + 1, a + N + 2);
    }
  }
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(positions, 3));
  geometry.setAttribute('uv', new BufferAttribute(uvs, 2));
  geometry.setIndex(index);
  const refMaterial = new MeshBasicNodeMaterial({ map: texture, side: DoubleSide });
  const refScene = new Scene();
  refScene.add(new Mesh(geometry, refMaterial));
  const refCamera = new PerspectiveCamera(camera.fov, camera.aspect, camera.near, camera.far);
  refCamera.quaternion.copy(camera.quaternion);
  refCamera.updateMatrixWorld(true);
  return {
    scene: refScene,
    camera: refCamera,
    dispose() {
      geometry.dispose();
      refMaterial.dispose();
      texture.dispose();
    },
  };
}

/**
 * Distance of each pixel's ground point from the nearest edge of the finest region, as a share of
 * the region's side (negative outside; NaN off the globe), found in doubles from the camera.
 */
function regionEdgeDistance(): Float64Array {
  const out = new Float64Array(width * height).fill(Number.NaN);
  const region = globe.cascade[globe.cascade.length - 1];
  if (!region.region || region.texture === null) return out;
  const world = GLOBE_TILE_SIZE * 2 ** region.zoom;
  const origin = camera.position;
  const dir = new Vector3();
  for (let py = 0; py < height; py++) {
    for (let px = 0; px < width; px++) {
      dir
        .set(((px + 0.5) / width) * 2 - 1, 1 - ((py + 0.5) / height) * 2, 0.5)
        .unproject(camera)
        .sub(origin)
        .normalize();
      const b = origin.dot(dir);
      const disc = b * b - (origin.lengthSq() - 1);
      if (disc < 0) continue;
      const t = -b - Math.sqrt(disc);
      const x = origin.x + t * dir.x;
      const y = origin.y + t * dir.y;
      const z = origin.z + t * dir.z;
      const [gx, gy] = worldTexel(Math.atan2(-z, x), Math.asin(y), world);
      const u = (gx - region.originX) / region.texels;
      const v = (gy - region.originY) / region.texels;
      out[py * width + px] = Math.min(u, v, 1 - u, 1 - v);
    }
  }
  return out;
}

/** What {@link compare} reports. */
interface Comparison {
  /** Every pixel both drew (the reference patch's outline left out). */
  all: ErrorStats;
  /** Pixels whose ground lies in the finest region's blend band or just outside it (the level boundary). */
  boundary: ErrorStats;
  /** The other pixels. */
  rest: ErrorStats;
  /** The same frame against the reference moved about one texel of the zoom shown: proves the measure sees a shift. */
  shifted: ErrorStats;
  /** The centre pixel of both frames (rgba8), for a report. */
  centre: { globe: number[]; reference: number[] };
}

/** The latest compared frames, rgba8 rows top down (for saving when a comparison fails). */
let lastShots: { width: number; height: number; globe: number[]; reference: number[] } | null = null;

/** Share of a region's side around its edge counted as the boundary: the blend band (1/16) and as much outside. */
const BOUNDARY = 1 / 16;

async function compare(name: string): Promise<Comparison> {
  const ref = await reference(name);
  const a = await shoot(scene, camera);
  const b = await shoot(ref.scene, ref.camera);
  // The same reference about one texel of the zoom shown east: a misplacement the measure must see.
  const side = STOPS[name].reference.tiles * GLOBE_TILE_SIZE;
  const uv = (ref.scene.children[0] as Mesh).geometry.getAttribute('uv') as BufferAttribute;
  for (let i = 0; i < uv.count; i++) uv.setX(i, uv.getX(i) + STOPS[name].shiftTexels / side);
  uv.needsUpdate = true;
  const shiftedShot = await shoot(ref.scene, ref.camera);
  lastShots = { width, height, globe: Array.from(a), reference: Array.from(b) };
  ref.dispose();
  const edge = regionEdgeDistance();
  const all = new ErrorSum();
  const boundary = new ErrorSum();
  const rest = new ErrorSum();
  const shifted = new ErrorSum();
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      // Inside the reference patch with a margin of one pixel (its outline is partly covered).
      let covered = true;
      for (let dy = -1; dy <= 1 && covered; dy++) {
        for (let dx = -1; dx <= 1; dx++) if (b[(i + dy * width + dx) * 4 + 3] < 255) covered = false;
      }
      if (!covered || a[i * 4 + 3] < 255) continue;
      all.add(a, b, i);
      shifted.add(a, shiftedShot, i);
      const e = edge[i];
      if (e > -BOUNDARY && e < BOUNDARY) boundary.add(a, b, i);
      else rest.add(a, b, i);
    }
  }
  const centre = ((height >> 1) * width + (width >> 1)) * 4;
  return {
    all: all.stats(),
    boundary: boundary.stats(),
    rest: rest.stats(),
    shifted: shifted.stats(),
    centre: {
      globe: Array.from(a.subarray(centre, centre + 4)),
      reference: Array.from(b.subarray(centre, centre + 4)),
    },
  };
}

/** Disposes the globe, then the system: what each leaves behind. */
function dispose(): {
  afterGlobe: { residentPages: number; pageTableBytes: number };
  trackedBefore: number;
  trackedAfter: number;
} {
  const trackedBefore = trackedBytes();
  globe.dispose();
  const stats = vts.stats();
  const afterGlobe = { residentPages: stats.residentPages, pageTableBytes: stats.byCategory['page-table'] };
  vts.dispose();
  return { afterGlobe, trackedBefore, trackedAfter: trackedBytes() };
}

(window as unknown as { globeTest: object }).globeTest = {
  fly,
  jump,
  settle,
  compare,
  dispose,
  budget: () => ({ ...budget, budgetBytes: BUDGET }),
  /** Starts a stop's peak of the system's GPU bytes (`budget().stopMaxGpu`). */
  resetStopPeak: () => {
    budget.stopMaxGpu = 0;
  },
  errors: () => errors,
  lastShots: () => lastShots,
  cascade: () =>
    globe.cascade.map((level) => ({
      zoom: level.zoom,
      region: level.region,
      originX: level.originX,
      originY: level.originY,
      texels: level.texels,
      moving: level.moving,
      texture: level.texture?.name ?? null,
    })),
  counters: () => ({ ...globe.counters, requests: globe.requestCounters?.requests ?? 0 }),
  mercatorY,
};
document.title = 'ready';
