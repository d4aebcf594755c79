import {
  DataTexture,
  Mesh,
  PerspectiveCamera,
  PlaneGeometry,
  RepeatWrapping,
  Scene,
  SRGBColorSpace,
} from 'three';
import { MeshBasicNodeMaterial, WebGPURenderer } from 'three/webgpu';

// Placeholder scene until the open-world demo lands: a textured plane on WebGPURenderer,
// WebGPU by default, WebGL2 with ?backend=webgl.
const params = new URLSearchParams(location.search);
const renderer = new WebGPURenderer({ forceWebGL: params.get('backend') === 'webgl', antialias: true });
renderer.setPixelRatio(Math.min(devicePixelRatio, 2));
renderer.setSize(innerWidth, innerHeight);
document.body.appendChild(renderer.domElement);
await renderer.init();

const size = 256;
const texels = new Uint8Array(size * size * 4);
for (let y = 0; y < size; y++) {
  for (let x = 0; x < size; x++) {
    const checker = ((x >> 5) ^ (y >> 5)) & 1;
    const i = (y * size + x) * 4;
    texels[i] = checker ? 220 : 40;
    texels[i + 1] = 80 + (x >> 1);
    texels[i + 2] = 80 + (y >> 1);
    texels[i + 3] = 255;
  }
}
const texture = new DataTexture(texels, size, size);
texture.name = 'demo:checker';
texture.colorSpace = SRGBColorSpace;
texture.wrapS = texture.wrapT = RepeatWrapping;
texture.repeat.set(8, 8);
texture.generateMipmaps = true;
texture.needsUpdate = true;

const scene = new Scene();
const plane = new Mesh(new PlaneGeometry(200, 200), new MeshBasicNodeMaterial({ map: texture }));
plane.rotation.x = -Math.PI / 2;
scene.add(plane);

const camera = new PerspectiveCamera(60, innerWidth / innerHeight, 0.1, 1000);
camera.position.set(0, 12, 40);
camera.lookAt(0, 0, 0);

addEventListener('resize', () => {
  camera.aspect = innerWidth / innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(innerWidth, innerHeight);
});

const status = document.getElementById('status')!;
status.textContent = `Tessera placeholder scene — ${(renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend ? 'WebGPU' : 'WebGL2'}`;
renderer.setAnimationLoop((time: number) => {
  camera.position.x = Math.sin(time / 4000) * 40;
  camera.lookAt(0, 0, 0);
  renderer.render(scene, camera);
});
