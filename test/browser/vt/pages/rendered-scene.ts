import {
  DataTexture,
  FloatType,
  Mesh,
  type Object3D,
  OrthographicCamera,
  PlaneGeometry,
  RGBAFormat,
  Scene,
} from 'three';
import { float, positionWorld, uv, vec4 } from 'three/tsl';
import { MeshBasicNodeMaterial, type Node, RenderTarget } from 'three/webgpu';
import { createDetailTextures } from '../../../../demo/terrain/detail-textures';
import { NO_REQUEST, pageMip, pageVt, pageX, pageY } from '../../../../src/core/vt/page-id';
import { DecalList } from '../../../../src/three/rendered/decal-list';
import { RenderedTileSource } from '../../../../src/three/rendered/rendered-tile-source';
import { ribbonGeometry } from '../../../../src/three/rendered/ribbon-geometry';
import { splatAlbedo } from '../../../../src/three/rendered/splat-albedo';
import { virtualTexture } from '../../../../src/three/sampling/virtual-texture-node';
import { TesseraRuntime } from '../../../../src/three/tessera-runtime';
import { VirtualTextureSystem } from '../../../../src/three/virtual-texture-system';
import { createTestRenderer, requestedBackend } from '../../support/renderer';
import { linearToSrgb } from '../test-content';

/**
 * Test page for rendered (runtime) virtual textures: a RenderedTileSource of 8 x 8 pages (tile 128,
 * border 4: 960 texels, one world unit per mip-0 texel) whose albedo is a splat-mapped blend of the
 * demo's four detail textures, with ribbon decals drawn over it. Scene "vt" samples the virtual
 * texture on a plane; scene "direct" evaluates the same node (and draws the same decals) straight
 * on a plane: an orthographic camera at one texel per pixel (or 2^mip), 128 x 128 pixels, compares the two. Exposes
 * `globalThis.rvt`.
 */
const SIZE = 128;
const WORLD = 960;
const BUDGET = 8 * 1024 * 1024;
const renderer = await createTestRenderer(SIZE, SIZE);
const isWebGPU = requestedBackend() === 'webgpu';
const capture = new RenderTarget(SIZE, SIZE, { type: FloatType });
capture.texture.name = 'tessera-test:capture';

// A splat map of 16 x 16 texels: smooth blends of the four layers over the world.
const splatBytes = new Uint8Array(16 * 16 * 4);
for (let y = 0; y < 16; y++) {
  for (let x = 0; x < 16; x++) {
    const o = (y * 16 + x) * 4;
    splatBytes.set([255 - x * 16, x * 16, y * 16, Math.max(0, (x + y - 16) * 16)], o);
  }
}
const splatMap = new DataTexture(splatBytes, 16, 16, RGBAFormat);
splatMap.needsUpdate = true;
const details = createDetailTextures(3, 128);
const albedo = splatAlbedo({
  splatMap,
  world: { x: 0, y: 0, width: WORLD, height: WORLD },
  layers: [
    { texture: details.grass, repeat: 64 },
    { texture: details.rock, repeat: 96 },
    { texture: details.sand, repeat: 48 },
    { texture: details.snow, repeat: 80 },
  ],
});
const source = new RenderedTileSource({
  widthPages: 8,
  heightPages: 8,
  tileSize: 128,
  border: 4,
  world: { x: 0, y: 0, width: WORLD, height: WORLD },
  layers: [{ name: 'albedo', node: albedo }],
});
const runtime = new TesseraRuntime({ budgetBytes: BUDGET });
const budget = runtime.budget;
const system = new VirtualTextureSystem(renderer, {
  runtime,
  shareBytes: BUDGET,
  filtering: 'bilinear',
  maxUploadsPerFrame: 8,
  maxRendersPerFrame: 6,
  layers: [{ name: 'albedo', format: 'rgba8unorm-srgb' }],
});
const vt = system.add(source, { name: 'rendered' });
const decals = new DecalList(source, (rect) => vt.invalidate(rect, 'world'));

