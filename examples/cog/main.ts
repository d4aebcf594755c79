/**
 * A Cloud-Optimized GeoTIFF streamed as a virtual texture, with no baking: its internal tiles and
 * overviews are read by HTTP Range as the view needs them (one request per tile), decoded in
 * workers, and composed into pages whose borders come from the neighbouring tiles. Pan and zoom
 * as in the deep-zoom example. `window.example` is for the smoke test.
 *
 * At full zoom the image shows a grid of 128-pixel squares: the source's JPEG blocks. The COG
 * (`bake-cog.ts`) is Debian's 2048 x 1024 Earth map magnified 4x, so each 8 x 8 block of that JPEG
 * covers 32 x 32 texels, 128 screen pixels at the viewer's 4 pixels a texel. The steps across
 * those block edges are 1.6x the steps elsewhere in the magnified map before it is written, so
 * they come from the source, not from the COG's tiles (256 texels) or Tessera's pages (248).
 */
import { VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { ImageryTileSource, openCogPyramid } from '@tessera-vt/tessera/imagery';
import { Mesh, PlaneGeometry, Scene } from 'three';
import { MeshBasicNodeMaterial, WebGPURenderer } from 'three/webgpu';
import { imageViewer } from '../shared/image-viewer';

// The examples server serves assets/ at its root; the test server serves the repository.
const assetBase = location.pathname.startsWith('/examples/') ? '/assets/' : '/';
const forceWebGL = new URLSearchParams(location.search).get('backend') === 'webgl';
const renderer = new WebGPURenderer({ forceWebGL });
document.body.appendChild(renderer.domElement);
await renderer.init();

// Pages of 256 texels (248 inside a 4-texel border): about one JPEG tile of the COG each.
const vts = new VirtualTextureSystem(renderer, {
  budgetBytes: 48 * 2 ** 20,
  filtering: 'trilinear',
  tileSize: 256,
  border: 4,
});
const cog = await openCogPyramid(`${assetBase}examples/earth-8192x4096.tif`);
const earth = vts.add(new ImageryTileSource(cog)); // pages cut to the system's 256 / 4
const material = new MeshBasicNodeMaterial();
material.colorNode = virtualTexture(earth);
const scene = new Scene();
scene.add(new Mesh(new PlaneGeometry(earth.aspect, 1), material));

const viewer = imageViewer(renderer.domElement, earth.aspect, earth.contentHeight, (w, h) =>
  renderer.setSize(w, h),
);
let firstViewFrame = -1;
renderer.setAnimationLoop(() => {
  viewer.step();
  vts.update(viewer.camera, scene);
  renderer.render(scene, viewer.camera);
  if (firstViewFrame < 0 && vts.isReady) firstViewFrame = vts.frameNumber;
});

(window as unknown as { example: object }).example = {
  view: () => ({ ...viewer.view, firstViewFrame, settled: vts.isSettled }),
  /** Resident pages per mip (index = mip). */
  residentMips(): number[] {
    return vts.residentPagesByMip(earth);
  },
};
