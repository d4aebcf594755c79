/**
 * Fifteen KTX2 textures (the demo's prop atlases, 176 MiB when fully resident) streamed by Tessera
 * under one budget that a slider sets: each texture keeps the mips its plane's screen size needs
 * and the budget allows. `window.example` is for the smoke test. (This page becomes a glTF scene
 * under a budget slider once the glTF streaming plugin lands.)
 */
import { Ktx2Source, TextureBudget, TextureStreamingSystem } from 'tessera';
import {
  Mesh,
  MeshBasicNodeMaterial,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  WebGPURenderer,
} from 'three/webgpu';

const MIB = 1024 * 1024;
const REGIONS = ['valley', 'desert', 'snowfield'];
const SURFACES = ['leaves', 'bark', 'rock', 'wall', 'roof'];
const query = new URLSearchParams(location.search);
const slider = document.getElementById('budget') as HTMLInputElement;
const figures = document.getElementById('figures')!;
// The examples server serves assets/ at its root; the test server serves the repository.
const assetBase = location.pathname.startsWith('/examples/') ? '/assets/' : '/';

const renderer = new WebGPURenderer({ forceWebGL: query.get('backend') === 'webgl' });
renderer.setSize(innerWidth, innerHeight);
document.body.appendChild(renderer.domElement);
const scene = new Scene();
const camera = new PerspectiveCamera(50, innerWidth / innerHeight, 0.1, 100);
camera.position.set(0, 0, 5.5);
const budget = new TextureBudget({ budgetBytes: Number(slider.value) * MIB });
let streaming: TextureStreamingSystem | null = null;

async function start(): Promise<void> {
  await renderer.init();
  const system = new TextureStreamingSystem(renderer, { budget });
  streaming = system;
  const geometry = new PlaneGeometry(1.8, 1.8);
  const files = REGIONS.flatMap((r) => SURFACES.map((s) => `${assetBase}props/${r}-${s}.ktx2`));
  const sources = await Promise.all(files.map((url) => Ktx2Source.fromUrl(url)));
  sources.forEach((source, i) => {
    const mesh = new Mesh(geometry, new MeshBasicNodeMaterial());
    mesh.position.set((i % 5) * 2 - 4, 2 - Math.floor(i / 5) * 2, 0);
    scene.add(mesh);
    system.attach(mesh, system.createTexture(source, { name: files[i] }), 'map');
  });
  renderer.setAnimationLoop(() => {
    system.update(camera, scene);
    renderer.render(scene, camera);
    figures.textContent = `${(budget.liveBytes / MIB).toFixed(1)} / ${budget.budgetBytes / MIB} MiB`;
  });
}

slider.addEventListener('input', () => budget.setBudget(Number(slider.value) * MIB));
addEventListener('resize', () => {
  renderer.setSize(innerWidth, innerHeight);
  camera.aspect = innerWidth / innerHeight;
  camera.updateProjectionMatrix();
});

const ready = start();
(window as unknown as { example: object }).example = {
  ready,
  stats: () => ({ ...budget.stats(), textures: streaming?.stats().textures ?? 0 }),
};
