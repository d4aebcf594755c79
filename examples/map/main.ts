/**
 * Web-map imagery on a globe: XYZ tiles (`?source=pmtiles`: the same tiles as one PMTiles archive)
 * streamed as a virtual texture with no baking, drawn on a sphere through `webMercatorUv()`. Drag
 * to orbit, wheel from the whole Earth down to the finest zoom's tiles magnified; only the tiles
 * the view needs are fetched, at the zoom it needs. The imagery's credit line is shown in a
 * corner. `window.example` is for the smoke test.
 */
import { VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { ImageryTileSource, openPmtilesPyramid, openXyzPyramid } from '@tessera-vt/tessera/imagery';
import { webMercatorUv } from '@tessera-vt/tessera/three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import {
  Mesh,
  MeshBasicNodeMaterial,
  PerspectiveCamera,
  Scene,
  SphereGeometry,
  WebGPURenderer,
} from 'three/webgpu';

// The examples server serves assets/ at its root; the test server serves the repository.
const assetBase = location.pathname.startsWith('/examples/') ? '/assets/' : '/';
const params = new URLSearchParams(location.search);
const renderer = new WebGPURenderer({ forceWebGL: params.get('backend') === 'webgl' });
document.body.appendChild(renderer.domElement);
await renderer.init();

const base = new URL(`${assetBase}examples/map/`, location.href).href;
// An XYZ server's TileJSON names its template, zooms and credit line; a PMTiles archive holds them.
const pyramid =
  params.get('source') === 'pmtiles'
    ? await openPmtilesPyramid(`${base}earth.pmtiles`)
    : await openXyzPyramid(`${base}xyz/tiles.json`);
const vts = new VirtualTextureSystem(renderer, { budgetBytes: 64 * 2 ** 20, filtering: 'trilinear' });
const errors: string[] = [];
vts.events.on('error', (event) => errors.push(`${event.error.code}: ${event.error.message}`));
const earth = vts.add(new ImageryTileSource(pyramid));
const material = new MeshBasicNodeMaterial();
material.colorNode = virtualTexture(earth, webMercatorUv());
const scene = new Scene();
scene.add(new Mesh(new SphereGeometry(1, 128, 64), material));
(document.getElementById('attribution') as HTMLElement).textContent = pyramid.info.attribution ?? '';

const camera = new PerspectiveCamera(45, 1, 0.01, 100);
camera.position.set(0, 1, 2.8);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = true;
controls.minDistance = 1.0005;
controls.maxDistance = 6;
function resize(): void {
  renderer.setSize(innerWidth, innerHeight);
  camera.aspect = innerWidth / innerHeight;
  camera.updateProjectionMatrix();
}
addEventListener('resize', resize);
resize();

renderer.setAnimationLoop(() => {
  // Wheel and drag move by a share of the altitude, so zooming from orbit to the ground takes
  // steps of the same feel; the near plane follows the ground.
  const altitude = camera.position.length() - 1;
  controls.zoomSpeed = Math.min(2, (4 * altitude) / (1 + altitude));
  controls.rotateSpeed = Math.min(1, altitude);
  camera.near = altitude / 10;
  camera.updateProjectionMatrix();
  controls.update();
  vts.update(camera, scene);
  renderer.render(scene, camera);
});

(window as unknown as { example: object }).example = {
  stats: () => ({
    altitude: camera.position.length() - 1,
    settled: vts.isSettled,
    residentMips: vts.residentPagesByMip(earth),
    attribution: document.getElementById('attribution')?.textContent,
    errors,
  }),
};
