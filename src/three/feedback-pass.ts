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
import { abs, float, min, mod, uniform, vec4 } from 'three/tsl';
import { NodeMaterial, RenderTarget, type WebGPURenderer } from 'three/webgpu';
import { feedbackJitterX, feedbackJitterY } from '../core/vt/feedback-jitter';
import type { VirtualUv } from './sampling-context';
import { type RenderObjectFunction, type RenderObjectHook, renderObjectHookOf } from './three-internals';
import { buildFeedbackGraph, type SampledVirtualTexture } from './virtual-texture-graph';

/** Pass id that keeps three's cached render objects of this pass apart from the main pass. */
const FEEDBACK_PASS_ID = 'tessera-feedback';

/**
 * The feedback pass: renders the scene at 1/`scale` of the canvas into an RGBA8 target where each
 * pixel holds the packed page id its virtual-texture material needs (white = NO_REQUEST). Meshes
 * with a virtual texture draw through a mirrored request material; other meshes draw white so they
 * still occlude; lines, points and sprites are skipped.
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
  private readonly requestMaterials = new WeakMap<Material, NodeMaterial>();
  /** Virtual textures each mirrored material samples, with their uv nodes (index = rotation slot). */
  private readonly requestSources = new WeakMap<
    NodeMaterial,
    { vt: SampledVirtualTexture; uv: VirtualUv }[]
  >();
  /** Frame number, so a material sampling several virtual textures requests each in turn. */
  private readonly frameUniform = uniform(0);
  private readonly occluder: NodeMaterial;
  /**
   * The user materials mirrored now, held weakly: a request material is reachable only through
   * {@link requestMaterials}, so it goes with the user's material; this set finds the live ones
   * at {@link dispose}.
   */
  private readonly mirrored = new Set<WeakRef<Material>>();
  private readonly forgetMirrored = new FinalizationRegistry<WeakRef<Material>>((ref) =>
    this.mirrored.delete(ref),
  );
  /** Disposes a request material with its user's material (three's 'dispose' event). */
  private readonly onUserMaterialDispose = (event: { target: Material }): void => this.unmirror(event.target);
  private readonly hook: RenderObjectHook;
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
    this.occluder = new NodeMaterial();
    this.occluder.name = 'tessera:feedback-occluder';
    this.occluder.fragmentNode = vec4(1);
    const hook = renderObjectHookOf(renderer);
    this.hook = hook;
    this.renderObjectFunction = (object, scene, camera, geometry, material, group, lights, clipping) => {
      if (!(object as { isMesh?: boolean }).isMesh) return;
      const request = this.requestMaterials.get(material);
      const used = request ?? this.occluder;
      used.side = material.side;
      hook.renderObject(object, scene, camera, geometry, used, group, lights, clipping, FEEDBACK_PASS_ID);
    };
  }

  /**
   * Mirrors `material` (which samples `vt` at `uv`) with a request-writing material. A material
   * sampling several virtual textures requests them in turn, one per frame.
   */
  register(material: Material, vt: SampledVirtualTexture, uv: VirtualUv): void {
    let request = this.requestMaterials.get(material);
    if (request === undefined) {
      request = new NodeMaterial();
      request.name = 'tessera:feedback-request';
      this.requestMaterials.set(material, request);
      this.requestSources.set(request, []);
      const ref = new WeakRef(material);
      this.mirrored.add(ref);
      this.forgetMirrored.register(material, ref, ref);
      material.addEventListener('dispose', this.onUserMaterialDispose);
    }
    const sources = this.requestSources.get(request)!;
    for (const source of sources) if (source.vt.id === vt.id && source.uv === uv) return;
    sources.push({ vt, uv });
    if (sources.length === 1) {
      request.fragmentNode = buildFeedbackGraph(vt, uv);
    } else {
      // Σ request_k · [frame mod n == k]: straight-line selection, no divergent branch.
      const n = sources.length;
      const slot = mod(this.frameUniform, float(n));
      // biome-ignore lint/suspicious/noExplicitAny: TSL node graph value.
      let sum: any = vec4(0);
      sources.forEach((source, k) => {
        const weight = float(1).sub(min(abs(slot.sub(k)), float(1)));
        sum = sum.add(buildFeedbackGraph(source.vt, source.uv).mul(weight));
      });
      request.fragmentNode = sum;
    }
    request.needsUpdate = true;
  }

  /** Resizes the target (feedback pixels); called when the canvas size changes. */
  setSize(width: number, height: number): void {
    if (width === this.width && height === this.height) return;
    this.width = width;
    this.height = height;
    this.target.setSize(width, height);
  }

  /**
   * Renders the feedback of `scene` seen by `camera` for frame `frame`, with that frame's
   * sub-pixel offset (the simulator's Bayer sequence), restoring every renderer and scene state.
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
    this.occluder.dispose();
    for (const ref of this.mirrored) {
      const material = ref.deref();
      if (material === undefined) continue;
      material.removeEventListener('dispose', this.onUserMaterialDispose);
      this.requestMaterials.get(material)?.dispose();
      this.requestMaterials.delete(material);
      this.forgetMirrored.unregister(ref);
    }
    this.mirrored.clear();
  }

  /** Disposes the request material mirroring `material` and stops listening to it. */
  private unmirror(material: Material): void {
    material.removeEventListener('dispose', this.onUserMaterialDispose);
    const request = this.requestMaterials.get(material);
    if (request === undefined) return;
    this.requestMaterials.delete(material);
    request.dispose();
    for (const ref of this.mirrored) {
      if (ref.deref() !== material) continue;
      this.mirrored.delete(ref);
      this.forgetMirrored.unregister(ref);
      break;
    }
  }
}
