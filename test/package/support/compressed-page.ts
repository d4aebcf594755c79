/**
 * The packaged library's compressed path in an application (copied into the packed app as
 * `compressed.ts`): a virtual texture whose tiles are UASTC blocks (encoded in the page with the
 * `ktx2-encoder` the package depends on) streams into a block-compressed pool, so the installed
 * package must find its transcode worker and three's Basis transcoder (script and wasm). The page
 * reports through `document.title`: `ok <format> <uploads>` or `error <message>`.
 */

import { read } from 'ktx-parse';
import { encodeToKTX2 } from 'ktx2-encoder';
import { type TileSource, VirtualTextureSystem, virtualTexture } from 'tessera';
import { Mesh, OrthographicCamera, PlaneGeometry, Scene } from 'three';
import { MeshBasicNodeMaterial, WebGPURenderer } from 'three/webgpu';

const fail = (error: unknown) => {
  document.title = `error ${error instanceof Error ? error.message : String(error)}`;
};

async function uastcTile(): Promise<Uint8Array> {
  const rgba = new Uint8Array(128 * 128 * 4);
  for (let i = 0; i < 128 * 128; i++) rgba.set([(i * 7) & 255, (i >> 7) & 255, 128, 255], i * 4);
  const ktx2 = await encodeToKTX2(new Uint8Array(1), {
    isUASTC: true,
    isKTX2File: true,
    generateMipmap: false,
    needSupercompression: false,
    uastcLDRQualityLevel: 0,
    imageDecoder: async () => ({ width: 128, height: 128, data: rgba }),
  });
  return read(ktx2).levels[0].levelData.slice();
}

try {
  const renderer = new WebGPURenderer();
  renderer.setSize(256, 256);
  document.body.appendChild(renderer.domElement);
  await renderer.init();
  const blocks = await uastcTile();
  const source: TileSource = {
    info: {
      widthPages: 4,
      heightPages: 4,
      tileSize: 128,
      border: 4,
      layers: [{ name: 'albedo', format: 'uastc-4x4-srgb' }],
    },
    load: async () => ({ layers: [blocks.slice()] }),
  };
  const vts = new VirtualTextureSystem(renderer, {
    budgetBytes: 16 << 20,
    layers: [{ name: 'albedo', format: 'uastc-4x4-srgb' }],
  });
  vts.events.on('error', ({ error }) => fail(error.cause ?? error));
  const vt = vts.add(source);
  const material = new MeshBasicNodeMaterial();
  material.colorNode = virtualTexture(vt);
  const scene = new Scene();
  scene.add(new Mesh(new PlaneGeometry(2, 2), material));
  const camera = new OrthographicCamera(-1, 1, 1, -1, 0.1, 10);
  camera.position.z = 1;
  renderer.setAnimationLoop(() => {
    vts.update(camera, scene);
    renderer.render(scene, camera);
    const stats = vts.stats();
    if (vts.isReady && !document.title.startsWith('error')) {
      document.title = `ok ${stats.poolFormats[0]} ${stats.uploadsTotal}`;
    }
  });
} catch (error) {
  fail(error);
}
