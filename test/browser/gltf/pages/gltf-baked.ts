/**
 * A glTF made streamable by `tessera gltf` (a .glb with one .ktx2 per texture beside it), loaded
 * as the README says: `registerGltfTextureStreaming(loader, streaming, { tag }).load(url)`, in a
 * 704x128 view where each unit quad covers about 121 pixels. Reports the first frame every
 * texture rendered textured, and where each texture settled.
 */

import { OrthographicCamera, Scene } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { Texture } from 'three/webgpu';
import { registerGltfTextureStreaming } from '../../../../src/three/gltf/gltf-texture-streaming';
import { TextureStreamingSystem } from '../../../../src/three/streamed/texture-streaming-system';
import { createTestRenderer } from '../../support/renderer';

const mark = (globalThis as unknown as { markFrame(phase: string, frame: number): Promise<void> }).markFrame;
const renderer = await createTestRenderer(704, 128);
const camera = new OrthographicCamera(-2.915, 2.915, 0.53, -0.53, 0.1, 10);
camera.position.set(0, 0, 2);
const scene = new Scene();
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

async function run(url: string) {
  const streaming = new TextureStreamingSystem(renderer, { budgetBytes: 64 << 20 });
  const errors: string[] = [];
  streaming.events.on('error', ({ error, textureName }) => errors.push(`${textureName}: ${error.code}`));
  const gltfStreaming = registerGltfTextureStreaming(new GLTFLoader(), streaming, { tag: 'scene' });
  const gltf = await gltfStreaming.load(url);
  scene.add(gltf.scene);
  const textures = gltfStreaming.texturesOf(gltf.scene);
  const mapsAreStreamed = gltf.scene.children.every((child) => {
    const material = (child as unknown as { material: { map: Texture | null } }).material;
    return textures.some((t) => t.texture === material.map);
  });
  let firstTexturedFrame = -1;
  let frames = 0;
  const settled = () => textures.every((t) => streaming.planner.isSettled(t.id));
  for (let n = 1; n <= 600 && (n <= 10 || !settled()); n++) {
    streaming.update(camera, scene, n);
    renderer.render(scene, camera);
    await mark('stream', n);
    if (firstTexturedFrame < 0 && textures.every((t) => streaming.planner.isRenderable(t.id)))
      firstTexturedFrame = n;
    frames = n;
    await nextTask();
  }
  const result = {
    firstTexturedFrame,
    settled: settled(),
    frames,
    mapsAreStreamed,
    errors,
    textures: textures.map((t) => ({
      name: t.name,
      format: t.source.format,
      levels: t.source.mipLevelCount,
      mip: streaming.residentMipOf(t),
    })),
  };
  scene.remove(gltf.scene);
  streaming.dispose();
  return result;
}

(globalThis as unknown as { gltfPage: unknown }).gltfPage = { run };
document.title = 'ready';
