import {
  DoubleSide,
  FloatType,
  Fog,
  Mesh,
  OrthographicCamera,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  Vector3,
} from 'three';
import { mix, uv } from 'three/tsl';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { TextureBudget } from '../../../../src/core/budget/texture-budget';
import { feedbackJitterX, feedbackJitterY } from '../../../../src/core/vt/feedback/feedback-jitter';
import { trilinearBlend } from '../../../../src/core/vt/feedback/mip-rule';
import { NO_REQUEST, pageMip, pageVt, pageX, pageY } from '../../../../src/core/vt/page-id';
import { EMPTY_ENTRY, entryMip, entrySlot } from '../../../../src/core/vt/page-table/page-table-entry';
import type { NormalChannels } from '../../../../src/core/vt/tile-source';
import { createCameraPose } from '../../../../src/sim/camera-pose';
import { TerrainFeedbackGenerator } from '../../../../src/sim/terrain-feedback-generator';
import { LevelListSource } from '../../../../src/sources/mips/level-list-source';
import type { VirtualTextureFiltering } from '../../../../src/three/sampling/sampling-context';
import { virtualTexture } from '../../../../src/three/sampling/virtual-texture-node';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import { TesseraRuntime } from '../../../../src/three/tessera-runtime';
import { VirtualTextureSystem } from '../../../../src/three/virtual-texture-system';
import { createTestRenderer, gpuDevice, requestedBackend } from '../../support/renderer';
import { bilinearLinear, linearToSrgb, TestTileSource, UNORM } from '../test-content';
import { type UastcSpoil, UastcTestTileSource } from '../uastc-test-source';

/**
 * Test page: one virtual texture of `pages x pages` pages (TestTileSource content) on a unit plane
 * in the XZ plane (u = world x, v = world z), seen by an orthographic camera looking straight down
 * (exact, constant texel footprint) or by a perspective camera. Exposes `globalThis.vtScene`.
 */
const params = new URLSearchParams(location.search);
const size = Number(params.get('size') ?? 256);
const pages = Number(params.get('pages') ?? 128);
const filtering = (params.get('filtering') ?? 'bilinear') as VirtualTextureFiltering;
const budgetBytes = Number(params.get('budget') ?? 24 * 1024 * 1024);
const feedbackScale = Number(params.get('feedbackScale') ?? 8);
const delayMs = Number(params.get('delay') ?? 0);
// ?poolTexture=TEXELS: largest pool texture side (forces array pool textures at a small scale).
const maxPoolTextureSize = params.has('poolTexture') ? Number(params.get('poolTexture')) : undefined;

// ?shared=BYTES: one TextureBudget of BYTES shared by the virtual textures (`budget` bytes of it)
// and a TextureStreamingSystem with a few streamed textures (see shared-budget.spec.ts).
const sharedBytes = Number(params.get('shared') ?? 0);

let renderer = await createTestRenderer(size, size);
const isWebGPU = requestedBackend() === 'webgpu';
// Linear float capture (render targets get the linear working colour space); read() encodes sRGB.
const capture = new RenderTarget(size, size, { type: FloatType });
capture.texture.name = 'tessera-test:capture';

/** The tracker injected by the fixture (test/support/gpu-tracker.js). */
interface Tracker {
  liveBytesWithPrefix(prefix: string): number;
}
const tracker = (globalThis as unknown as { __tesseraGpuTracker: Tracker }).__tesseraGpuTracker;
/** WebGL2 has no labels: GL texture bytes allocated before Tessera's, subtracted from the count. */
let glBaseline = 0;
if (!isWebGPU) {
  const empty = new Scene();
  const probe = new OrthographicCamera();
  renderer.setRenderTarget(capture);
  renderer.render(empty, probe);
  renderer.setRenderTarget(null);
  renderer.render(empty, probe);
  glBaseline = tracker.liveBytesWithPrefix('webgl:texture');
}
/** Bytes the independent tracker counts for Tessera (WebGPU: `tessera:` labels; WebGL2: GL textures over the baseline). */
function trackedBytes(): number {
  return isWebGPU
    ? tracker.liveBytesWithPrefix('tessera:')
    : tracker.liveBytesWithPrefix('webgl:texture') - glBaseline;
}

// ?target=bc7|astc|etc2|rgba8|auto: the content arrives as UASTC tiles, transcoded to that
// target (auto: the device's best); ?spoil=truncated|oversized|corrupt|mixed spoils tiles of ?spoilMip.
const target = params.get('target');
// ?normal=red-green|red-alpha (with ?target): a linear normal-map layer stored with y in green or
// alpha; compare() checks the sampled red and green (x, y) as unorm data, and that blue is the z
// the sampler rebuilds from them.
const normalParam = params.get('normal');
const normalLayer = normalParam === 'red-green' || normalParam === 'red-alpha';
const channels = normalLayer ? 2 : 3;
// One runtime: its budget, client and transcoder shared by both systems, which it drives.
const sharedRuntime = sharedBytes > 0 ? new TesseraRuntime({ budgetBytes: sharedBytes }) : undefined;
const sharedBudget = sharedRuntime?.budget;
const source =
  target === null
    ? new TestTileSource({ widthPages: pages, heightPages: pages, delayMs })
    : new UastcTestTileSource({
        widthPages: pages,
        heightPages: pages,
        delayMs,
        quality: Number(params.get('quality') ?? 1),
        spoil: (params.get('spoil') ?? 'none') as UastcSpoil,
        spoilMip: Number(params.get('spoilMip') ?? 0),
        normal: normalLayer ? (normalParam as NormalChannels) : undefined,
      });
