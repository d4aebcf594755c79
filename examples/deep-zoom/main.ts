/**
 * A photograph baked with `tessera bake` (3840 x 1920 texels here; any size works) viewed as
 * OpenSeadragon users expect: wheel zoom about the cursor, drag pan, double-click zoom (shift:
 * out), eased. The first view is the pinned coarse mip, shown as soon as it arrives; finer pages
 * stream in as the zoom needs them. `window.example` is for the smoke test.
 */
import { ArchiveTileSource, VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { Mesh, PlaneGeometry, Scene } from 'three';
import { MeshBasicNodeMaterial, WebGPURenderer } from 'three/webgpu';
import { imageViewer } from '../shared/image-viewer';

// The examples server serves assets/ at its root; the test server serves the repository.
const assetBase = location.pathname.startsWith('/examples/') ? '/assets/' : '/';
const forceWebGL = new URLSearchParams(location.search).get('backend') === 'webgl';
const renderer = new WebGPURenderer({ forceWebGL });
document.body.appendChild(renderer.domElement);
await renderer.init();

const vts = new VirtualTextureSystem(renderer, { budgetBytes: 64 * 2 ** 20, filtering: 'trilinear' });
const photo = vts.add(await ArchiveTileSource.openUrl(`${assetBase}examples/photo-3840x1920.tsva`));
const material = new MeshBasicNodeMaterial();
material.colorNode = virtualTexture(photo);
const scene = new Scene();
scene.add(new Mesh(new PlaneGeometry(photo.aspect, 1), material));

const viewer = imageViewer(renderer.domElement, photo.aspect, photo.contentHeight, (w, h) =>
  renderer.setSize(w, h),
);
let firstViewFrame = -1;
renderer.setAnimationLoop(() => {
  viewer.step();
  vts.update(viewer.camera, scene);
  renderer.render(scene, viewer.camera);
  if (firstViewFrame < 0 && vts.isReady) firstViewFrame = vts.currentFrame;
});

(window as unknown as { example: object }).example = {
  view: () => ({ ...viewer.view, firstViewFrame, settled: vts.isSettled }),
  /** Resident pages per mip (index = mip). */
  residentMips(): number[] {
    return vts.residentPagesByMip(photo);
  },
};
