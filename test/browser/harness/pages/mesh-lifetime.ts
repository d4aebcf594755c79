/**
 * The smallest page that shows how long three's WebGPURenderer keeps what it made to draw a mesh
 * (docs/long-sessions.md): one plane textured by a virtual texture (so Tessera's feedback pass draws
 * every mesh too) and `churn(frames, disposeMesh)`, which each frame adds a new mesh with a new
 * geometry and the shared material, renders it, then removes it and disposes its geometry, and
 * with `disposeMesh` the mesh too. Every render object (one per mesh and pass) has a uniform buffer
 * of its own (`bindingBuffer<id>_object_...`), freed only when its mesh, material or the lights go.
 */

import { Mesh, PerspectiveCamera, PlaneGeometry, Scene } from 'three';
import { MeshBasicNodeMaterial } from 'three/webgpu';
import { ProceduralTileSource } from '../../../../src/sources';
import { VirtualTextureSystem, virtualTexture } from '../../../../src/three';
import { createTestRenderer } from '../../support/renderer';

const renderer = await createTestRenderer(64, 64);
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: 16 * 2 ** 20,
  layers: ['rgba8unorm-srgb', 'rgba8unorm'], // the procedural world's albedo and normal
});
const vt = vts.add(new ProceduralTileSource({ seed: 3, widthPages: 4 }));
const material = new MeshBasicNodeMaterial();
material.colorNode = virtualTexture(vt);
const scene = new Scene();
const camera = new PerspectiveCamera(50, 1, 0.1, 10);
camera.position.z = 1.5;
scene.add(new Mesh(new PlaneGeometry(1, 1), material));

async function frame(): Promise<void> {
  vts.update(camera, scene);
  renderer.render(scene, camera);
  await new Promise(requestAnimationFrame);
}

async function churn(frames: number, disposeMesh: boolean): Promise<void> {
  for (let i = 0; i < frames; i++) {
    const mesh = new Mesh(new PlaneGeometry(0.2, 0.2), material);
    mesh.position.x = ((i % 5) - 2) * 0.2;
    scene.add(mesh);
    await frame();
    scene.remove(mesh);
    mesh.geometry.dispose();
    if (disposeMesh) mesh.dispose();
  }
}

await frame();
Object.assign(globalThis, { harness: { churn, frame } });
document.title = 'ready';

/** What the page exposes as `globalThis.harness` (typed for the spec). */
export interface MeshLifetimeHarness {
  churn: typeof churn;
  frame: typeof frame;
}