const tileErrors: { code: string; cause: string | undefined; pageId: number }[] = [];
const system = new VirtualTextureSystem(renderer, {
  layers:
    target === null
      ? undefined
      : [
          {
            name: 'albedo',
            format: normalLayer ? 'uastc-4x4' : 'uastc-4x4-srgb',
            usage: normalLayer ? 'normal' : 'color',
            // The analytic content is opaque (?alpha=1 transcodes with alpha all the same).
            alpha: params.get('alpha') === '1',
            target: target === 'auto' ? undefined : (target as 'bc7'),
          },
        ],
  runtime: sharedRuntime,
  budgetBytes: sharedRuntime ? undefined : budgetBytes,
  shareBytes: sharedRuntime ? budgetBytes : undefined,
  filtering,
  feedbackScale,
  // ?feedback=main-pass: requests written by the main render (WebGPU).
  feedbackMode: (params.get('feedback') ?? undefined) as 'main-pass' | 'separate-pass' | undefined,
  maxUploadsPerFrame: 32,
  // ?still=N: frames between separate feedback passes on a still view (default: the system's).
  stillFeedbackInterval: params.has('still') ? Number(params.get('still')) : undefined,
  maxPoolTextureSize,
  // ?cooldown=N: frames before a failed page is retried (the bad-input tests outwait the default).
  failedCooldownFrames: params.has('cooldown') ? Number(params.get('cooldown')) : undefined,
});
const pageTableStorage = (params.get('storage') ?? undefined) as 'dense' | 'sparse' | undefined;
const vt = system.add(source, { name: 'test', pageTableStorage });
system.events.on('error', ({ error, pageId }) =>
  tileErrors.push({ code: error.code, cause: (error.cause as { code?: string } | undefined)?.code, pageId }),
);
const payload = vt.tileSize - 2 * vt.border;

const material = new MeshBasicNodeMaterial({ side: DoubleSide });
// The analytic checks address the virtual texture in page order (uv (0, 0) = texel (0, 0)).
material.colorNode = virtualTexture(vt, uv(), { uvSpace: 'virtual' });
// ?two=1: the material blends a second virtual texture (64 x 64 pages) with the first.
let second: ReturnType<typeof system.add> | null = null;
if (params.get('two') === '1') {
  second = system.add(new TestTileSource({ widthPages: 64, heightPages: 64 }), { name: 'second' });
  material.colorNode = mix(
    virtualTexture(vt, uv(), { uvSpace: 'virtual' }),
    virtualTexture(second, uv(), { uvSpace: 'virtual' }),
    0.5,
  );
}
// PlaneGeometry lies in XY with uv = xy + 0.5; turn it into XZ (x, y, 0) -> (x, 0, y), offset to [0, 1]².
const geometry = new PlaneGeometry(1, 1).rotateX(Math.PI / 2).translate(0.5, 0, 0.5);
const scene = new Scene();
scene.add(new Mesh(geometry, material));
// ?fog=1: dense scene fog, which must never reach the feedback pass (it would blend page ids).
if (params.get('fog') === '1') scene.fog = new Fog(0xff8000, 0, 0.4);

/** A full RGBA8 pyramid of `edge`² whose every level is one solid colour. */
function solidPyramid(edge: number, rgb: readonly number[]): Uint8Array[] {
  const levels: Uint8Array[] = [];
  for (let e = edge; e >= 1; e >>= 1) {
    const data = new Uint8Array(e * e * 4);
    for (let i = 0; i < e * e; i++) data.set([rgb[0], rgb[1], rgb[2], 255], i * 4);
    levels.push(data);
  }
  return levels;
}

// Shared mode: four 512² streamed textures on small quads just under the plane (seen from below).
const streaming = sharedRuntime
  ? new TextureStreamingSystem(renderer, { runtime: sharedRuntime, planner: { dropAfterFrames: 4 } })
  : null;
if (streaming) {
  const quad = new PlaneGeometry(0.15, 0.15).rotateX(Math.PI / 2);
  for (let i = 0; i < 4; i++) {
    const texture = streaming.add(
      new LevelListSource(solidPyramid(512, [60 * i, 200 - 40 * i, 120]), { width: 512, height: 512 }),
      { name: `shared${i}`, tag: 'scene:shared' },
    );
    const mesh = new Mesh(quad, new MeshBasicNodeMaterial({ side: DoubleSide }));
    mesh.position.set(0.2 + 0.2 * i, -0.01, 0.3 + 0.1 * i);
    scene.add(mesh);
    streaming.attach(mesh, texture);
  }
}

