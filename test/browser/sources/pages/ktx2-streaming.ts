/**
 * KTX2 files streamed by Range into a plane that fills a 128² canvas. The spec serves the files
 * (answering Range itself, counting bytes); this page opens them, renders frame by frame to the
 * canvas and reports, per frame, the texture's resident mip and the centre pixel.
 */

import { Mesh, PerspectiveCamera, PlaneGeometry, Scene } from 'three';
import { MeshBasicNodeMaterial, RenderTarget, type WebGPURenderer } from 'three/webgpu';
import { Ktx2Source } from '../../../../src/sources/mips/ktx2-source';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import { createTestRenderer, requestedBackend } from '../../support/renderer';

interface Tracker {
  liveBytesWithPrefix(prefix: string): number;
}
const tracker = (globalThis as unknown as { __tesseraGpuTracker: Tracker }).__tesseraGpuTracker;
const SIZE = 128;
const backend = requestedBackend();
const renderer: WebGPURenderer = await createTestRenderer(SIZE, SIZE);
const target = new RenderTarget(SIZE, SIZE);
target.texture.name = 'tessera-test:target';
// The plane (2 units) exactly fills the view: 2 * d * tan(30°) = 2.
const camera = new PerspectiveCamera(60, 1, 0.1, 100);
camera.position.set(0, 0, 1 / Math.tan(Math.PI / 6));
const geometry = new PlaneGeometry(2, 2);
// Allocate the canvas's and the target's textures now, so a run's WebGL2 texture bytes (unlabelled
// there) are exactly what the streaming system allocated.
await centrePixel(new Scene());
renderer.render(new Scene(), camera);

/** One frame of a run, as the page saw it after rendering. */
interface FrameRecord {
  frame: number;
  residentMip: number;
  pixel: number[];
}

async function centrePixel(scene: Scene): Promise<number[]> {
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  const pixels = (await renderer.readRenderTargetPixelsAsync(target, SIZE / 2, SIZE / 2, 1, 1)) as Uint8Array;
  return Array.from(pixels);
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Opens `url`, streams it onto the plane for at least `frames` frames, calling `mark(frame)` (the spec's
 * byte counter) after each rendered frame. Returns the frames, the source's figures and the
 * budget's bytes against the tracker's.
 */
async function stream(url: string, frames: number) {
  const mark = (globalThis as unknown as { markFrame(f: number, mip: number): Promise<void> }).markFrame;
  const source = await Ktx2Source.open(url);
  const glBaseline = tracker.liveBytesWithPrefix('webgl:texture');
  const system = new TextureStreamingSystem(renderer, { budgetBytes: 8 << 20, needRefreshFrames: 1 });
  const texture = system.add(source, { name: 'ktx2' });
  const mesh = new Mesh(geometry, new MeshBasicNodeMaterial());
  const scene = new Scene();
  scene.add(mesh);
  system.attach(mesh, texture);
  const records: FrameRecord[] = [];
  // At least `frames` frames, then on (10 s at most) while chain loads are in flight, and two
  // frames after the last lands: workers that transcode slowly under load are waited for, not
  // cut off by a frame count.
  const until = performance.now() + 10_000;
  let quiet = 0;
  for (let frame = 1; frame <= frames || (quiet < 2 && performance.now() < until); frame++) {
    quiet = system.stats().loadsInFlight === 0 ? quiet + 1 : 0;
    system.update(camera, scene, frame);
    renderer.render(scene, camera);
    const pixel = await centrePixel(scene);
    const residentMip = system.residentMipOf(texture);
    records.push({ frame, residentMip, pixel });
    await mark(frame, residentMip);
    await nextTask();
  }
  const budget = system.stats().budget;
  // Placeholders are reserved under 'other'; everything else is the texture's chains.
  const budgetStreamed = budget.liveBytes - (budget.byCategory.other ?? 0);
  // WebGPU: the chains' labels; WebGL2 (no labels): every texture allocated since the system was
  // made, less its placeholders (the budget's 'other' bytes).
  const trackedStreamed =
    backend === 'webgpu'
      ? tracker.liveBytesWithPrefix('tessera:streamed:')
      : tracker.liveBytesWithPrefix('webgl:texture') - glBaseline - (budget.byCategory.other ?? 0);
  const out = {
    records,
    format: texture.source.format,
    storedFormat: source.format,
    fileBytes: source.fileBytes,
    openBytes: source.openBytes,
    levelBytesRead: source.levelBytesRead,
    levelRequests: source.levelRequestCount,
    mipLevelCount: source.mipLevelCount,
    pinnedMip: system.planner.pinnedMipOf(texture.id),
    budgetStreamed,
    trackedStreamed,
  };
  system.dispose();
  await nextTask();
  return out;
}

/**
 * Streams `badUrl` (a file whose finer levels are corrupt) and `goodUrl` on two planes filling
 * the view (the bad one in front), and reports each texture's resident mip and the errors emitted.
 */
async function streamBadAndGood(badUrl: string, goodUrl: string, frames: number) {
  const [bad, good] = await Promise.all([Ktx2Source.open(badUrl), Ktx2Source.open(goodUrl)]);
  const system = new TextureStreamingSystem(renderer, { budgetBytes: 8 << 20, needRefreshFrames: 1 });
  const errors: { texture: string; code: string; cause: string }[] = [];
  system.events.on('error', ({ error, texture }) => {
    const typed = error as { code?: string; cause?: { code?: string } };
    errors.push({
      texture: texture?.name ?? '',
      code: typed.code ?? String(error),
      cause: typed.cause?.code ?? '',
    });
  });
  const scene = new Scene();
  const textures = [system.add(bad, { name: 'bad' }), system.add(good, { name: 'good' })];
  textures.forEach((texture, i) => {
    const mesh = new Mesh(geometry, new MeshBasicNodeMaterial());
    mesh.position.z = -0.01 * i;
    scene.add(mesh);
    system.attach(mesh, texture);
  });
  let pixel: number[] = [];
  for (let frame = 1; frame <= frames; frame++) {
    system.update(camera, scene, frame);
    renderer.render(scene, camera);
    pixel = await centrePixel(scene);
    await nextTask();
  }
  const out = {
    badMip: system.residentMipOf(textures[0]),
    goodMip: system.residentMipOf(textures[1]),
    badPinnedMip: system.planner.pinnedMipOf(textures[0].id),
    pixel,
    errors,
  };
  system.dispose();
  await nextTask();
  return out;
}

(globalThis as unknown as { ktxPage: unknown }).ktxPage = { stream, streamBadAndGood };
document.title = 'ready';
