/**
 * Comparison mode's side-by-side close-up: the centre of the view, magnified, rendered twice through
 * the app's renderer in the same frame, from the same camera, into two small render targets: once
 * with the terrain's own material (Tessera) and once with the terrain as plain three.js draws it,
 * terrain only (props and gates hidden for the two renders). Both captures are read back, shown as
 * two labelled canvases and measured (`sharpness-measure.ts`), so each figure is computed on the
 * pixels shown above it.
 *
 * The plain side shows the same content with the same memory: on the default rendered terrain,
 * `plain-three-terrain.ts` (the runtime virtual texture's own layers, decals included, baked into
 * one mipmapped texture per layer as large as the virtual texture's bytes allow, rebaked each time
 * the mode turns on); on the CPU world and the archives, whose content is the procedural world,
 * the stand-in (`terrain/stand-in-surface.ts`, what `?vt=0` shows: the world's coarse mip in one
 * texture).
 *
 * Cheap by construction: it runs only while comparison mode is on, at {@link INSET_WIDTH} x
 * {@link INSET_HEIGHT}, once every {@link CAPTURE_FRAMES} frames, with one readback pair in flight
 * at most. Its render targets are reserved in Tessera's budget (`other`); the stand-in texture is
 * not (plain three.js has no budget) and is reported as outside it.
 */

import type { TextureBudget } from '@tessera-vt/tessera';
import type { ProceduralWorld } from '@tessera-vt/tessera/sources';
import type { RenderedTileSource } from '@tessera-vt/tessera/three';
import {
  type Camera,
  Light,
  type Material,
  Mesh,
  type Object3D,
  PerspectiveCamera,
  RenderTarget,
  type Scene,
} from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { StandInTerrainSurface } from '../terrain/stand-in-surface';
import { PlainThreeTerrain } from './plain-three-terrain';
import { encodeCapture, meanLuminanceGradient } from './sharpness-measure';

/** Capture size, pixels (each side of the pair). */
export const INSET_WIDTH = 192;
export const INSET_HEIGHT = 120;
/** Magnification of the view centre: the inset's field of view is the camera's divided by this. */
export const INSET_ZOOM = 2;
/** Frames between captures while comparison mode is on. */
export const CAPTURE_FRAMES = 10;

/** What the inset measured, `demo.stats().comparison.sharpness`. */
export interface SharpnessFigures {
  /**
   * High-frequency energy of the latest capture, Tessera's terrain and the plain three.js stand-in:
   * mean absolute luminance step between neighbouring pixels (sRGB, 0..255 per pixel); null before
   * the first capture (or while the budget has no room for the inset).
   */
  tessera: number | null;
  plainThree: number | null;
  /** Captures measured since load. */
  captures: number;
  /** Capture size, pixels, and magnification of the view centre. */
  width: number;
  height: number;
  zoom: number;
  /** The inset's render targets, reserved in Tessera's budget (`other`), bytes; 0 while not allocated. */
  insetBytes: number;
  /** The plain side's terrain textures (rgba8 with mips, all layers), outside Tessera's budget, bytes; 0 until built. */
  standInBytes: number;
  /** Edge of the plain side's texture, texels (what plain three.js draws the terrain with here). */
  standInEdge: number;
  /**
   * What the plain side draws: `same-content` (the rendered terrain's own layers baked into
   * ordinary textures with the virtual texture's bytes) or `procedural-world` (the stand-in: the
   * CPU world's coarse mip, the content of the procedural and archive sources).
   */
  plainContent: 'same-content' | 'procedural-world';
  /** The virtual texture's bytes in the budget when the plain side was built (what it was given). */
  tesseraTerrainBytes: number;
}

/** The close-up pair and its two labelled canvases (`data-compare="tessera"` / `"plain-three"`). */
export class SharpnessInset {
  /** Container of both captures, bottom right (`data-compare="inset"`). */
  readonly element = document.createElement('div');
  readonly figures: SharpnessFigures = {
    tessera: null,
    plainThree: null,
    captures: 0,
    width: INSET_WIDTH,
    height: INSET_HEIGHT,
    zoom: INSET_ZOOM,
    insetBytes: 0,
    standInBytes: 0,
    standInEdge: 0,
    plainContent: 'procedural-world',
    tesseraTerrainBytes: 0,
  };
  private readonly camera = new PerspectiveCamera();
  private readonly panes: Pane[];
  private targets: [RenderTarget, RenderTarget] | null = null;
  private standIn: { material: Material; dispose(): void } | null = null;
  private plainThree: PlainThreeTerrain | null = null;
  private wasOn = false;
  private reservation = -1;
  private framesToCapture = 0;
  private inFlight = false;
  private readonly hidden: Object3D[] = [];