const ortho = new OrthographicCamera(-0.5, 0.5, 0.5, -0.5, 0.1, 10);
const perspective = new PerspectiveCamera(60, 1, 0.001, 10);
let camera: OrthographicCamera | PerspectiveCamera = ortho;

/** Current orthographic view: centre in uv and size in uv units. */
const view = { cu: 0.5, cv: 0.5, span: 1 };

/**
 * Looks straight down at uv (`cu`, `cv`) so that one screen pixel covers 2^`lod` mip-0 texels.
 * Screen right = +u; screen up = +v (camera up = +z).
 */
function setOrthoView(cu: number, cv: number, lod: number): void {
  const span = (2 ** lod * size) / (pages * payload);
  view.cu = cu;
  view.cv = cv;
  view.span = span;
  ortho.left = -span / 2;
  ortho.right = span / 2;
  ortho.top = span / 2;
  ortho.bottom = -span / 2;
  // From below looking up (+y) with up = +z: screen right = +u and screen up = +v.
  ortho.position.set(cu, -1, cv);
  ortho.up.set(0, 0, 1);
  ortho.lookAt(cu, 0, cv);
  ortho.updateProjectionMatrix();
  ortho.updateMatrixWorld();
  camera = ortho;
}

const pose = createCameraPose({ aspect: 1, fovY: Math.PI / 3 });

/**
 * Places the perspective camera at a simulator pose (y up, yaw 0 looks along +z, pitch is the
 * elevation of the view direction), so the GPU feedback can be compared with the simulator's.
 */
function setPose(x: number, y: number, z: number, yaw: number, pitch: number): void {
  Object.assign(pose, { x, y, z, yaw, pitch });
  perspective.fov = (pose.fovY * 180) / Math.PI;
  perspective.aspect = 1;
  perspective.position.set(x, y, z);
  perspective.up.set(0, 1, 0);
  const cp = Math.cos(pitch);
  perspective.lookAt(x + Math.sin(yaw) * cp, y + Math.sin(pitch), z + Math.cos(yaw) * cp);
  perspective.updateProjectionMatrix();
  perspective.updateMatrixWorld();
  camera = perspective;
}

/** One frame: streaming update, then the main render into the capture target. */
function step(frames = 1): void {
  for (let i = 0; i < frames; i++) {
    // Shared mode: the runtime drives both systems, virtual textures first.
    if (sharedRuntime) sharedRuntime.update(camera, scene);
    else system.update(camera, scene);
    renderer.setRenderTarget(capture);
    renderer.render(scene, camera);
    renderer.setRenderTarget(null);
  }
}

/** The latest capture's linear values, laid out as {@link read}'s bytes. */
const lastLinear = new Float32Array(size * size * 4);

/** Captured colours as sRGB bytes (as the canvas would show), rows from the bottom (v upward). */
async function read(): Promise<Uint8Array> {
  const linear = (await renderer.readRenderTargetPixelsAsync(capture, 0, 0, size, size)) as Float32Array;
  const out = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    const dstRow = isWebGPU ? size - 1 - y : y;
    for (let x = 0; x < size * 4; x++) {
      const v = linear[y * size * 4 + x];
      lastLinear[dstRow * size * 4 + x] = v;
      out[dstRow * size * 4 + x] = (x & 3) === 3 ? Math.round(v * 255) : Math.round(linearToSrgb(v));
    }
  }
  return out;
}

/** Screen-space mapping of the ortho view: uv of pixel (px, py) with py from the bottom. */
function pixelUv(px: number, py: number, mirrorU: boolean): [number, number] {
  const fx = (px + 0.5) / size - 0.5;
  const fy = (py + 0.5) / size - 0.5;
  return [view.cu + (mirrorU ? -fx : fx) * view.span, view.cv + fy * view.span];
}

/** Expected sRGB colour (0..255 floats) of a pixel at uv with trilinear weights of mips m0, m1. */
function expectedAt(u: number, v: number, m0: number, m1: number, t: number, out: Float64Array): void {
  for (let c = 0; c < 3; c++) {
    const w0 = Math.max(1, pages >> m0) * payload;
    const decode = normalLayer ? UNORM : undefined;
    const a = bilinearLinear(c, m0, u * w0, v * w0, w0, w0, decode);
    let value = a;
    if (t > 0) {
      const w1 = Math.max(1, pages >> m1) * payload;
      value = a * (1 - t) + bilinearLinear(c, m1, u * w1, v * w1, w1, w1, decode) * t;
    }
    out[c] = linearToSrgb(value);
  }
}

interface Comparison {
  psnr: number;
  /** Pixels whose colour matches no mip >= the wanted one within `tolerance` (sRGB steps). */
  garbagePixels: number;
  worstError: number;
  /** Which mips the pixels matched best (index = mip). */
  mipHistogram: number[];
  mirrorU: boolean;
  /** Normal layers: largest |blue - z(red, green)| (linear), else 0. */
  worstZ: number;
}

/**
 * Compares the captured frame with the analytic content for the ortho view at `lod`.
 * PSNR against the exactly expected filtered colour; per pixel, the best match among mips from the
 * wanted mip to the coarsest (what streaming may show) counts as garbage when above `tolerance`.
 */
