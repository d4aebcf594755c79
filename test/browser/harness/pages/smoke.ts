import {
  DataTexture,
  Mesh,
  NearestFilter,
  OrthographicCamera,
  PlaneGeometry,
  RGBAFormat,
  Scene,
  SRGBColorSpace,
} from 'three';
import { MeshBasicNodeMaterial, RenderTarget } from 'three/webgpu';
import { createTestRenderer, gpuDevice } from '../../support/renderer';

/** Quadrant colours of the 2x2 test texture, bottom-left first (DataTexture rows start at v = 0). */
const QUADRANTS = [
  [255, 0, 0, 255],
  [0, 255, 0, 255],
  [0, 0, 255, 255],
  [255, 255, 255, 255],
];

const SIZE = 64;
const renderer = await createTestRenderer(SIZE, SIZE);

const texture = new DataTexture(new Uint8Array(QUADRANTS.flat()), 2, 2, RGBAFormat);
texture.name = 'tessera-test:smoke';
texture.magFilter = NearestFilter;
texture.minFilter = NearestFilter;
texture.colorSpace = SRGBColorSpace;
texture.needsUpdate = true;

const scene = new Scene();
scene.add(new Mesh(new PlaneGeometry(2, 2), new MeshBasicNodeMaterial({ map: texture })));
const camera = new OrthographicCamera(-1, 1, 1, -1, 0, 2);
camera.position.z = 1;

const target = new RenderTarget(SIZE, SIZE);
target.texture.name = 'tessera-test:smoke-target';

/** Renders to the canvas and to a render target; returns the target's RGBA pixels (rows from the bottom). */
async function renderAndRead(): Promise<number[]> {
  renderer.render(scene, camera);
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  const pixels = await renderer.readRenderTargetPixelsAsync(target, 0, 0, SIZE, SIZE);
  return Array.from(pixels as Uint8Array);
}

Object.assign(globalThis, {
  smoke: { renderAndRead, size: SIZE, quadrants: QUADRANTS, device: gpuDevice(renderer) },
});
document.title = 'ready';