  /**
   * @param flipRows true on WebGL2, whose readbacks run bottom-up.
   * @param onError where a failed capture goes (the app's error list); the inset keeps running.
   */
  constructor(
    private readonly renderer: WebGPURenderer,
    private readonly budget: TextureBudget,
    private readonly world: ProceduralWorld,
    private readonly terrain: Object3D,
    private readonly flipRows: boolean,
    private readonly onError: (error: unknown) => void,
    /** The rendered terrain's source (the default), or null for the procedural and archive sources. */
    private readonly rendered: RenderedTileSource | null = null,
    /** The device's largest 2D texture, texels. */
    private readonly maxTextureDimension = 8192,
  ) {
    this.element.dataset.compare = 'inset';
    this.element.style.cssText =
      // Left of the lil-gui panel (245 px wide), like the residency map; each pane at most 16% of
      // the window's width so the pair fits small windows.
      'position:fixed;right:262px;bottom:8px;display:none;gap:4px;font:10px system-ui,sans-serif;color:#eef;pointer-events:none;z-index:6';
    this.panes = [
      new Pane('tessera', 'Tessera (virtual texture)'),
      new Pane('plain-three', 'plain three.js (one texture)'),
    ];
    for (const pane of this.panes) this.element.appendChild(pane.element);
    document.body.appendChild(this.element);
  }

  /**
   * Called after the frame's render. While `on`, captures every {@link CAPTURE_FRAMES} frames; off,
   * hides the pair and frees its render targets' reservation (the stand-in texture is kept, outside
   * the budget, so turning the mode on again costs no rebuild).
   */
  update(on: boolean, camera: Camera, scene: Scene): void {
    this.element.style.display = on ? 'flex' : 'none';
    const turnedOn = on && !this.wasOn;
    this.wasOn = on;
    if (!on) {
      this.releaseTargets();
      return;
    }
    // Capture at once when the mode turns on (the plain side is rebaked then).
    if (turnedOn) this.framesToCapture = 0;
    if (this.inFlight || --this.framesToCapture > 0) return;
    this.framesToCapture = CAPTURE_FRAMES;
    if (!this.allocate()) return;
    this.capture(camera, scene);
  }

  /** Frees everything (render targets, their reservation, the stand-in texture, the DOM). */
  dispose(): void {
    this.releaseTargets();
    this.standIn?.dispose();
    this.plainThree?.dispose();
    this.element.remove();
  }

  private allocate(): boolean {
    if (this.targets) return true;
    // Colour rgba8 + a 32-bit depth buffer per target.
    const bytes = 2 * INSET_WIDTH * INSET_HEIGHT * 8;
    const handle = this.budget.tryReserve('other', bytes);
    if (handle < 0) {
      // No room: the inset waits for the next capture; nothing else is displaced.
      for (const pane of this.panes) pane.setLabel('no room in the budget');
      return false;
    }
    this.reservation = handle;
    this.figures.insetBytes = bytes;
    this.targets = [
      new RenderTarget(INSET_WIDTH, INSET_HEIGHT, { depthBuffer: true }),
      new RenderTarget(INSET_WIDTH, INSET_HEIGHT, { depthBuffer: true }),
    ];
    this.targets[0].texture.name = 'demo:compare-inset-tessera';
    this.targets[1].texture.name = 'demo:compare-inset-plain';
    const c = this.budget.stats().byCategory;
    const vtBytes = c['vt-pool'] + c['page-table'] + c.feedback + c.readback + c.staging;
    this.figures.tesseraTerrainBytes = vtBytes;
    if (this.rendered) {
      // Rebaked each time the mode turns on: the decals of that moment, and the memory the virtual
      // texture holds then.
      this.plainThree?.dispose();
      const plain = new PlainThreeTerrain(this.renderer, this.rendered, vtBytes, this.maxTextureDimension);
      plain.bake();
      this.plainThree = plain;
      this.standIn = plain;
      this.figures.plainContent = 'same-content';
      this.figures.standInBytes = plain.bytes;
      this.figures.standInEdge = plain.edgeTexels;
      this.panes[1].title = `plain three.js (one ${plain.edgeTexels}² texture per layer)`;
    } else if (!this.standIn) {
      const standIn = new StandInTerrainSurface(this.world);
      this.standIn = standIn;
      this.figures.plainContent = 'procedural-world';
      this.figures.standInBytes = standIn.stats().bytesByCategory.other ?? 0;
      this.figures.standInEdge = standIn.edgeTexels;
      this.panes[1].title = `plain three.js (one ${standIn.edgeTexels}² texture)`;
    }
    return true;
  }

