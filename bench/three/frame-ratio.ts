import {
  DataTexture,
  DoubleSide,
  LinearMipmapLinearFilter,
  Mesh,
  PerspectiveCamera,
  PlaneGeometry,
  RGBAFormat,
  Scene,
  SRGBColorSpace,
} from 'three';
import { MeshBasicNodeMaterial, WebGPURenderer } from 'three/webgpu';
import type { PageTableStorage } from '../../src/core/vt/page-table/page-table-blocks';
import type { VirtualTextureFiltering } from '../../src/three/sampling/sampling-context';
import { virtualTexture } from '../../src/three/sampling/virtual-texture-node';
import { VirtualTextureSystem } from '../../src/three/virtual-texture-system';
import { TestTileSource } from '../../test/browser/vt/test-content';

/**
 * Benchmark page (WebGPU unless ?backend=webgl):
 * - frame ratio: frame time of a plane drawn with a virtual-texture material (including
 *   `system.update`, i.e. the feedback pass and its readback) over the same plane with an ordinary
 *   mipmapped 2048² texture (trilinear); interleaved batches, the median of per-pair ratios;
 *   `?storage=sparse|dense` forces the page table's storage (default: the system's choice, dense
 *   for this 128² pages texture);
 * - its two factors, from a third variant in the same batches, the virtual-texture material drawn
 *   without `system.update`: sampling ratio (that variant over the ordinary texture: the sampler's
 *   cost alone) and feedback ratio (the full frame over that variant: the feedback pass, its
 *   readback and the CPU update, i.e. the most that feedback written by the main pass could save);
 * - upload ratio: 128² rgba8 tiles per second through Tessera's upload path (pool writeTile) over a
 *   bare `queue.writeTexture` loop writing the same bytes into the same pool texture.
 * `?feedback=main-pass|separate-pass` picks where requests are written (default: the system's
 * default); `readbackBytesPerFrame` and `analysisMsPerFrame` are per feedback readback delivered.
 * The virtual-texture variant renders the separate pass every frame (`stillFeedbackInterval` 1:
 * the cost of a moving view, comparable with earlier runs); `?still=1` adds a fourth variant in
 * the same batches with the default interval, each batch after 17 untimed still frames (the
 * pass rests only once the view was still for a jitter cycle): `stillRatio` is its frame time
 * over the plain texture's, `stillOverEveryFrame` over the every-frame variant's (`?stillInterval=1`
 * gives the still variant the every-frame interval: what its untimed warm-up alone changes).
 * Results land in `globalThis.benchResult` and the title becomes 'done'.
 */
const params = new URLSearchParams(location.search);
const filtering = (params.get('filtering') ?? 'bilinear') as VirtualTextureFiltering;
const forceWebGL = params.get('backend') === 'webgl';
const width = Number(params.get('width') ?? 640);
const height = Number(params.get('height') ?? 360);
const batches = Number(params.get('batches') ?? 12);
const framesPerBatch = Number(params.get('frames') ?? 8);
const pageTableStorage = (params.get('storage') ?? 'auto') as PageTableStorage;
const feedbackMode = (params.get('feedback') ?? 'main-pass') as 'main-pass' | 'separate-pass';

const renderer = new WebGPURenderer({ forceWebGL, antialias: false });
renderer.setPixelRatio(1);
renderer.setSize(width, height);
document.body.appendChild(renderer.domElement);
await renderer.init();
const device = (renderer.backend as unknown as { device?: GPUDevice }).device;
const gl = (renderer.backend as unknown as { gl?: WebGL2RenderingContext }).gl;

const onePixel = new Uint8Array(4);
/**
 * Waits for the GPU to finish the frames submitted: WebGPU's queue; on WebGL2 a one-pixel
 * `readPixels`, which returns only once the frame is drawn (`gl.finish()` returns at submission
 * in Chromium, so WebGL2 batches timed with it measured only the CPU's encoding).
 */
