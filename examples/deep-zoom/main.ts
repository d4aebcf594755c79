/**
 * A photograph baked with `tessera bake` (3840 x 1920 texels here; any size works) viewed as
 * OpenSeadragon users expect: wheel zoom about the cursor, drag pan, double-click zoom (shift:
 * out), eased. The first view is the pinned coarse mip, shown as soon as it arrives; finer pages
 * stream in as the zoom needs them. `window.example` is for the smoke test.
 */
import { ArchiveTileSource, VirtualTextureSystem, virtualTexture } from '@tessera-vt/tessera';
import { MathUtils, Mesh, OrthographicCamera, PlaneGeometry, Scene } from 'three';
import { MeshBasicNodeMaterial, WebGPURenderer } from 'three/webgpu';

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

// At zoom 1 the frustum shows the whole photo; `view` is where the camera eases to.
const camera = new OrthographicCamera();
camera.position.z = 1;
const view = { x: 0, y: 0, zoom: 0.95 };
/** World units per screen pixel at `zoom`. */
const unitsPerPixel = (zoom: number) => (camera.top - camera.bottom) / innerHeight / zoom;
function resize(): void {
  renderer.setSize(innerWidth, innerHeight);
  const aspect = innerWidth / innerHeight;
  camera.top = Math.max(photo.aspect / aspect, 1) / 2;
  camera.bottom = -camera.top;
  camera.right = camera.top * aspect;
  camera.left = -camera.right;
}
/** Keeps the view's centre on the photo, so it cannot be dragged out of sight. */
function constrain(): void {
  view.x = MathUtils.clamp(view.x, -photo.aspect / 2, photo.aspect / 2);
  view.y = MathUtils.clamp(view.y, -0.5, 0.5);
}
/** Multiplies the zoom by `factor`, keeping the point under client pixel (px, py) in place. */
function zoomAbout(px: number, py: number, factor: number): void {
  const before = unitsPerPixel(view.zoom);
  const maxZoom = 4 * photo.contentHeight * unitsPerPixel(1); // 4 screen pixels per texel
  view.zoom = MathUtils.clamp(view.zoom * factor, 0.5, maxZoom);
  const shift = before - unitsPerPixel(view.zoom);
  view.x += (px - innerWidth / 2) * shift;
  view.y += (innerHeight / 2 - py) * shift;
  constrain();
}

const canvas = renderer.domElement;
const wheel = (e: WheelEvent) => {
  e.preventDefault();
  zoomAbout(e.clientX, e.clientY, Math.exp(-e.deltaY * 0.002));
};
canvas.addEventListener('wheel', wheel, { passive: false });
canvas.addEventListener('dblclick', (e) => zoomAbout(e.clientX, e.clientY, e.shiftKey ? 0.5 : 2));
let drag: PointerEvent | null = null;
canvas.addEventListener('pointerdown', (e) => {
  drag = e;
});
addEventListener('pointerup', () => {
  drag = null;
});
addEventListener('pointermove', (e) => {
  if (drag === null) return;
  view.x -= (e.clientX - drag.clientX) * unitsPerPixel(view.zoom);
  view.y += (e.clientY - drag.clientY) * unitsPerPixel(view.zoom);
  constrain();
  drag = e;
});
addEventListener('resize', resize);
resize();

/** A third of the way from `from` to `to`; `to` itself once closer than a millionth. */
const ease = (from: number, to: number) => (Math.abs(to - from) < 1e-6 ? to : from + (to - from) / 3);
let firstViewFrame = -1;
renderer.setAnimationLoop(() => {
  camera.position.x = ease(camera.position.x, view.x);
  camera.position.y = ease(camera.position.y, view.y);
  camera.zoom = Math.exp(ease(Math.log(camera.zoom), Math.log(view.zoom)));
  camera.updateProjectionMatrix();
  vts.update(camera, scene);
  renderer.render(scene, camera);
  if (firstViewFrame < 0 && vts.isReady) firstViewFrame = vts.currentFrame;
});

(window as unknown as { example: object }).example = {
  view: () => ({ ...view, firstViewFrame, settled: vts.isSettled }),
  /** Resident pages per mip (index = mip). */
  residentMips(): number[] {
    return vts.residentPagesByMip(photo);
  },
};
