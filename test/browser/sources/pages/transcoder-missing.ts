/**
 * Page for transcoder-missing.spec.ts: a system whose `transcoderPath` names a folder that serves
 * nothing (`?transcoderPath=`), as an app built with esbuild's defaults has. `?system=vt` adds the
 * committed UASTC archive to a `VirtualTextureSystem`; `?system=streamed` streams a UASTC KTX2
 * file (`?ktx2=`, served by the spec) in a `TextureStreamingSystem`. `missingTranscoder.run()`
 * renders frames until `whenSettled()` resolves (or `maxMs` pass) and reports when the first
 * error event came, whether and when the system settled, its stats and the centre pixel.
 * Sets the title to 'ready'.
 */
import { Mesh, OrthographicCamera, PlaneGeometry, Scene } from 'three';
import { uv } from 'three/tsl';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import {
  ArchiveTileSource,
  Ktx2Source,
  TextureStreamingSystem,
  VirtualTextureSystem,
  virtualTexture,
} from '../../../../src/index';
import { WorkerProceduralTileSource } from '../../../../src/sources/procedural/worker-procedural-tile-source';
import { createTestRenderer } from '../../support/renderer';

const params = new URLSearchParams(location.search);
const transcoderPath = params.get('transcoderPath') as string;
const SIZE = 128;
const renderer = await createTestRenderer(SIZE, SIZE);
const capture = new RenderTarget(SIZE, SIZE);
const scene = new Scene();
const camera = new OrthographicCamera(-0.5, 0.5, 0.5, -0.5, 0.1, 10);
camera.position.set(0, 0, 1);
const mesh = new Mesh(new PlaneGeometry(1, 1), new MeshBasicNodeMaterial());
scene.add(mesh);

/** Error events as they came: code, the cause's code, and ms since the system was made. */
interface ErrorRecord {
  code: string;
  cause: string;
  message: string;
  atMs: number;
}

interface System {
  update(): void;
  whenSettled(): Promise<number>;
  stats(): unknown;
  dispose(): void;
}

function causeCode(error: { code?: string; cause?: unknown }): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? '';
}

async function makeSystem(errors: ErrorRecord[], start: number): Promise<System> {
  const record = (error: { code?: string; cause?: unknown; message: string }) =>
    errors.push({
      code: error.code ?? '',
      cause: causeCode(error),
      message: (error.cause as Error | undefined)?.message ?? error.message,
      atMs: performance.now() - start,
    });
  if (params.get('system') === 'vt') {
    const vts = new VirtualTextureSystem(renderer, {
      budgetBytes: 32 * 2 ** 20,
      layers: [
        { name: 'albedo', format: 'uastc-4x4-srgb', alpha: false },
        { name: 'normal', format: 'uastc-4x4', usage: 'normal' },
      ],
      transcoderPath,
    });
    vts.events.on('error', ({ error }) => record(error));
    const source = await ArchiveTileSource.open('/assets/world-seed7-16p-uastc.tsva');
    const world = vts.add(source, { name: 'world' });
    (mesh.material as MeshBasicNodeMaterial).colorNode = virtualTexture(world, uv(), { uvSpace: 'virtual' });
    return {
      update: () => vts.update(camera, scene),
      whenSettled: () => vts.whenSettled(),
      stats: () => vts.stats().streaming,
      dispose: () => {
        vts.dispose();
        source.dispose();
      },
    };
  }
  const streaming = new TextureStreamingSystem(renderer, { budgetBytes: 8 << 20, transcoderPath });
  streaming.events.on('error', ({ error }) => record(error));
  const source = await Ktx2Source.open(params.get('ktx2') as string);
  const texture = streaming.add(source, { name: 'uastc' });
  streaming.attach(mesh, texture);
  return {
    update: () => streaming.update(camera, scene),
    whenSettled: () => streaming.whenSettled(),
    // In the same words as the virtual-texture system's.
    stats: () => streaming.stats().streaming,
    dispose: () => streaming.dispose(),
  };
}

async function centrePixel(): Promise<number[]> {
  renderer.setRenderTarget(capture);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  return Array.from(
    (await renderer.readRenderTargetPixelsAsync(capture, SIZE / 2, SIZE / 2, 1, 1)) as Uint8Array,
  );
}

/** Renders frames until the system settles or `maxMs` pass; see the module comment. */
async function run(maxMs: number) {
  const errors: ErrorRecord[] = [];
  const start = performance.now();
  const system = await makeSystem(errors, start);
  let settledAtMs = -1;
  system.whenSettled().then(
    () => {
      settledAtMs = performance.now() - start;
    },
    () => {}, // rejected by dispose() when it never settled: settledAtMs stays -1
  );
  let frames = 0;
  while (settledAtMs < 0 && performance.now() - start < maxMs) {
    system.update();
    renderer.render(scene, camera);
    frames++;
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  const out = { errors, settledAtMs, frames, stats: system.stats(), pixel: await centrePixel() };
  system.dispose();
  return out;
}

/**
 * Loads a tile from a procedural source whose workers' script is `scriptUrl` (one that serves
 * nothing): the load must reject, typed, instead of waiting on a worker that never started.
 */
async function unstartableWorkers(scriptUrl: string) {
  const start = performance.now();
  const source = new WorkerProceduralTileSource(
    { seed: 7, widthPages: 16 },
    () => new Worker(scriptUrl, { type: 'module' }),
    2,
  );
  const load = () => source.load(0, 0, 0, new AbortController().signal).then(() => 'loaded');
  const settle = (promise: Promise<string>) =>
    promise.catch((error: { code?: string; message: string }) => `${error.code}: ${error.message}`);
  const first = await settle(load());
  const firstMs = performance.now() - start;
  const later = await settle(load());
  source.dispose();
  return { first, later, firstMs };
}

/**
 * Loads tiles from a procedural source whose workers are the library's own (they start and post
 * their ready handshake), each job sent with world options the worker's `ProceduralWorld` rejects:
 * the worker throws, uncaught, on its first job. The loads must reject as crashes on a job, not as
 * workers that could not start, and the workers keep taking jobs.
 */
async function crashingWorkers() {
  const source = new WorkerProceduralTileSource(
    { seed: 7, widthPages: 16 },
    () => {
      const worker = new Worker(
        new URL('../../../../src/sources/procedural/procedural-worker.ts', import.meta.url),
        { type: 'module' },
      );
      const post = worker.postMessage.bind(worker);
      worker.postMessage = (message: { options: object }) =>
        post({ ...message, options: { ...message.options, widthPages: 3 } });
      return worker as never;
    },
    1,
  );
  const load = () => source.load(0, 0, 0, new AbortController().signal).then(() => 'loaded');
  const settle = (promise: Promise<string>) =>
    promise.catch((error: { code?: string; message: string }) => `${error.code}: ${error.message}`);
  const first = await settle(load());
  const later = await settle(load());
  source.dispose();
  return { first, later };
}

(globalThis as unknown as { missingTranscoder: unknown }).missingTranscoder = {
  run,
  unstartableWorkers,
  crashingWorkers,
};
document.title = 'ready';