async function gpuIdle(): Promise<void> {
  if (device) await device.queue.onSubmittedWorkDone();
  else gl?.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, onePixel);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const source = new TestTileSource({ widthPages: 128, heightPages: 128 });
const system = new VirtualTextureSystem(renderer, {
  budgetBytes: 64 * 1024 * 1024,
  filtering,
  maxUploadsPerFrame: 64,
  feedbackMode,
  // Every frame, as before the pass rested on still views; the `still` variant sets the default.
  stillFeedbackInterval: 1,
});
const stillVariant = params.get('still') === '1';
/** The `stillFeedbackInterval` the `still` variant measures: the default, or `?stillInterval=`. */
const STILL_INTERVAL = Number(params.get('stillInterval') ?? 4);
const vt = system.add(source, { name: 'bench', pageTableStorage });

// The plain comparison texture: 2048² with a full mip chain, same content family.
const plainSize = 2048;
const plainData = new Uint8Array(plainSize * plainSize * 4);
for (let i = 0; i < plainData.length; i += 4) {
  const x = (i >> 2) % plainSize;
  const y = Math.floor((i >> 2) / plainSize);
  plainData[i] = 128 + 100 * Math.sin(x / 2);
  plainData[i + 1] = 128 + 100 * Math.sin(y / 2);
  plainData[i + 2] = (x ^ y) & 255;
  plainData[i + 3] = 255;
}
const plain = new DataTexture(plainData, plainSize, plainSize, RGBAFormat);
plain.name = 'bench:plain';
plain.colorSpace = SRGBColorSpace;
plain.generateMipmaps = true;
plain.minFilter = LinearMipmapLinearFilter;
plain.needsUpdate = true;

const vtMaterial = new MeshBasicNodeMaterial({ side: DoubleSide });
vtMaterial.colorNode = virtualTexture(vt);
const plainMaterial = new MeshBasicNodeMaterial({ side: DoubleSide, map: plain });
const scene = new Scene();
// `?meshes=N`: the plane cut into a k x k grid of meshes (k = ceil(sqrt(N))), same pixels and uvs,
// k² draw calls: what a second scene render costs the CPU in a scene of many objects.
const grid = Math.ceil(Math.sqrt(Number(params.get('meshes') ?? 1)));
// `?plainShare=f`: that share of the meshes (every k-th) keeps the ordinary texture in the virtual
// texture variants too, as props beside a terrain do.
const plainShare = Number(params.get('plainShare') ?? 0);
const meshes: Mesh[] = [];
for (let j = 0; j < grid; j++) {
  for (let i = 0; i < grid; i++) {
    const part = new PlaneGeometry(1 / grid, 1 / grid).rotateX(-Math.PI / 2);
    part.translate((i + 0.5) / grid, 0, (j + 0.5) / grid);
    const uv = part.getAttribute('uv');
    for (let n = 0; n < uv.count; n++)
      uv.setXY(n, (i + uv.getX(n)) / grid, (grid - 1 - j + uv.getY(n)) / grid);
    const mesh = new Mesh(part, vtMaterial);
    meshes.push(mesh);
    scene.add(mesh);
  }
}
const keepsPlain = (i: number) =>
  plainShare > 0 && Math.floor((i + 1) * plainShare) > Math.floor(i * plainShare);
function useMaterial(material: MeshBasicNodeMaterial): void {
  meshes.forEach((mesh, i) => {
    mesh.material = keepsPlain(i) ? plainMaterial : material;
  });
}
const camera = new PerspectiveCamera(60, width / height, 0.001, 10);
camera.position.set(0.4, 0.06, 0.3);
camera.lookAt(0.55, 0, 0.5);

function renderVt(): void {
  system.update(camera, scene);
  renderer.render(scene, camera);
}
/** The same material without the update: the sampler's cost alone (steady state: nothing to stream). */
function renderVtWithoutUpdate(): void {
  renderer.render(scene, camera);
}
function renderPlain(): void {
  renderer.render(scene, camera);
}

