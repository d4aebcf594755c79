/**
 * Page for shared-runtime.spec.ts: one `TesseraRuntime` under two virtual-texture systems (one
 * with a tile archive and three imagery layers, XYZ, PMTiles and COG; one with a UASTC archive)
 * and a streaming system with a glTF whose textures are KTX2,
 * every file read through the test server's slow static host (one session, so the server counts
 * the requests in flight across all of them). Counts the workers the library starts by name and
 * those it stops. Exposes `globalThis.sharedRuntime` and sets the title to 'ready'.
 */

import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { Mesh, MeshBasicNodeMaterial, PerspectiveCamera, PlaneGeometry, Scene } from 'three/webgpu';
import { ArchiveTileSource } from '../../../../src/sources/archive/archive-tile-source';
import { openCogPyramid } from '../../../../src/sources/imagery/cog-pyramid';
import { ImageryTileSource } from '../../../../src/sources/imagery/imagery-tile-source';
import { openPmtilesPyramid } from '../../../../src/sources/imagery/pmtiles-pyramid';
import { XyzPyramid } from '../../../../src/sources/imagery/xyz-pyramid';
import { registerGltfTextureStreaming } from '../../../../src/three/gltf/gltf-texture-streaming';
import { virtualTexture } from '../../../../src/three/sampling/virtual-texture-node';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import { TesseraRuntime } from '../../../../src/three/tessera-runtime';
import { VirtualTextureSystem } from '../../../../src/three/virtual-texture-system';
import { createTestRenderer } from '../../support/renderer';

/** Workers started and stopped, by the `name` the library gives them (`tessera-decode`, ...). */
const started: Record<string, number> = {};
const stopped: Record<string, number> = {};
const NativeWorker = globalThis.Worker;
globalThis.Worker = class CountedWorker extends NativeWorker {
  private readonly label: string;
  constructor(url: string | URL, options?: WorkerOptions) {
    super(url, options);
    this.label = options?.name || 'unnamed';
    started[this.label] = (started[this.label] ?? 0) + 1;
  }
  override terminate(): void {
    stopped[this.label] = (stopped[this.label] ?? 0) + 1;
    super.terminate();
  }
};

/** What one run saw. */
export interface SharedRuntimeRun {
  /** Frames until every system of the runtime settled. */
  settledFrame: number;
  /** True when every source reads through the runtime's client (the same counters object). */
  oneClient: boolean;
  /** Requests the runtime's client sent. */
  requests: number;
  /** Virtual textures and streamed textures live. */
  virtualTextures: number;
  streamedTextures: number;
  /** Error events of both systems. */
  errors: string[];
  /** Workers started by name, before and after disposing. */
  started: Record<string, number>;
  /** Workers stopped by name after the runtime and the sources were disposed. */
  stopped: Record<string, number>;
  /** Budget bytes live after disposing. */
  liveBytesAfter: number;
}