  private releaseTargets(): void {
    if (!this.targets || this.inFlight) return;
    // The rendered side's plain textures go too (they are rebaked when the mode turns on again).
    if (this.plainThree) {
      this.plainThree.dispose();
      this.plainThree = null;
      this.standIn = null;
    }
    for (const target of this.targets) target.dispose();
    this.targets = null;
    this.budget.release(this.reservation);
    this.reservation = -1;
    this.figures.insetBytes = 0;
  }

  private capture(camera: Camera, scene: Scene): void {
    const targets = this.targets!;
    const view = this.camera;
    view.copy(camera as PerspectiveCamera);
    const fovRadians = (view.fov * Math.PI) / 180;
    view.fov = (2 * Math.atan(Math.tan(fovRadians / 2) / INSET_ZOOM) * 180) / Math.PI;
    view.aspect = INSET_WIDTH / INSET_HEIGHT;
    view.updateProjectionMatrix();
    // Terrain only: hide the scene's other objects (props, gates), keep lights and fog.
    this.hidden.length = 0;
    for (const child of scene.children) {
      if (child === this.terrain || child instanceof Light || !child.visible) continue;
      child.visible = false;
      this.hidden.push(child);
    }
    const previous = this.renderer.getRenderTarget();
    try {
      this.renderer.setRenderTarget(targets[0]);
      this.renderer.render(scene, view);
      this.swapTerrainMaterial(this.standIn!.material, () => {
        this.renderer.setRenderTarget(targets[1]);
        this.renderer.render(scene, view);
      });
    } finally {
      this.renderer.setRenderTarget(previous);
      for (const child of this.hidden) child.visible = true;
    }
    this.inFlight = true;
    Promise.all(
      targets.map((t) => this.renderer.readRenderTargetPixelsAsync(t, 0, 0, INSET_WIDTH, INSET_HEIGHT)),
    )
      .then(([tessera, plain]) => {
        this.figures.tessera = this.show(0, tessera as Uint8Array);
        this.figures.plainThree = this.show(1, plain as Uint8Array);
        this.figures.captures++;
      })
      .catch(this.onError)
      .finally(() => {
        this.inFlight = false;
      });
  }

  /** Encodes, measures and draws pane `index`'s capture; returns its sharpness. */
  private show(index: number, pixels: Uint8Array): number {
    const bytes = new Uint8Array(pixels.buffer, pixels.byteOffset, INSET_WIDTH * INSET_HEIGHT * 4);
    encodeCapture(bytes, INSET_WIDTH, INSET_HEIGHT, this.flipRows);
    const sharpness = meanLuminanceGradient(bytes, INSET_WIDTH, INSET_HEIGHT);
    const pane = this.panes[index];
    pane.draw(bytes);
    const memory = index === 0 ? this.figures.tesseraTerrainBytes : this.figures.standInBytes;
    pane.setLabel(`sharpness ${sharpness.toFixed(1)}, ${(memory / 2 ** 20).toFixed(1)} MiB`);
    return sharpness;
  }

  /** Runs `draw` with every terrain chunk drawn with `material`, then puts the chunks' own back. */
  private swapTerrainMaterial(material: Material, draw: () => void): void {
    const own: Material[] = [];
    const chunks = this.terrain.children;
    for (const chunk of chunks) {
      if (!(chunk instanceof Mesh)) continue;
      own.push(chunk.material as Material);
      chunk.material = material;
    }
    try {
      draw();
    } finally {
      let i = 0;
      for (const chunk of chunks) if (chunk instanceof Mesh) chunk.material = own[i++];
    }
  }
}

/** One labelled capture. */
class Pane {
  readonly element = document.createElement('figure');
  private readonly canvas = document.createElement('canvas');
  private readonly caption = document.createElement('figcaption');
  private readonly context: CanvasRenderingContext2D;
  private readonly image: ImageData;

  constructor(
    key: string,
    public title: string,
  ) {
    this.element.dataset.compare = key;
    this.element.style.cssText = `margin:0;padding:2px;width:min(${INSET_WIDTH}px,16vw);background:#000a;border:1px solid #fff4`;
    this.canvas.width = INSET_WIDTH;
    this.canvas.height = INSET_HEIGHT;
    this.canvas.style.cssText = 'display:block;width:100%;height:auto';
    const context = this.canvas.getContext('2d');
    if (!context) throw new Error('2D canvas unavailable for the comparison inset');
    this.context = context;
    this.image = context.createImageData(INSET_WIDTH, INSET_HEIGHT);
    this.setLabel('capturing…');
    this.element.append(this.caption, this.canvas);
  }

  setLabel(figure: string): void {
    this.caption.textContent = `${this.title}: ${figure}`;
  }

  draw(pixels: Uint8Array): void {
    this.image.data.set(pixels);
    this.context.putImageData(this.image, 0, 0);
  }
}
