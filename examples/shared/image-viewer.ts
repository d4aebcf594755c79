/**
 * Pan and zoom over a flat image, as OpenSeadragon users expect: wheel zoom about the cursor, drag
 * pan, double-click zoom (shift: out), eased; an orthographic camera over a plane `aspect` wide
 * and 1 high, centred at the origin. Shared by the deep-zoom and COG examples.
 */
import { MathUtils, OrthographicCamera } from 'three';

/** The view the camera eases to: centre (plane units) and zoom (1: the whole plane fits). */
export interface ImageView {
  x: number;
  y: number;
  zoom: number;
}

/**
 * Hooks wheel, drag and double-click on `canvas` to a view of a plane `aspect` wide, at most
 * `maxZoom` (4 screen pixels per texel of `texelsHigh` by default). Call `step()` once a frame
 * before rendering: it eases the camera towards the view and keeps the drawing buffer sized.
 */
export function imageViewer(
  canvas: HTMLCanvasElement,
  aspect: number,
  texelsHigh: number,
  setSize: (width: number, height: number) => void,
) {
  const camera = new OrthographicCamera();
  camera.position.z = 1;
  const view: ImageView = { x: 0, y: 0, zoom: 0.95 };
  /** World units per screen pixel at `zoom`. */
  const unitsPerPixel = (zoom: number) => (camera.top - camera.bottom) / innerHeight / zoom;
  const resize = () => {
    setSize(innerWidth, innerHeight);
    const screenAspect = innerWidth / innerHeight;
    camera.top = Math.max(aspect / screenAspect, 1) / 2;
    camera.bottom = -camera.top;
    camera.right = camera.top * screenAspect;
    camera.left = -camera.right;
  };
  /** Keeps the view's centre on the image, so it cannot be dragged out of sight. */
  const constrain = () => {
    view.x = MathUtils.clamp(view.x, -aspect / 2, aspect / 2);
    view.y = MathUtils.clamp(view.y, -0.5, 0.5);
  };
  /** Multiplies the zoom by `factor`, keeping the point under client pixel (px, py) in place. */
  const zoomAbout = (px: number, py: number, factor: number) => {
    const before = unitsPerPixel(view.zoom);
    const maxZoom = 4 * texelsHigh * unitsPerPixel(1);
    view.zoom = MathUtils.clamp(view.zoom * factor, 0.5, maxZoom);
    const shift = before - unitsPerPixel(view.zoom);
    view.x += (px - innerWidth / 2) * shift;
    view.y += (innerHeight / 2 - py) * shift;
    constrain();
  };
  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      zoomAbout(e.clientX, e.clientY, Math.exp(-e.deltaY * 0.002));
    },
    { passive: false },
  );
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
  return {
    camera,
    view,
    /** Eases the camera a step towards the view. */
    step(): void {
      camera.position.x = ease(camera.position.x, view.x);
      camera.position.y = ease(camera.position.y, view.y);
      camera.zoom = Math.exp(ease(Math.log(camera.zoom), Math.log(view.zoom)));
      camera.updateProjectionMatrix();
    },
  };
}