const api = {
  /** Builds the scene under `base` (a latency-host URL prefix), streams it to settled, disposes it. */
  async run(base: string): Promise<SharedRuntimeRun> {
    const renderer = await createTestRenderer(320, 180);
    const runtime = new TesseraRuntime({ budgetBytes: 96 * 2 ** 20 });
    const vts = new VirtualTextureSystem(renderer, { runtime, shareBytes: 48 * 2 ** 20 });
    // A second virtual-texture system, of UASTC pages: transcoded by the runtime's workers.
    const uastcVts = new VirtualTextureSystem(renderer, {
      runtime,
      shareBytes: 16 * 2 ** 20,
      layers: [
        { name: 'albedo', format: 'uastc-4x4-srgb' },
        { name: 'normal', format: 'uastc-4x4', usage: 'normal' },
      ],
    });
    const streaming = new TextureStreamingSystem(renderer, { runtime });
    const errors: string[] = [];
    for (const system of [vts, uastcVts]) {
      system.events.on('error', (e) => errors.push(`vt: ${e.error.code}: ${e.error.message}`));
    }
    streaming.events.on('error', (e) => errors.push(`streamed: ${e.error.code}: ${e.error.message}`));

    const archive = await ArchiveTileSource.open(`${base}assets/examples/photo-3840x1920.tsva`, { runtime });
    const terrain = await ArchiveTileSource.open(`${base}assets/world-seed7-16p-uastc.tsva`, { runtime });
    const xyz = new XyzPyramid({
      url: `${base}assets/examples/map/xyz/{z}/{x}/{y}.jpg`,
      maxZoom: 5,
      runtime,
    });
    const pmtiles = await openPmtilesPyramid(`${base}assets/examples/map/earth.pmtiles`, { runtime });
    const cog = await openCogPyramid(`${base}assets/examples/earth-8192x4096.tif`, { runtime });
    const sources = [
      archive,
      new ImageryTileSource(xyz),
      new ImageryTileSource(pmtiles),
      new ImageryTileSource(cog),
    ];
    const oneClient =
      archive.requestCounters === runtime.http.counters &&
      terrain.requestCounters === runtime.http.counters &&
      xyz.requestCounters === runtime.http.counters &&
      pmtiles.requestCounters === runtime.http.counters &&
      cog.requestCounters === runtime.http.counters;

    const scene = new Scene();
    const terrainMaterial = new MeshBasicNodeMaterial();
    terrainMaterial.colorNode = virtualTexture(uastcVts.add(terrain, { name: 'terrain' }));
    const terrainMesh = new Mesh(new PlaneGeometry(0.9, 0.9), terrainMaterial);
    terrainMesh.position.set(1.5, -0.5, 0);
    scene.add(terrainMesh);
    sources.forEach((source, i) => {
      const material = new MeshBasicNodeMaterial();
      material.colorNode = virtualTexture(vts.add(source, { name: `layer${i}` }));
      const mesh = new Mesh(new PlaneGeometry(0.9, 0.9), material);
      mesh.position.set(-1.5 + i, 0.5, 0);
      scene.add(mesh);
    });
    const gltfStreaming = registerGltfTextureStreaming(new GLTFLoader(), streaming, { tag: 'scene:valley' });
    const gltf = await gltfStreaming.load(`${base}assets/props/valley.glb`);
    gltf.scene.position.set(0, -0.6, 0);
    gltf.scene.scale.setScalar(0.05);
    scene.add(gltf.scene);

    const camera = new PerspectiveCamera(60, 16 / 9, 0.01, 100);
    camera.position.set(0, 0, 2.4);
    let settledFrame = -1;
    for (let frame = 1; frame <= 900 && settledFrame < 0; frame++) {
      runtime.update(camera, scene);
      renderer.render(scene, camera);
      await new Promise((resolve) => setTimeout(resolve, 16));
      if (vts.isSettled && uastcVts.isSettled && streaming.isSettled) settledFrame = frame;
    }
    const virtualTextures = sources.length + 1;
    const streamedTextures = streaming.stats().textures;
    const requests = runtime.http.counters.requests;
    const before = { ...started };
    runtime.dispose();
    for (const source of [...sources, terrain]) source.dispose?.();
    xyz.dispose();
    pmtiles.dispose();
    cog.dispose();
    gltfStreaming.dispose();
    const liveBytesAfter = runtime.budget.liveBytes;
    // geotiff's pool stops its workers a task later.
    await new Promise((resolve) => setTimeout(resolve, 100));
    renderer.dispose();
    return {
      settledFrame,
      oneClient,
      requests,
      virtualTextures,
      streamedTextures,
      errors,
      started: before,
      stopped: { ...stopped },
      liveBytesAfter,
    };
  },
};

(globalThis as unknown as { sharedRuntime: typeof api }).sharedRuntime = api;
document.title = 'ready';