/** Largest absolute RGB difference between the pixel at byte `o` and `expected`. */
function maxChannelError(pixels: Uint8Array, o: number, expected: Float64Array): number {
  const rg = Math.max(Math.abs(pixels[o] - expected[0]), Math.abs(pixels[o + 1] - expected[1]));
  return channels === 2 ? rg : Math.max(rg, Math.abs(pixels[o + 2] - expected[2]));
}

/**
 * Normal layers: how far blue is from the z rebuilt from red and green, on the latest capture's
 * linear values (sRGB bytes would amplify quantisation where z nears 0), in 0..1 units.
 */
function zError(o: number): number {
  const x = lastLinear[o] * 2 - 1;
  const y = lastLinear[o + 1] * 2 - 1;
  const z = Math.sqrt(Math.max(0, 1 - x * x - y * y)) * 0.5 + 0.5;
  return Math.abs(lastLinear[o + 2] - z);
}

async function compare(
  lod: number,
  tolerance = 10,
  filtering: VirtualTextureFiltering = system.filtering,
): Promise<Comparison> {
  const pixels = await read();
  const maxMip = vt.mipCount - 1;
  const expected = new Float64Array(3);
  const best = new Float64Array(3);
  let results: Comparison | null = null;
  for (const mirrorU of [false]) {
    let squared = 0;
    let worstZ = 0;
    let garbage = 0;
    let worst = 0;
    const histogram = new Array(vt.mipCount).fill(0);
    const mip =
      filtering === 'bilinear' ? Math.min(maxMip, Math.round(lod)) : Math.min(maxMip, Math.floor(lod));
    const t = filtering === 'bilinear' ? 0 : trilinearBlend(Math.min(1, lod - mip));
    for (let py = 0; py < size; py++) {
      for (let px = 0; px < size; px++) {
        const [u, v] = pixelUv(px, py, mirrorU);
        const o = (py * size + px) * 4;
        expectedAt(u, v, mip, Math.min(maxMip, mip + 1), t, expected);
        for (let c = 0; c < channels; c++) squared += (pixels[o + c] - expected[c]) ** 2;
        if (normalLayer) worstZ = Math.max(worstZ, zError(o));
        // Best match among the wanted mip and every coarser one (single-mip bilinear).
        let bestError = Number.POSITIVE_INFINITY;
        let bestMip = -1;
        for (let m = mip; m <= maxMip; m++) {
          expectedAt(u, v, m, m, 0, best);
          const e = maxChannelError(pixels, o, best);
          if (e < bestError) {
            bestError = e;
            bestMip = m;
          }
          if (filtering !== 'bilinear' && m < maxMip) {
            expectedAt(u, v, m, m + 1, t, best);
            const e2 = maxChannelError(pixels, o, best);
            if (e2 < bestError) {
              bestError = e2;
              bestMip = m;
            }
          }
        }
        histogram[bestMip]++;
        if (bestError > tolerance) garbage++;
        if (bestError > worst) worst = bestError;
      }
    }
    const mse = squared / (size * size * channels);
    const psnr = mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
    if (results === null || psnr > results.psnr) {
      results = { psnr, garbagePixels: garbage, worstError: worst, mipHistogram: histogram, mirrorU, worstZ };
    }
  }
  return results!;
}

/** (dx, dy) pairs, in texels of the mip being matched. */
const SUBTEXEL_OFFSETS = [
  0, 0, 0.25, 0, -0.25, 0, 0, 0.25, 0, -0.25, 0.25, 0.25, -0.25, -0.25, 0.25, -0.25, -0.25, 0.25,
];
const rayOrigin = new Vector3();
const rayPoint = new Vector3();

/**
 * Checks a captured perspective frame pixel by pixel: the uv under each pixel centre comes from an
 * exact ray/plane hit, and the pixel must equal the bilinear content of SOME mip at that uv within
 * `tolerance` (sRGB steps), within a quarter texel of that mip. Catches black, misplaced, stale
 * or seamed tiles under any camera
 * (which mip is shown is checked by the ortho tests). Pixels off the plane are skipped.
 */
