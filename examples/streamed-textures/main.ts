/**
 * A glTF scene (`assets/examples/village.glb`: three settlements whose fifteen materials use the
 * demo's prop atlases, 176 MiB when fully resident) loaded by three's `GLTFLoader` with Tessera's
 * glTF plugin: every texture is streamed from its KTX2 file by HTTP Range under one budget that a
 * slider sets, each keeping the mips its meshes' screen size needs and the budget allows. Drag to
 * orbit, wheel to come closer. `window.example` is for the smoke test.
 */
import { registerGltfTextureStreaming, TesseraRuntime, TextureStreamingSystem } from '@tessera-vt/tessera';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { DirectionalLight, HemisphereLight, PerspectiveCamera, Scene, WebGPURenderer } from 'three/webgpu';

const MIB = 1024 * 1024;
const query = new URLSearchParams(location.search);
const slider = document.getElementById('budget') as HTMLInputElement;
const figures = document.getElementById('figures')!;
// The examples server serves assets/ at its root; the test server serves the repository.
const assetBase = location.pathname.startsWith('/examples/') ? '/assets/' : '/';

const renderer = new WebGPURenderer({ forceWebGL: query.get('backend') === 'webgl' });
document.body.appendChild(renderer.domElement);
const scene = new Scene();
const sun = new DirectionalLight(0xffffff, 2);
sun.position.set(3, 6, 4);
scene.add(sun, new HemisphereLight(0xbcd4ff, 0x5a4a3a, 1.2));
const camera = new PerspectiveCamera(45, 1, 0.1, 100);
camera.position.set(0, 2.4, 6.4);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0.8, 0);
controls.enableDamping = true;
const runtime = new TesseraRuntime({ budgetBytes: Number(slider.value) * MIB });
const budget = runtime.budget;
let streaming: TextureStreamingSystem | null = null;

async function start(): Promise<void> {
  await renderer.init();
  const system = new TextureStreamingSystem(renderer, { runtime });
  streaming = system;
  const loader = new GLTFLoader();
  registerGltfTextureStreaming(loader, system, { tag: 'scene:village' });
  const village = await loader.loadAsync(`${assetBase}examples/village.glb`);
  scene.add(village.scene);
  renderer.setAnimationLoop(() => {
    controls.update();
    runtime.update(camera, scene);
    renderer.render(scene, camera);
    figures.textContent = `${(budget.liveBytes / MIB).toFixed(1)} / ${budget.budgetBytes / MIB} MiB`;
  });
}

function resize(): void {
  renderer.setSize(innerWidth, innerHeight);
  camera.aspect = innerWidth / innerHeight;
  camera.updateProjectionMatrix();
}
slider.addEventListener('input', () => budget.setBudget(Number(slider.value) * MIB));
addEventListener('resize', resize);
resize();

const ready = start();
(window as unknown as { example: object }).example = {
  ready,
  stats: () => ({ ...budget.stats(), textures: streaming?.stats().textures ?? 0 }),
};
