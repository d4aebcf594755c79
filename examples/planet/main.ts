/**
 * A planet: one virtual texture of the procedural world (7680 x 3840 texels, 64 x 32 pages of
 * 120², generated in Web Workers) on a sphere, its `albedo` layer as the colour and its `normal`
 * layer lighting the surface through `normalMap()` in a standard node material. Drag to orbit, wheel
 * to come closer: the pages the view needs stream in at the mip it needs. `window.example` is for
 * the smoke test.
 */
import { VirtualTextureSystem, virtualTexture, WorkerProceduralTileSource } from '@tessera-vt/tessera';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { normalMap, vec2 } from 'three/tsl';
import {
  AmbientLight,
  DirectionalLight,
  Mesh,
  MeshStandardNodeMaterial,
  PerspectiveCamera,
  Scene,
  SphereGeometry,
  WebGPURenderer,
} from 'three/webgpu';

const forceWebGL = new URLSearchParams(location.search).get('backend') === 'webgl';
const renderer = new WebGPURenderer({ forceWebGL });
document.body.appendChild(renderer.domElement);
await renderer.init();

// The world's two layers: sRGB colour and a linear tangent-space normal map.
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: 96 * 2 ** 20,
  filtering: 'trilinear',
  layers: [
    { name: 'albedo', format: 'rgba8unorm-srgb' },
    { name: 'normal', format: 'rgba8unorm' },
  ],
});
const errors: string[] = [];
vts.events.on('error', (event) => errors.push(`${event.error.code}: ${event.error.message}`));
const world = vts.add(new WorkerProceduralTileSource({ seed: 7, widthPages: 64, heightPages: 32 }));

// One sampling node for both layers, so the feedback pass sees one texture.
const surface = virtualTexture(world);
const material = new MeshStandardNodeMaterial({ roughness: 0.9 });
material.colorNode = surface;
// The relief exaggerated 4x: seen from orbit the world's slopes are too gentle to read.
const relief = () => normalMap(surface.layer('normal'), vec2(4));
material.normalNode = relief();
const scene = new Scene();
scene.add(new Mesh(new SphereGeometry(1, 128, 64), material));
const sun = new DirectionalLight(0xffffff, 3);
sun.position.set(-3, 1, 2);
scene.add(sun, new AmbientLight(0x8090a0, 0.4));

const camera = new PerspectiveCamera(45, 1, 0.01, 100);
camera.position.set(0, 0.5, 2.6);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = true;
controls.minDistance = 1.05;
controls.maxDistance = 8;
controls.zoomSpeed = 0.5;
function resize(): void {
  renderer.setSize(innerWidth, innerHeight);
  camera.aspect = innerWidth / innerHeight;
  camera.updateProjectionMatrix();
}
addEventListener('resize', resize);
resize();

renderer.setAnimationLoop(() => {
  controls.update();
  vts.update(camera, scene);
  renderer.render(scene, camera);
});

(window as unknown as { example: object }).example = {
  stats: () => ({ ...vts.stats(), ready: vts.isReady, settled: vts.isSettled, errors }),
  /** Lights with the normal layer (`true`) or with the sphere's own normals. */
  setNormalMapping(on: boolean): void {
    material.normalNode = on ? relief() : null;
    material.needsUpdate = true;
  },
};