async function comparePerspective(
  tolerance = 10,
): Promise<{ checked: number; garbagePixels: number; worstError: number }> {
  const pixels = await read();
  const best = new Float64Array(3);
  let checked = 0;
  let garbage = 0;
  let worst = 0;
  rayOrigin.setFromMatrixPosition(perspective.matrixWorld);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      rayPoint.set(((px + 0.5) / size) * 2 - 1, ((py + 0.5) / size) * 2 - 1, 0.5).unproject(perspective);
      rayPoint.sub(rayOrigin);
      if (rayPoint.y >= 0) continue;
      const t = -rayOrigin.y / rayPoint.y;
      const u = rayOrigin.x + t * rayPoint.x;
      const v = rayOrigin.z + t * rayPoint.z;
      // Skip the outermost half texel band of mip 0 and anything off the plane.
      if (u < 0.001 || v < 0.001 || u > 0.999 || v > 0.999) continue;
      const o = (py * size + px) * 4;
      let bestError = Number.POSITIVE_INFINITY;
      for (let m = 0; m < vt.mipCount && bestError > tolerance; m++) {
        // Up to a quarter texel of that mip off: SwiftShader's magnified samples of coarse fallback
        // pages land up to ~0.2 texel away from the exact position (a wrong tile is many texels off).
        const texel = 1 / (Math.max(1, pages >> m) * payload);
        for (let k = 0; k < SUBTEXEL_OFFSETS.length; k += 2) {
          expectedAt(u + SUBTEXEL_OFFSETS[k] * texel, v + SUBTEXEL_OFFSETS[k + 1] * texel, m, m, 0, best);
          const e = maxChannelError(pixels, o, best);
          if (e < bestError) bestError = e;
        }
      }
      checked++;
      if (bestError > tolerance) garbage++;
      if (bestError > worst) worst = bestError;
    }
  }
  return { checked, garbagePixels: garbage, worstError: worst };
}

/** Runs frames until the coarsest mip is resident (at most `maxFrames`). */
/**
 * Waits for the next animation frame: pacing frames by the compositor, not by timers, keeps the
 * GPU process from falling behind (SwiftShader on a loaded 2-core machine) and lets Chromium
 * update WebGL2 fence status, which it does across animation frames.
 */
function nextFrame(): Promise<unknown> {
  return new Promise((resolve) => requestAnimationFrame(resolve));
}

/**
 * Wall time per allowed frame that {@link waitReady} and {@link settle} wait at least, in ms: a
 * frame bound alone ends too soon when frames are quick and tiles slow (UASTC tiles the test
 * server encodes at ~100 ms each before its cache is warm).
 */
const MIN_FRAME_MS = 25;

/**
 * Wall time {@link waitReady} and {@link waitSettled} wait at least, in ms: readiness is not
 * what the tests time (the bound only ends a hang), and on a loaded machine the server's first
 * encodes of the mip tail's UASTC tiles took more than 5 s.
 */
const READY_WALL_MS = 20_000;

async function waitReady(maxFrames = 200): Promise<number> {
  const until = performance.now() + Math.max(maxFrames * MIN_FRAME_MS, READY_WALL_MS);
  for (let i = 0; i < maxFrames || performance.now() < until; i++) {
    if (system.isReady) return i;
    system.update(camera, scene);
    await nextFrame();
  }
  throw new Error('virtual texture never became ready');
}

/**
 * Steps frames until streaming is idle: nothing queued, loading or waiting for upload, and the
 * feedback of a frame rendered at least 2 frames after the last upload (and after the call began)
 * was analysed. Returns the frames it took: at most `maxFrames`, or more while less than
 * `maxFrames` x {@link MIN_FRAME_MS} passed.
 */
async function settle(maxFrames = 150): Promise<number> {
  let mustSeeFrame = system.stats().frame + 2;
  const until = performance.now() + maxFrames * MIN_FRAME_MS;
  let i = 0;
  for (; i < maxFrames || performance.now() < until; i++) {
    step();
    await nextFrame();
    const s = system.stats();
    if (s.uploadsLastFrame > 0) mustSeeFrame = Math.max(mustSeeFrame, s.frame + 2);
    const c = system.streamer.stats();
    const idle = c.queued === 0 && c.inFlight === 0 && c.pendingUploads === 0;
    if (idle && lastFeedback !== null && lastFeedback.frame >= mustSeeFrame) return i;
  }
  return i;
}

/**
 * Steps frames until the system itself reports settled ({@link VirtualTextureSystem.whenSettled}:
 * idle, and feedback at 4 jitter offsets found no missing page), which is stricter than
 * {@link settle}. Returns the frames it took, or -1 when `maxFrames` frames and at least
 * {@link READY_WALL_MS} (more for many frames) passed: a loaded machine took over 5 s to encode a
 * view's first UASTC tiles, and SwiftShader's readbacks stalled for 100 frames.
 */
async function waitSettled(maxFrames = 200): Promise<number> {
  let settled = false;
  system.whenSettled().then(() => {
    settled = true;
  });
  const until = performance.now() + Math.max(maxFrames * MIN_FRAME_MS, READY_WALL_MS);
  for (let i = 0; i < maxFrames || performance.now() < until; i++) {
    step();
    await nextFrame();
    if (settled) return i + 1;
  }
  return -1;
}

let lastFeedback: { frame: number; jitterFrame: number; ids: Uint32Array } | null = null;
/** Virtual-texture ids seen in any feedback so far. */
const requestedVts = new Set<number>();
system.events.on('feedback', ({ frame, jitterFrame, ids }) => {
  lastFeedback = { frame, jitterFrame, ids: ids.slice() };
  for (let i = 0; i < ids.length; i++) if (ids[i] !== NO_REQUEST) requestedVts.add(ids[i] >>> 28);
});