/** A road-like decal: a dark strip with a bright dashed centre line. */
function roadMaterial(): MeshBasicNodeMaterial {
  const material = new MeshBasicNodeMaterial({ transparent: true, depthTest: false, depthWrite: false });
  const across = uv().y.sub(0.5).abs();
  const dash = uv().x.div(12).fract().lessThan(0.5).and(across.lessThan(0.06));
  material.colorNode = dash.select(vec4(0.9, 0.88, 0.8, 1), vec4(0.08, 0.08, 0.09, 1));
  material.opacityNode = float(1).sub(across.sub(0.42).max(0).mul(12.5)).clamp(0, 1);
  return material;
}

const vtScene = new Scene();
const vtPlane = new Mesh(new PlaneGeometry(WORLD, WORLD), new MeshBasicNodeMaterial());
vtPlane.position.set(WORLD / 2, WORLD / 2, 0);
(vtPlane.material as MeshBasicNodeMaterial).colorNode = virtualTexture(vt, positionWorld.xy.div(WORLD), {
  uvSpace: 'virtual',
});
vtScene.add(vtPlane);
const directScene = new Scene();
const directMaterial = new MeshBasicNodeMaterial();
directMaterial.colorNode = albedo(positionWorld.xy as unknown as Node) as never;
const directPlane = new Mesh(new PlaneGeometry(WORLD, WORLD), directMaterial);
directPlane.position.copy(vtPlane.position);
directScene.add(directPlane);
const camera = new OrthographicCamera(0, SIZE, SIZE, 0, 0.5, 20);
camera.position.z = 10;

/** Points the camera at `SIZE x SIZE` pixels of `2^mip` texels each, from texel (x0, y0). */
function view(x0: number, y0: number, mip: number): void {
  const s = 2 ** mip;
  camera.left = x0;
  camera.right = x0 + SIZE * s;
  camera.bottom = y0;
  camera.top = y0 + SIZE * s;
  camera.updateProjectionMatrix();
}

/** GPU and budget bytes per frame, for the budget check. */
const frames: { budgetLive: number; tracked: number; rendered: number }[] = [];
const tracker = (globalThis as unknown as { __tesseraGpuTracker: { liveBytesWithPrefix(p: string): number } })
  .__tesseraGpuTracker;

function frame(): void {
  system.update(camera, vtScene);
  renderer.setRenderTarget(capture);
  renderer.render(vtScene, camera);
  renderer.setRenderTarget(null);
  renderer.render(vtScene, camera);
  frames.push({
    budgetLive: budget.liveBytes,
    tracked: isWebGPU ? tracker.liveBytesWithPrefix('tessera:') : 0,
    rendered: system.stats().rendering.renderedLastFrame,
  });
}

async function read(scene: Scene): Promise<Float32Array> {
  if (scene !== vtScene) {
    renderer.setRenderTarget(capture);
    renderer.render(scene, camera);
    renderer.setRenderTarget(null);
    renderer.render(scene, camera);
  }
  return (await renderer.readRenderTargetPixelsAsync(capture, 0, 0, SIZE, SIZE)) as Float32Array;
}

/** PSNR of two linear captures, compared as sRGB bytes (what the canvas shows), in dB. */
function psnr(a: Float32Array, b: Float32Array): number {
  let squared = 0;
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    if (i % 4 === 3) continue;
    squared += (linearToSrgb(a[i]) - linearToSrgb(b[i])) ** 2;
    n++;
  }
  return squared === 0 ? 99 : 10 * Math.log10((255 * 255) / (squared / n));
}

