import {
  type Camera,
  Color,
  DepthTexture,
  type Material,
  Matrix4,
  NearestFilter,
  NoColorSpace,
  RGBAFormat,
  type Scene,
  UnsignedByteType,
  UnsignedIntType,
} from 'three';
import { abs, Fn, float, floor, min, mod, screenCoordinate, uniform, vec4 } from 'three/tsl';
import { NodeMaterial, RenderTarget, type WebGPURenderer } from 'three/webgpu';
import { feedbackJitterX, feedbackJitterY } from '../../core/vt/feedback/feedback-jitter';
import type { VirtualUv } from '../sampling/sampling-context';
import { buildFeedbackGraph, type SampledVirtualTexture } from '../sampling/virtual-texture-graph';
import {
  type DrawObjectFunction,
  type RenderObjectFunction,
  type RenderObjectHook,
  renderObjectHookOf,
} from '../three-internals';
import { syncMirror, syncMirrorState } from './feedback-mirror';

/** Pass id that keeps three's cached render objects of this pass apart from the main pass. */
const FEEDBACK_PASS_ID = 'tessera-feedback';

/**
 * The feedback pass: renders the scene at 1/`scale` of the canvas into an RGBA8 target where each
 * pixel holds the packed page id its virtual-texture material needs (white = NO_REQUEST). Only
 * meshes with a virtual texture are drawn, through a mirrored request material: a mesh without one
 * would cost a draw call for nothing but occlusion, which the main-pass feedback (WebGPU) cannot
 * have either, so both ways of writing requests see the same surfaces. Lines, points and sprites
 * are skipped.
 *
 * Mirrors follow the user's material (see feedback-mirror.ts): vertex displacement, instancing,
 * skinning and morphs move the surface as in the main pass, and pixels the material discards
 * (alpha test) neither request nor occlude. Transparent materials write no depth here and request
 * on half their pixels, in a checkerboard that flips every frame, so the surface behind requests
 * on the other half. Objects' and the scene's `onBeforeRender`/`onAfterRender` are not called
 * again by this pass.
 *
 * RGBA8 rather than r32uint because it renders and reads back identically on WebGPU and WebGL2
 * (k/255 round-trips exactly through unorm8).
 */
export class FeedbackPass {
  /** The low-resolution target (colour `tessera:feedback`, depth `tessera:feedback-depth`). */
  readonly target: RenderTarget;
  /** Target size, in feedback pixels. */
  width: number;
  /** Target size, in feedback pixels. */
  height: number;
  private readonly renderer: WebGPURenderer;
  /** The mirror drawing each user material that samples a virtual texture. */
  private readonly requests = new WeakMap<Material, Mirror>();
  /** Materials this pass created: their compilation must not register them as user materials. */
  private readonly own = new WeakSet<Material>();
  /** Frame number, so a material sampling several virtual textures requests each in turn. */
  private readonly frameUniform = uniform(0);
  /**
   * The user materials mirrored now, held weakly: a mirror is reachable only through
   * {@link requests}, so it goes with the user's material; this set finds the live ones
   * at {@link dispose}.
   */
  private readonly mirrored = new Set<WeakRef<Material>>();
  private readonly forgetMirrored = new FinalizationRegistry<WeakRef<Material>>((ref) =>
    this.mirrored.delete(ref),
  );
  /** True when `material` is a user material this pass draws (through its mirror). */
  readonly isMirrored = (material: Material): boolean => this.requests.has(material);
  /** Disposes a request material with its user's material (three's 'dispose' event). */
  private readonly onUserMaterialDispose = (event: { target: Material }): void => this.unmirror(event.target);
  private readonly hook: RenderObjectHook;
  private readonly draw: DrawObjectFunction;
  private readonly renderObjectFunction: RenderObjectFunction;
  // Scratch state saved around the pass (no allocation per frame).
  private readonly savedClear = new Color();
  private readonly savedProjection = new Matrix4();
  private readonly savedProjectionInverse = new Matrix4();

  constructor(renderer: WebGPURenderer, width: number, height: number) {
    this.renderer = renderer;
    this.width = width;
    this.height = height;
    const depthTexture = new DepthTexture(width, height, UnsignedIntType);
    depthTexture.name = 'tessera:feedback-depth';
    this.target = new RenderTarget(width, height, {
      format: RGBAFormat,
      type: UnsignedByteType,
      depthBuffer: true,
      depthTexture,
      generateMipmaps: false,
      magFilter: NearestFilter,
      minFilter: NearestFilter,
      samples: 0,
    });
    this.target.texture.name = 'tessera:feedback';
    this.target.texture.colorSpace = NoColorSpace;
    const hook = renderObjectHookOf(renderer);
    this.hook = hook;
    this.draw = hook.draw;
    this.renderObjectFunction = (object, scene, camera, _geometry, material, group, lights, clipping) => {
      if (!(object as { isMesh?: boolean }).isMesh) return;
      const mirror = this.requests.get(material);
      if (mirror === undefined) return;
      if (mirror.version !== material.version || mirror.transparent !== material.transparent) {
        if (!this.sync(material, mirror)) return;
      }
      syncMirrorState(material, mirror.material);
      // Not hook.renderObject: that would call the object's onBeforeRender/onAfterRender again.
      this.draw(object, mirror.material, scene, camera, lights, group, clipping, FEEDBACK_PASS_ID);
    };
  }