// Warm up both pipelines, then let streaming settle so the VT batches measure steady state.
useMaterial(plainMaterial);
renderPlain();
useMaterial(vtMaterial);
while (!system.isReady) {
  renderVt();
  await gpuIdle();
}
for (let i = 0; i < 60; i++) {
  renderVt();
  await gpuIdle();
  await new Promise((resolve) => setTimeout(resolve, 2));
}

/**
 * Milliseconds per frame over a batch: each frame from its render to the GPU's completion, as an
 * app paced by the display does (back to back, 8 frames outran the feedback readbacks: the ring of
 * 3 was full on 45% of frames, whose feedback was then skipped; `feedbackSkipped` counts how many
 * VT frames still found it full). On WebGL2 each frame then waits for an animation frame, untimed:
 * Chromium signals WebGL2 fences (the feedback readbacks) only across animation frames, so a
 * batch that never yields to one would skip its feedback, and measure frames without it.
 */
async function timeBatch(render: () => void): Promise<number> {
  await gpuIdle();
  let total = 0;
  for (let i = 0; i < framesPerBatch; i++) {
    const start = performance.now();
    render();
    await gpuIdle();
    total += performance.now() - start;
    if (gl) await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  return total / framesPerBatch;
}

/**
 * One batch of the `still` variant: the default interval, after 17 untimed still frames (a
 * change of interval counts as a change of view, and the pass rests only after a jitter cycle).
 */
async function timeStillBatch(): Promise<number> {
  system.setStillFeedbackInterval(STILL_INTERVAL);
  for (let i = 0; i < 17; i++) {
    renderVt();
    await gpuIdle();
    if (gl) await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  const before = system.stats().readbacks;
  const ms = await timeBatch(renderVt);
  const after = system.stats().readbacks;
  stillSkipped += after.skippedStill - before.skippedStill;
  stillPasses += after.started - before.started;
  system.setStillFeedbackInterval(1);
  return ms;
}

const readbacksBefore = { ...system.stats().readbacks };
const vtTimes: number[] = [];
const vtStillTimes: number[] = [];
let stillSkipped = 0;
let stillPasses = 0;
const vtWithoutUpdateTimes: number[] = [];
const plainTimes: number[] = [];
for (let b = 0; b < batches; b++) {
  // Rotate which goes first so drift favours none.
  const variants = stillVariant ? ['vt', 'sampling', 'plain', 'still'] : ['vt', 'sampling', 'plain'];
  for (let k = 0; k < variants.length; k++) {
    const which = variants[(k + b) % variants.length];
    if (which === 'still') {
      useMaterial(vtMaterial);
      vtStillTimes.push(await timeStillBatch());
    } else if (which === 'vt') {
      useMaterial(vtMaterial);
      vtTimes.push(await timeBatch(renderVt));
    } else if (which === 'sampling') {
      useMaterial(vtMaterial);
      vtWithoutUpdateTimes.push(await timeBatch(renderVtWithoutUpdate));
    } else {
      useMaterial(plainMaterial);
      plainTimes.push(await timeBatch(renderPlain));
    }
  }
}

// Upload throughput: Tessera's tile path vs a bare writeTexture loop, same bytes, same texture.
const pool = (
  system as unknown as {
    pool: {
      textures: {
        writeTile(l: number, s: number, b: Uint8Array): void;
        textures: DataTexture[];
        slotCount: number;
        shape: { slotsPerRow: number; tileSize: number };
      };
    };
  }
).pool.textures;
const tileBytes = new Uint8Array(128 * 128 * 4);
for (let i = 0; i < tileBytes.length; i++) tileBytes[i] = (i * 7) & 255;
const tilesPerBatch = Number(params.get('tiles') ?? 256);
const slots = Math.min(pool.slotCount, tilesPerBatch);
let tesseraRate = 0;
let bareRate = 0;
if (device) {
  const gpuTexture = (renderer.backend as unknown as { get(o: object): { texture: GPUTexture } }).get(
    pool.textures[0],
  ).texture;
  const tesseraTimes: number[] = [];
  const bareTimes: number[] = [];
  const { slotsPerRow, tileSize } = pool.shape;
  const tesseraBatch = async (): Promise<number> => {
    await gpuIdle();
    const start = performance.now();
    for (let i = 0; i < tilesPerBatch; i++) pool.writeTile(0, i % slots, tileBytes);
    await gpuIdle();
    return (performance.now() - start) / tilesPerBatch;
  };
  const bareBatch = async (): Promise<number> => {
    await gpuIdle();
    const start = performance.now();
    for (let i = 0; i < tilesPerBatch; i++) {
      const slot = i % slots;
      device.queue.writeTexture(
        {
          texture: gpuTexture,
          origin: { x: (slot % slotsPerRow) * tileSize, y: Math.floor(slot / slotsPerRow) * tileSize },
        },
        tileBytes,
        { bytesPerRow: tileSize * 4, rowsPerImage: tileSize },
        { width: tileSize, height: tileSize },
      );
    }
    await gpuIdle();
    return (performance.now() - start) / tilesPerBatch;
  };
  await tesseraBatch();
  await bareBatch();
  for (let b = 0; b < batches; b++) {
    if (b % 2 === 0) {
      tesseraTimes.push(await tesseraBatch());
      bareTimes.push(await bareBatch());
    } else {
      bareTimes.push(await bareBatch());
      tesseraTimes.push(await tesseraBatch());
    }
  }
  tesseraRate = 1000 / median(tesseraTimes);
  bareRate = 1000 / median(bareTimes);
}

const readbacksAfter = system.stats().readbacks;
const vtFrames = (vtTimes.length + vtStillTimes.length) * framesPerBatch;
const feedbackSkipped = (readbacksAfter.skipped - readbacksBefore.skipped) / vtFrames;
const stillFrames = vtStillTimes.length * framesPerBatch;
const vtMs = median(vtTimes);
const plainMs = median(plainTimes);
// The ratio of each batch pair (run back to back), then their median: SwiftShader's speed drifts
// by several percent over a run, which a ratio of the two medians would take for a difference.
const frameRatio = median(vtTimes.map((ms, b) => ms / plainTimes[b]));
const samplingRatio = median(vtWithoutUpdateTimes.map((ms, b) => ms / plainTimes[b]));
const feedbackRatio = median(vtTimes.map((ms, b) => ms / vtWithoutUpdateTimes[b]));
const readbacksDelivered = Math.max(1, readbacksAfter.delivered - readbacksBefore.delivered);
const readbackBytesPerFrame = (readbacksAfter.bytesRead - readbacksBefore.bytesRead) / readbacksDelivered;
const analysisMsPerFrame = (readbacksAfter.analysisMs - readbacksBefore.analysisMs) / readbacksDelivered;
Object.assign(globalThis, {
  benchResult: {
    filtering,
    vtMs,
    plainMs,
    pageTableStorage: vt.pageTableGeometry.dense ? 'dense' : 'sparse',
    frameRatio,
    samplingRatio,
    feedbackRatio,
    feedbackSkipped,
    stillRatio: stillVariant ? median(vtStillTimes.map((ms, b) => ms / plainTimes[b])) : Number.NaN,
    stillOverEveryFrame: stillVariant ? median(vtStillTimes.map((ms, b) => ms / vtTimes[b])) : Number.NaN,
    stillVtMs: stillVariant ? median(vtStillTimes) : Number.NaN,
    /** Share of the still variant's timed frames whose pass rested, and that rendered one. */
    stillRestedFraction: stillFrames > 0 ? stillSkipped / stillFrames : Number.NaN,
    stillPassFraction: stillFrames > 0 ? stillPasses / stillFrames : Number.NaN,
    feedbackMode: system.stats().feedbackMode,
    readbackBytesPerFrame,
    analysisMsPerFrame,
    tesseraTilesPerSecond: tesseraRate,
    bareTilesPerSecond: bareRate,
    uploadRatio: bareRate > 0 ? tesseraRate / bareRate : Number.NaN,
    residentPages: system.stats().residentPages,
  },
});
document.title = 'done';