/** Bounding box and count of pixels differing by more than 24 (sRGB bytes), for diagnostics. */
function badBox(a: Float32Array, b: Float32Array): number[] {
  let [x0, y0, x1, y1, n] = [SIZE, SIZE, -1, -1, 0];
  for (let i = 0; i < a.length; i += 4) {
    let worst = 0;
    for (let c = 0; c < 3; c++)
      worst = Math.max(worst, Math.abs(linearToSrgb(a[i + c]) - linearToSrgb(b[i + c])));
    if (worst <= 24) continue;
    const x = (i / 4) % SIZE;
    const y = Math.floor(i / 4 / SIZE);
    [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    n++;
  }
  return [x0, y0, x1, y1, n];
}

async function settle(maxFrames = 300): Promise<number> {
  const settled = system.whenSettled();
  let done = false;
  settled.then(() => {
    done = true;
  });
  let n = 0;
  while (!done && n < maxFrames) {
    frame();
    n++;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return n;
}

/** Resident pages of the texture at their mip, as "mip,x,y". */
function residentPages(): string[] {
  const out: string[] = [];
  for (const id of system.streamer.pool.slotPages) {
    if (id !== NO_REQUEST && pageVt(id) === vt.id) out.push(`${pageMip(id)},${pageX(id)},${pageY(id)}`);
  }
  return out;
}

const api = {
  backend: isWebGPU ? 'webgpu' : 'webgl',
  /** Settles the view at `mip` from texel (x0, y0) and compares the VT with the direct render. */
  async compare(x0: number, y0: number, mip: number) {
    view(x0, y0, mip);
    const settleFrames = await settle();
    const vtPixels = await read(vtScene);
    const direct = await read(directScene);
    return {
      settleFrames,
      psnr: psnr(vtPixels, direct),
      stats: system.stats(),
      bad: badBox(vtPixels, direct),
    };
  },
  /**
   * Adds a road decal along `points` (world units) to both scenes (the direct scene gets a copy
   * of the same mesh), invalidates through the DecalList, and reports which resident pages the
   * invalidation marked against an independent count, then runs frames until the re-renders are
   * done, checking each frame that no marked page left the pool (the old content stays bound).
   */
  async addRoad(points: number[], width: number) {
    const before = system.stats().rendering;
    const residentBefore = residentPages();
    const mesh = new Mesh(ribbonGeometry(points, width), roadMaterial());
    let marked = 0;
    decals.onChange = (rect) => {
      marked = vt.invalidate(rect, 'world');
    };
    const rect = decals.add(mesh);
    const copy: Object3D = mesh.clone();
    copy.layers.set(0);
    copy.renderOrder = 1;
    directScene.add(copy);
    // Independent count: resident pages whose tile (border 4 of 120 texels) overlaps rect.
    let expected = 0;
    for (const key of residentBefore) {
      const [mip, x, y] = key.split(',').map(Number);
      const side = (WORLD / 8) * 2 ** mip;
      const pad = (4 / 120) * side;
      const x0 = x * side - pad;
      const y0 = y * side - pad;
      const inside =
        x0 < rect.x + rect.width &&
        x0 + side + 2 * pad > rect.x &&
        y0 < rect.y + rect.height &&
        y0 + side + 2 * pad > rect.y;
      if (inside) expected++;
    }
    let lostMarked = 0;
    let frames = 0;
    const markedKeys = residentBefore;
    while (system.stats().rendering.refreshQueued > 0 && frames < 200) {
      frame();
      frames++;
      const now = new Set(residentPages());
      for (const key of markedKeys) if (!now.has(key)) lostMarked++;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const after = system.stats().rendering;
    return {
      marked,
      expected,
      resident: residentBefore.length,
      rerendered: after.rerenderedTotal - before.rerenderedTotal,
      renderedDelta: after.renderedTotal - before.renderedTotal,
      lostMarked,
      frames,
    };
  },
  /**
   * Cuts the system's share to `bytes` (no room for old and new pools: the pool is rebuilt without
   * a GPU copy), returning the re-renders it caused and the pages resident right after.
   */
  cut(bytes: number) {
    const before = system.stats().rendering.rerenderedTotal;
    system.setShareBytes(bytes);
    const after = system.stats();
    return { rerendered: after.rendering.rerenderedTotal - before, resident: after.residentPages };
  },
  /** Budget live bytes and tracked GPU bytes of every frame so far. */
  frames: () => frames,
  budgetBytes: BUDGET,
  stats: () => system.stats(),
  dispose(): number {
    system.dispose();
    runtime.dispose();
    source.dispose();
    return isWebGPU ? tracker.liveBytesWithPrefix('tessera:') : 0;
  },
};
(globalThis as unknown as { rvt: typeof api }).rvt = api;
document.title = 'ready';