  /**
   * Mirrors `material` (which samples `vt` at `uv`) with a request-writing material. A material
   * sampling several virtual textures requests them in turn, one per frame.
   */
  register(material: Material, vt: SampledVirtualTexture, uv: VirtualUv): void {
    // A mirror that copied a colorNode sampling a virtual texture compiles that node too.
    if (this.own.has(material)) return;
    let mirror = this.requests.get(material);
    if (mirror === undefined) {
      const request = new NodeMaterial();
      request.name = 'tessera:feedback-request';
      mirror = { material: request, version: -1, transparent: false, sources: [] };
      this.requests.set(material, mirror);
      this.watch(material, request);
    }
    for (const source of mirror.sources) if (source.vt.id === vt.id && source.uv === uv) return;
    mirror.sources.push({ vt, uv });
    // Rebuilt at its next draw (this runs while three compiles the user's material).
    mirror.version = -1;
  }

  /**
   * Rebuilds `mirror` from `user` (after the user's material changed; allocates node graphs);
   * false when the user's material no longer samples a virtual texture (nothing to draw).
   */
  private sync(user: Material, mirror: Mirror): boolean {
    mirror.version = user.version;
    mirror.transparent = user.transparent;
    // A removed texture requests nothing: drop it, so the others are requested every frame.
    if (mirror.sources.some((source) => source.vt.removed)) {
      mirror.sources = mirror.sources.filter((source) => !source.vt.removed);
    }
    if (mirror.sources.length === 0) {
      this.unmirror(user);
      return false;
    }
    let output = this.requestGraph(mirror.sources);
    if (user.transparent) {
      // Checkerboard flipping each frame: the other half of the pixels shows what lies behind.
      const graph = output;
      const odd = mod(floor(screenCoordinate.x).add(floor(screenCoordinate.y)).add(this.frameUniform), 2);
      output = Fn(() => {
        odd.greaterThan(0.5).discard();
        return graph;
      })();
    }
    syncMirror(user, mirror.material, output);
    return true;
  }

  /** The request colour for `sources`, one per frame in turn when there are several. */
  // biome-ignore lint/suspicious/noExplicitAny: TSL node graph value.
  private requestGraph(sources: readonly Source[]): any {
    if (sources.length === 1) return buildFeedbackGraph(sources[0].vt, sources[0].uv);
    // Σ request_k · [frame mod n == k]: straight-line selection, no divergent branch.
    const n = sources.length;
    const slot = mod(this.frameUniform, float(n));
    // biome-ignore lint/suspicious/noExplicitAny: TSL node graph value.
    let sum: any = vec4(0);
    sources.forEach((source, k) => {
      const weight = float(1).sub(min(abs(slot.sub(k)), float(1)));
      sum = sum.add(buildFeedbackGraph(source.vt, source.uv).mul(weight));
    });
    return sum;
  }

  /** Starts tracking `material`, mirrored by `mirror`, so both go at its dispose (or collection). */
  private watch(material: Material, mirror: NodeMaterial): void {
    this.own.add(mirror);
    const ref = new WeakRef(material);
    this.mirrored.add(ref);
    this.forgetMirrored.register(material, ref, ref);
    material.addEventListener('dispose', this.onUserMaterialDispose);
  }

  /** True when `material` is a material this pass created (a mirror). */
  owns(material: Material): boolean {
    return this.own.has(material);
  }

  /** Resizes the target (feedback pixels); called when the canvas size changes. */
  setSize(width: number, height: number): void {
    if (width === this.width && height === this.height) return;
    this.width = width;
    this.height = height;
    this.target.setSize(width, height);
  }

