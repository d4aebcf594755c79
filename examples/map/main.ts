/**
 * Web-map imagery on a globe: XYZ tiles (`?source=pmtiles`: the same tiles as one PMTiles archive;
 * `?tiles=https://…/{z}/{x}/{y}.png&maxZoom=18`: any XYZ server) streamed with no baking through
 * `ImageryGlobe`, which keeps a whole-world virtual texture and, for zooms deeper than one texture
 * holds, regional ones around the camera. Drag to orbit, wheel from the whole Earth down to street
 * level; only the tiles the view needs are fetched, at the zoom it needs. The imagery's credit line
 * is shown in a corner. `window.example` is for the smoke test.
 */
import { VirtualTextureSystem } from '@tessera-vt/tessera';
import { openPmtilesPyramid, openXyzPyramid } from '@tessera-vt/tessera/imagery';
import { ImageryGlobe } from '@tessera-vt/tessera/three';
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
const tiles = params.get('tiles');
const pyramid =
  tiles !== null
    ? await openXyzPyramid(tiles, { maxZoom: Number(params.get('maxZoom') ?? 18) })
    : params.get('source') === 'pmtiles'
      ? await openPmtilesPyramid(`${base}earth.pmtiles`)
      : await openXyzPyramid(`${base}xyz/tiles.json`);
// Pages of 264 with a border of 4: one 256-texel tile each.
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: 96 * 2 ** 20,
  tileSize: 264,
  border: 4,
  filtering: 'trilinear',
});
const errors: string[] = [];
vts.events.on('error', (event) => errors.push(`${event.error.code}: ${event.error.message}`));
const globe = new ImageryGlobe(vts, pyramid);
const material = new MeshBasicNodeMaterial();
material.colorNode = globe.colorNode();
const scene = new Scene();
scene.add(new Mesh(new SphereGeometry(1, 128, 64), material));
(document.getElementById('attribution') as HTMLElement).textContent = pyramid.info.attribution ?? '';

const camera = new PerspectiveCamera(45, 1, 0.01, 100);
camera.position.set(0, 1, 2.8);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = true;
controls.minDistance = 1 + 3e-6; // about 20 m above the ground
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
  globe.update(camera);
  vts.update(camera, scene);
  renderer.render(scene, camera);
});

(window as unknown as { example: object }).example = {
  stats: () => ({
    altitude: camera.position.length() - 1,
    settled: vts.isSettled,
    // The whole-world texture's pages per mip (regions: globe.cascade).
    residentMips: vts.residentPagesByMip(
      globe.cascade[0].texture as NonNullable<(typeof globe.cascade)[0]['texture']>,
    ),
    attribution: document.getElementById('attribution')?.textContent,
    errors,
  }),
};