/** The simulator's feedback image for the current pose at jitter frame `jitterFrame`. */
function simulateFeedback(jitterFrame: number): Uint32Array {
  const fw = Math.ceil(size / feedbackScale);
  const generator = new TerrainFeedbackGenerator({
    widthPages: pages,
    heightPages: pages,
    worldWidth: 1,
    screenWidth: size,
    screenHeight: size,
    feedbackWidth: fw,
    feedbackHeight: fw,
    maxAnisotropy: 8,
    filtering,
  });
  return generator.generate(
    pose,
    system.stats().mipBias,
    feedbackJitterX(jitterFrame),
    feedbackJitterY(jitterFrame),
  );
}

/**
 * Steps `frames` frames (one per animation frame, after the GPU finished the previous one, so
 * readbacks rarely find the ring busy), calling `move(i)` before each, and gathers the feedback
 * delivered meanwhile: the distinct pages requested, the jitter offsets (jitter frame mod 16)
 * they were rendered at, and the readback counters' growth. Stops early once `untilPhases`
 * distinct offsets arrived (0: never).
 */
async function gatherFeedback(
  frames: number,
  untilPhases = 0,
  move: ((i: number) => void) | null = null,
): Promise<{
  pages: number[];
  phases: number[];
  frames: number;
  started: number;
  skipped: number;
  skippedStill: number;
}> {
  const pagesSeen = new Set<number>();
  const phases = new Set<number>();
  const listener = ({ jitterFrame, ids }: { jitterFrame: number; ids: Uint32Array }) => {
    phases.add(jitterFrame % 16);
    for (let i = 0; i < ids.length; i++) if (ids[i] !== NO_REQUEST) pagesSeen.add(ids[i]);
  };
  system.events.on('feedback', listener);
  const before = system.stats().readbacks;
  let i = 0;
  try {
    for (; i < frames && (untilPhases === 0 || phases.size < untilPhases); i++) {
      move?.(i);
      step();
      await nextFrame();
      const device = gpuDevice(renderer);
      if (device) await device.queue.onSubmittedWorkDone();
    }
    // Let the readbacks in flight land.
    for (let k = 0; k < 10; k++) await nextFrame();
  } finally {
    system.events.off('feedback', listener);
  }
  const after = system.stats().readbacks;
  return {
    pages: [...pagesSeen].sort((a, b) => a - b),
    phases: [...phases].sort((a, b) => a - b),
    frames: i,
    started: after.started - before.started,
    skipped: after.skipped - before.skipped,
    skippedStill: after.skippedStill - before.skippedStill,
  };
}

/** The distinct pages the simulator requests for the current pose over all 16 jitter offsets. */
function simulatedPagesOverCycle(): number[] {
  const seen = new Set<number>();
  for (let j = 0; j < 16; j++) {
    const sim = simulateFeedback(j);
    for (let i = 0; i < sim.length; i++) if (sim[i] !== NO_REQUEST) seen.add(sim[i]);
  }
  return [...seen].sort((a, b) => a - b);
}

/**
 * Steps one frame and waits (up to 2 s) for that frame's feedback readback. Returns the distinct
 * pages the GPU requested and the simulator's pages for the same pose and jitter, and the share
 * of feedback pixels where both agree exactly (rows compared top-down).
 */
async function stepAndCompareFeedback(): Promise<{
  gpu: number[];
  sim: number[];
  pixelAgreement: number;
} | null> {
  step();
  const frame = system.stats().frame;
  const deadline = performance.now() + 2000;
  while (performance.now() < deadline && (lastFeedback === null || lastFeedback.frame < frame)) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  if (lastFeedback === null || lastFeedback.frame !== frame) return null;
  const fw = Math.ceil(size / feedbackScale);
  // The offset the pass used: it advances per pass rendered (frames that skip it skip no offset).
  const sim = simulateFeedback(lastFeedback.jitterFrame);
  const ids = lastFeedback.ids;
  let agree = 0;
  let counted = 0;
  for (let j = 0; j < fw; j++) {
    const gpuRow = isWebGPU ? j : fw - 1 - j;
    for (let i = 0; i < fw; i++) {
      const a = ids[gpuRow * fw + i];
      const b = sim[j * fw + i];
      if (a === NO_REQUEST && b === NO_REQUEST) continue;
      counted++;
      if (a === b) agree++;
    }
  }
  const distinct = (array: Uint32Array) => [...new Set(array)].filter((id) => id !== NO_REQUEST);
  return { gpu: distinct(ids), sim: distinct(sim), pixelAgreement: counted > 0 ? agree / counted : 1 };
}

/** Distinct page ids of the latest feedback readbacks (accumulated while listening). */
const feedbackPages = new Set<number>();
let collectFeedback = false;
system.events.on('feedback', ({ ids }) => {
  if (!collectFeedback) return;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== NO_REQUEST) feedbackPages.add(ids[i]);
});

/**
 * Where the pages of texture `test` requested by the latest feedback live: per array layer of the
 * pool, how many of them are resident at exactly the requested mip in a slot of that array layer
 * (`byArrayLayer`), and how many are shown through a coarser fallback (`fallback`).
 */