  /**
   * Renders the feedback of `scene` seen by `camera` at jitter frame `frame` (its sub-pixel
   * offset in the simulator's Bayer sequence, and the turn of textures sampled in rotation and of
   * transparent checkerboards), restoring every renderer and scene state.
   */
  render(scene: Scene, camera: Camera, frame: number): void {
    const renderer = this.renderer;
    const previousTarget = renderer.getRenderTarget();
    const previousFunction = this.hook.get();
    const previousAlpha = renderer.getClearAlpha();
    renderer.getClearColor(this.savedClear);
    const previousAutoClear = renderer.autoClear;
    const previousBackground = scene.background;
    const previousOverride = scene.overrideMaterial;
    // three switches a camera to its backend's clip-space convention inside render(); do it first,
    // or the jittered matrix saved and restored below would be in the wrong convention.
    const coordinateSystem = renderer.coordinateSystem;
    const cam = camera as Camera & { updateProjectionMatrix?: () => void };
    if (cam.coordinateSystem !== coordinateSystem && cam.updateProjectionMatrix) {
      cam.coordinateSystem = coordinateSystem;
      cam.updateProjectionMatrix();
    }
    const projection = camera.projectionMatrix;
    this.savedProjection.copy(projection);
    this.savedProjectionInverse.copy(camera.projectionMatrixInverse);
    // Shift the image by the frame's sub-pixel offset: clip' = clip + offset * w (rows 0 and 1).
    const dx = (-2 * (feedbackJitterX(frame) - 0.5)) / this.width;
    const dy = (2 * (feedbackJitterY(frame) - 0.5)) / this.height;
    const e = projection.elements;
    for (let c = 0; c < 4; c++) {
      e[c * 4] += dx * e[c * 4 + 3];
      e[c * 4 + 1] += dy * e[c * 4 + 3];
    }
    camera.projectionMatrixInverse.copy(projection).invert();
    scene.background = null;
    // Page ids are bit patterns, not colours: fog would blend distant ones towards the fog colour.
    const previousFog = scene.fog;
    scene.fog = null;
    scene.overrideMaterial = null;
    // renderer.render calls the scene's own callbacks too: once per frame is the main pass's.
    const ownBefore = Object.hasOwn(scene, 'onBeforeRender');
    const ownAfter = Object.hasOwn(scene, 'onAfterRender');
    const previousBefore = scene.onBeforeRender;
    const previousAfter = scene.onAfterRender;
    scene.onBeforeRender = skipCallback;
    scene.onAfterRender = skipCallback;
    renderer.autoClear = true;
    renderer.setClearColor(0xffffff, 1);
    this.frameUniform.value = frame;
    renderer.setRenderTarget(this.target);
    this.hook.set(this.renderObjectFunction);
    try {
      renderer.render(scene, camera);
    } finally {
      this.hook.set(previousFunction);
      renderer.setRenderTarget(previousTarget);
      renderer.setClearColor(this.savedClear, previousAlpha);
      renderer.autoClear = previousAutoClear;
      scene.background = previousBackground;
      scene.fog = previousFog;
      scene.overrideMaterial = previousOverride;
      restoreCallback(scene, 'onBeforeRender', ownBefore, previousBefore);
      restoreCallback(scene, 'onAfterRender', ownAfter, previousAfter);
      projection.copy(this.savedProjection);
      camera.projectionMatrixInverse.copy(this.savedProjectionInverse);
    }
  }

  /** Bytes of the target: RGBA8 colour plus a 4-byte depth texel per feedback pixel. */
  get bytes(): number {
    return this.width * this.height * 8;
  }

  /** Frees the target and every material this pass created. */
  dispose(): void {
    this.target.dispose();
    this.target.depthTexture?.dispose();
    for (const ref of this.mirrored) {
      const material = ref.deref();
      if (material === undefined) continue;
      material.removeEventListener('dispose', this.onUserMaterialDispose);
      this.requests.get(material)?.material.dispose();
      this.requests.delete(material);
      this.forgetMirrored.unregister(ref);
    }
    this.mirrored.clear();
  }

  /** Disposes the mirrors of `material` and stops listening to it. */
  private unmirror(material: Material): void {
    material.removeEventListener('dispose', this.onUserMaterialDispose);
    const request = this.requests.get(material);
    if (request === undefined) return;
    this.requests.delete(material);
    request.material.dispose();
    for (const ref of this.mirrored) {
      if (ref.deref() !== material) continue;
      this.mirrored.delete(ref);
      this.forgetMirrored.unregister(ref);
      break;
    }
  }
}

/** Stands in for the scene's callbacks during the pass. */
function skipCallback(): void {}

/** Puts a scene callback back as it was: an own property, or the prototype's (own one deleted). */
function restoreCallback(
  scene: Scene,
  key: 'onBeforeRender' | 'onAfterRender',
  wasOwn: boolean,
  previous: Scene['onBeforeRender'],
): void {
  if (wasOwn) scene[key] = previous;
  else {
    delete (scene as Partial<Pick<Scene, typeof key>>)[key];
  }
}

/** One virtual texture a request material samples, with its uv node. */
interface Source {
  vt: SampledVirtualTexture;
  uv: VirtualUv;
}

/** A material the feedback pass draws in place of a user's material. */
interface Mirror {
  material: NodeMaterial;
  /** The user material's `version` (and `transparent`) it was last built from; -1 = rebuild. */
  version: number;
  transparent: boolean;
  /** Virtual textures requested (index = rotation slot). */
  sources: Source[];
}
