/**
 * The page every setup of packed-tarball.spec.ts builds (webpack, esbuild, Rollup, Vite) or loads
 * as is (an import map): plain JavaScript, no configuration, importing the packed library by name
 * (`PACKAGE_UNDER_TEST` is replaced by the name in package.json). It streams, side by side:
 * - a UASTC archive into a block-compressed pool (transcode workers, three's Basis transcoder),
 * - a WebP archive into an rgba8 pool (decode workers),
 * - a glTF whose textures are KTX2 (UASTC + zstd, ETC1S) through the glTF plugin.
 * It reports through `document.title`: `ok <JSON>` once all three settle, or `error <message>`.
 * `?transcoderPath=<folder>` sets the option, for bundlers that leave the library's own
 * `new URL('./basis/...', import.meta.url)` alone (esbuild, Rollup).
 */

import {
  ArchiveTileSource,
  registerGltfTextureStreaming,
  TextureStreamingSystem,
  VirtualTextureSystem,
  virtualTexture,
} from 'PACKAGE_UNDER_TEST';
import { AmbientLight, Mesh, PerspectiveCamera, PlaneGeometry, Scene } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshBasicNodeMaterial, WebGPURenderer } from 'three/webgpu';

const transcoderPath = new URLSearchParams(location.search).get('transcoderPath') ?? undefined;
const errors = [];

function fail(error) {
  errors.push(error instanceof Error ? `${error.name} ${error.code ?? ''}: ${error.message}` : String(error));
  const cause = error?.cause;
  if (cause) errors.push(`cause: ${cause.name} ${cause.code ?? ''}: ${cause.message}`);
  document.title = `error ${errors.join(' | ')}`;
}

function plane(vt, x) {
  const material = new MeshBasicNodeMaterial();
  material.colorNode = virtualTexture(vt);
  const mesh = new Mesh(new PlaneGeometry(1, 1), material);
  mesh.position.x = x;
  return mesh;
}

async function main() {
  const renderer = new WebGPURenderer();
  renderer.setSize(480, 160);
  document.body.appendChild(renderer.domElement);
  await renderer.init();
  const scene = new Scene();
  // The glTF's materials are lit: irradiance pi shows their base colour as is.
  scene.add(new AmbientLight(0xffffff, Math.PI));
  const camera = new PerspectiveCamera(40, 3, 0.1, 10);
  camera.position.z = 1.5;

  const compressed = new VirtualTextureSystem(renderer, {
    budgetBytes: 16 * 2 ** 20,
    layers: [{ name: 'albedo', format: 'uastc-4x4-srgb' }],
    transcoderPath,
  });
  const webp = new VirtualTextureSystem(renderer, { budgetBytes: 16 * 2 ** 20 });
  const streaming = new TextureStreamingSystem(renderer, { budgetBytes: 32 * 2 ** 20, transcoderPath });
  for (const system of [compressed, webp, streaming]) system.events.on('error', ({ error }) => fail(error));

  scene.add(plane(compressed.add(await ArchiveTileSource.open('/fixtures/uastc.tsva')), -1.1));
  scene.add(plane(webp.add(await ArchiveTileSource.open('/fixtures/webp.tsva')), 0));
  const loader = new GLTFLoader();
  const gltfStreaming = registerGltfTextureStreaming(loader, streaming, { tag: 'scene', onError: fail });
  const gltf = await loader.loadAsync('/fixtures/scene.gltf');
  gltf.scene.scale.setScalar(0.45);
  gltf.scene.position.x = 1.1;
  scene.add(gltf.scene);

  renderer.setAnimationLoop(() => {
    compressed.update(camera, scene);
    webp.update(camera, scene);
    streaming.update(camera, scene);
    renderer.render(scene, camera);
  });
  await Promise.all([compressed.whenSettled(), webp.whenSettled(), streaming.whenSettled()]);
  // Two more frames, so the screenshot shows the settled pages.
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  if (errors.length > 0) return;
  document.title = `ok ${JSON.stringify({
    compressedPool: compressed.stats().poolFormats,
    compressedUploads: compressed.stats().uploadsTotal,
    webpPool: webp.stats().poolFormats,
    webpUploads: webp.stats().uploadsTotal,
    gltfTextures: gltfStreaming.texturesOf(gltf.scene).map((t) => t.source.format),
  })}`;
}

main().catch(fail);