function visibleSlotLayers(): { byArrayLayer: number[]; fallback: number } {
  const shape = vt.context.poolShape;
  const perGrid = shape.slotsPerRow * shape.slotRows;
  const byArrayLayer = new Array(shape.arrayLayers).fill(0);
  let fallback = 0;
  if (lastFeedback === null) return { byArrayLayer, fallback };
  for (const id of new Set(lastFeedback.ids)) {
    if (id === NO_REQUEST || pageVt(id) !== vt.id) continue;
    const mip = pageMip(id);
    const entry = vt.pageTable.entry(mip, pageX(id), pageY(id));
    if (entry === EMPTY_ENTRY || entryMip(entry) !== mip) fallback++;
    else byArrayLayer[Math.floor(entrySlot(entry) / perGrid)]++;
  }
  return { byArrayLayer, fallback };
}

Object.assign(globalThis, {
  vtScene: {
    size,
    pages,
    payload,
    mipCount: vt.mipCount,
    pageTableDense: vt.pageTableGeometry.dense,
    isWebGPU,
    setOrthoView,
    setPose,
    stepAndCompareFeedback,
    gatherFeedback,
    simulatedPagesOverCycle,
    setStillFeedbackInterval: (frames: number) => system.setStillFeedbackInterval(frames),
    step,
    read,
    compare,
    comparePerspective,
    waitReady,
    settle,
    waitSettled,
    stats: () => system.stats(),
    poolShape: () => ({ ...vt.context.poolShape }),
    visibleSlotLayers,
    requestedVts: () => [...requestedVts].sort(),
    startFeedback() {
      feedbackPages.clear();
      collectFeedback = true;
    },
    stopFeedback(): number[] {
      collectFeedback = false;
      return [...feedbackPages];
    },
    /** Disposes the VT system alone (the page's own targets stay, so the tracker's baseline holds). */
    disposeSystem() {
      system.dispose();
    },
    dispose() {
      // Shared mode: the runtime disposes both systems.
      if (sharedRuntime) sharedRuntime.dispose();
      else system.dispose();
      capture.dispose();
    },
    trackedBytes,
    /** Shared mode: the budget's figures, the VT system's reservations and the tracker's bytes. */
    shared() {
      const b = (sharedBudget as TextureBudget).stats();
      return {
        budgetBytes: b.budgetBytes,
        liveBytes: b.liveBytes,
        overBudgetBytes: b.overBudgetBytes,
        byCategory: b.byCategory,
        vtByCategory: system.stats().byCategory,
        vtGpuTotal: system.stats().gpuBytes.total,
        vtStagedBytes: system.stats().streaming.stagedBytes,
        tracked: trackedBytes(),
      };
    },
    /**
     * Builds a second system on a fresh runtime of `bytes` (all of its budget as the share) and
     * reports how it failed (error code, budget bytes left reserved, tracker bytes allocated
     * meanwhile), or 'ok' after disposing it.
     */
    tryConstruct(bytes: number) {
      const before = trackedBytes();
      const runtime = new TesseraRuntime({ budgetBytes: bytes });
      let code = 'ok';
      try {
        new VirtualTextureSystem(renderer, { runtime, feedbackScale }).dispose();
      } catch (error) {
        code = (error as { code?: string }).code ?? String(error);
      }
      const reservedAfter = runtime.budget.liveBytes;
      runtime.dispose();
      return { code, reservedAfter, allocated: trackedBytes() - before };
    },
    /**
     * Builds a system given the deprecated shared `budget` (of `bytes`, `share` of it the
     * system's) and reports whether the system's runtime is made around that budget (one budget,
     * not a second unused one), what the system reserved in it, and what is left after dispose.
     */
    deprecatedBudget(bytes: number, share: number) {
      const budget = new TextureBudget({ budgetBytes: bytes });
      const made = new VirtualTextureSystem(renderer, { budget, budgetBytes: share, feedbackScale });
      const out = {
        runtimeBudgetIsGiven: made.runtime.budget === budget,
        systemBudgetIsGiven: made.budget === budget,
        reserved: budget.liveBytes,
        after: 0,
      };
      made.dispose();
      out.after = budget.liveBytes;
      return out;
    },
    /**
     * Builds systems with UASTC layers on this device: one forcing BC7 where only ASTC is allowed
     * (its error code, or 'ok'), then two with no compressed target allowed (their pool formats).
     */
    tryFormats() {
      let forced = 'ok';
      try {
        new VirtualTextureSystem(renderer, {
          budgetBytes: 8 << 20,
          feedbackScale,
          layers: [{ name: 'albedo', format: 'uastc-4x4-srgb', target: 'bc7' }],
          uastcTargets: ['astc'],
        }).dispose();
      } catch (error) {
        forced = (error as { code?: string }).code ?? String(error);
      }
      const fallbackFormats: string[][] = [];
      for (let i = 0; i < 2; i++) {
        const fallback = new VirtualTextureSystem(renderer, {
          budgetBytes: 8 << 20,
          feedbackScale,
          layers: ['uastc-4x4-srgb'],
          uastcTargets: [],
        });
        fallbackFormats.push(fallback.stats().poolFormats);
        fallback.dispose();
      }
      return { forced, fallbackFormats };
    },
    /**
     * Two systems on one fresh runtime: one with a UASTC layer (a BC7 pool), one rgba8, each a
     * 16 MiB share and a texture. Reports their slots, formats, bytes (theirs, the tracker's, the
     * budget's), then the same after disposing both.
     */
    twoPools() {
      const runtime = new TesseraRuntime({ budgetBytes: 40 << 20 });
      const budget = runtime.budget;
      const before = trackedBytes();
      const share = { runtime, shareBytes: 16 << 20, feedbackScale };
      const compressed = new VirtualTextureSystem(renderer, {
        ...share,
        layers: [{ name: 'albedo', format: 'uastc-4x4-srgb', target: 'bc7' }],
      });
      const plain = new VirtualTextureSystem(renderer, share);
      compressed.add(new UastcTestTileSource({ widthPages: 16, heightPages: 16 }), { name: 'compressed' });
      plain.add(new TestTileSource({ widthPages: 16, heightPages: 16 }), { name: 'plain' });
      // One frame each, so the feedback targets exist (they are created by the first render).
      const empty = new Scene();
      compressed.update(camera, empty);
      plain.update(camera, empty);
      const a = compressed.stats();
      const b = plain.stats();
      const result = {
        slots: [a.slotCount, b.slotCount],
        formats: [a.poolFormats, b.poolFormats],
        total: a.gpuBytes.total + b.gpuBytes.total,
        readback: a.gpuBytes.readbackBuffers + b.gpuBytes.readbackBuffers,
        tracked: trackedBytes() - before,
        live: budget.liveBytes,
        budgetBytes: budget.budgetBytes,
        trackedAfter: 0,
        liveAfter: 0,
      };
      compressed.dispose();
      plain.dispose();
      result.trackedAfter = trackedBytes() - before;
      result.liveAfter = budget.liveBytes;
      runtime.dispose();
      return result;
    },
    /**
     * A second system with a 1 MiB page-table share and 16 textures of 128² pages (each 192 KiB
     * if dense): which storage each got, the page-table reservation against the share, and the
     * tracker's bytes against the system's own, after one frame; then disposed.
     */
    manySmallTextures() {
      const before = trackedBytes();
      const many = new VirtualTextureSystem(renderer, {
        budgetBytes: 64 << 20,
        pageTableBytes: 1 << 20,
        feedbackScale,
      });
      const dense: boolean[] = [];
      for (let i = 0; i < 16; i++) {
        // Every other one asks for 'auto' by name: the same rule as leaving it out.
        const pageTableStorage = i % 2 === 1 ? ('auto' as const) : undefined;
        const source = new TestTileSource({ widthPages: 128, heightPages: 128 });
        const vt = many.add(source, { name: `small${i}`, pageTableStorage });
        dense.push(vt.pageTableGeometry.dense);
      }
      many.update(camera, new Scene());
      const stats = many.stats();
      const result = {
        dense,
        pageTables: stats.gpuBytes.pageTables,
        reserved: stats.byCategory['page-table'],
        share: stats.pageTableShareBytes,
        total: stats.gpuBytes.total,
        readback: stats.gpuBytes.readbackBuffers,
        tracked: trackedBytes() - before,
      };
      many.dispose();
      return result;
    },
    budgetLiveBytes: () => sharedBudget?.liveBytes ?? system.budget.liveBytes,
    /**
     * Resolves once the GPU has run everything submitted so far (WebGPU: `onSubmittedWorkDone`;
     * WebGL2: `finish`), so a test can pace frames by GPU throughput rather than by wall time.
     */
    async gpuIdle() {
      const device = gpuDevice(renderer);
      if (device) await device.queue.onSubmittedWorkDone();
      else (renderer.backend as unknown as { gl: WebGL2RenderingContext }).gl.finish();
    },
    /**
     * Runs `n` frames, each after a requestAnimationFrame: SwiftShader completes readbacks promptly
     * then (under setTimeout pacing they can stall for seconds).
     */
    async stepPaced(n: number) {
      for (let i = 0; i < n; i++) {
        step();
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
    },
    /** Loses the GPU: `device.destroy()` on WebGPU, WEBGL_lose_context on WebGL2. */
    loseDevice() {
      const device = gpuDevice(renderer);
      if (device) device.destroy();
      else
        (renderer.backend as unknown as { gl: WebGL2RenderingContext }).gl
          .getExtension('WEBGL_lose_context')
          ?.loseContext();
    },
    /** Replaces the lost renderer by a new one (on a new canvas) and moves the system onto it. */
    async recover() {
      const next = await createTestRenderer(size, size);
      renderer.domElement.remove();
      renderer = next;
      system.recover(next);
    },
    /** The shared budget (shared mode), else the system's own. */
    budget: () => sharedBudget ?? system.budget,
    /** The second texture of `?two=1`. */
    second: () => second,
    sourceLoads: () => (source instanceof TestTileSource ? source.loads : source.spoiled),
    tileErrors: () => tileErrors.slice(),
    debug: {
      system,
      virtualTexture,
      renderer,
      vt,
      material,
      scene,
      capture,
      get camera() {
        return camera;
      },
    },
  },
});
document.title = 'ready';
