import type { BufferGeometry, Camera, Material, Object3D, Scene, Texture } from 'three';
import type { NodeBuilder, WebGPURenderer } from 'three/webgpu';

/*
 * The one place Tessera reaches into three.js internals, for every three the peer range accepts
 * (r186 and r187). Everything here is either missing from three's public typings or typed as an
 * abstract base class, so each accessor names the exact slice it relies on.
 * test/browser/harness/three-internals.spec.ts runs every accessor against the real three on
 * WebGPU and on WebGL2; test/three-versions/run.mjs renders through all of them on the previous
 * minor and runs that probe there when the render fails. A three release that moves one of them
 * fails one clear test instead of corrupting textures somewhere downstream.
 *
 * r186 -> r187 (compared file by file): every slice below is unchanged, so no accessor branches on
 * the version. One public call differs and Tessera does not use it: on WebGPU, r186's
 * `readRenderTargetPixelsAsync` returns rows padded to 256 bytes (r187 packs them), so a caller
 * reading a width whose row is not a multiple of 256 bytes must strip the padding itself.
 */

/** Per-texture GPU state three's WebGPU backend keeps in its side table (`backend.get(texture)`). */
export interface WebGPUTextureData {
  /** The GPUTexture, once `renderer.initTexture` (or a render) created it. */
  texture?: GPUTexture;
}

/** Per-attribute GPU state three's WebGPU backend keeps in its side table (`backend.get(attribute)`). */
export interface WebGPUAttributeData {
  /** The GPUBuffer, once a draw or compute using the attribute created it. */
  buffer?: GPUBuffer;
}

/** Per-texture GPU state three's WebGL2 backend keeps in its side table. */
export interface WebGLTextureData {
  /** The WebGL texture, once `renderer.initTexture` (or a render) created it. */
  textureGPU?: WebGLTexture;
}

/** The slice of three's WebGPU backend (`renderer.backend` when `isWebGPUBackend`) Tessera uses. */
export interface WebGPUBackendInternals {
  readonly isWebGPUBackend: true;
  /** The device three renders with. */
  readonly device: GPUDevice;
  get(object: object): WebGPUTextureData & WebGPUAttributeData;
  /** Destroys the GPUBuffer three made for `attribute` and forgets it. */
  destroyAttribute(attribute: object): void;
}

/**
 * The slice of three's WebGL2 state cache Tessera goes through, so three's view of bindings and
 * pixel-store state stays true after Tessera's own GL calls.
 */
export interface WebGLStateInternals {
  bindTexture(target: number, texture: WebGLTexture | null): void;
  bindFramebuffer(target: number, framebuffer: WebGLFramebuffer | null): boolean;
  pixelStorei(name: number, value: number | boolean): void;
}

/** The slice of three's WebGL2 fallback backend (`isWebGLBackend`) Tessera uses. */
export interface WebGLBackendInternals {
  readonly isWebGLBackend: true;
  /** The context three renders with. */
  readonly gl: WebGL2RenderingContext;
  readonly state: WebGLStateInternals;
  get(object: object): WebGLTextureData;
}

interface BackendFlags {
  isWebGPUBackend?: boolean;
  isWebGLBackend?: boolean;
}

/** three's WebGPU backend of `renderer`, or null when it runs on WebGL2 (or is not initialised). */
export function webgpuBackendOf(renderer: WebGPURenderer): WebGPUBackendInternals | null {
  const backend = renderer.backend as unknown as BackendFlags;
  return backend.isWebGPUBackend === true ? (backend as unknown as WebGPUBackendInternals) : null;
}

/** three's WebGL2 fallback backend of `renderer`, or null when it runs on WebGPU. */
export function webglBackendOf(renderer: WebGPURenderer): WebGLBackendInternals | null {
  const backend = renderer.backend as unknown as BackendFlags;
  return backend.isWebGLBackend === true ? (backend as unknown as WebGLBackendInternals) : null;
}

/** The GPUTexture three created for `texture` (after `renderer.initTexture`), else undefined. */
export function gpuTextureOf(backend: WebGPUBackendInternals, texture: Texture): GPUTexture | undefined {
  return backend.get(texture).texture;
}

/** The GPUBuffer three's WebGPU backend made for a storage `attribute`; undefined before its first use. */
export function gpuBufferOf(backend: WebGPUBackendInternals, attribute: object): GPUBuffer | undefined {
  return backend.get(attribute).buffer;
}

/**
 * Frees the GPUBuffer three made for `attribute`: `attribute.dispose()` does on r187 (its attribute
 * manager listens for the event); r186 keeps the buffer, so the backend destroys it here.
 */
export function disposeStorageAttribute(
  backend: WebGPUBackendInternals,
  attribute: { dispose(): void },
): void {
  attribute.dispose();
  if (backend.get(attribute).buffer !== undefined) backend.destroyAttribute(attribute);
}

/** The WebGL texture three created for `texture` (after `renderer.initTexture`), else undefined. */
export function glTextureOf(backend: WebGLBackendInternals, texture: Texture): WebGLTexture | undefined {
  return backend.get(texture).textureGPU;
}

/**
 * Signature of `renderer.renderObject` and of a render-object function (three's typings declare
 * it inline). `lightsNode` and `clippingContext` are passed through untouched.
 */
export type RenderObjectFunction = (
  object: Object3D,
  scene: Scene,
  camera: Camera,
  geometry: BufferGeometry,
  material: Material,
  group: unknown,
  lightsNode: unknown,
  clippingContext: unknown,
  passId: string | null,
) => void;

/**
 * Signature of three's per-object draw step (`renderer._handleObjectFunction`, i.e.
 * `_renderObjectDirect` while rendering): what `renderObject` calls once it has run the object's
 * `onBeforeRender` and before its `onAfterRender`.
 */
export type DrawObjectFunction = (
  object: Object3D,
  material: Material,
  scene: Scene,
  camera: Camera,
  lightsNode: unknown,
  group: unknown,
  clippingContext: unknown,
  passId: string | null,
) => void;

/**
 * The per-object draw hook of a renderer: `renderObject` draws one object, and a function set with
 * `setRenderObjectFunction` replaces it for every object of the following renders (it must call
 * `renderObject` itself, or `draw`). Bound to the renderer, so callers may keep the functions.
 */
export interface RenderObjectHook {
  /** Draws one object (three's default render-object function). */
  readonly renderObject: RenderObjectFunction;
  /**
   * Draws one object as `renderObject` does but without calling its `onBeforeRender` and
   * `onAfterRender` (nor applying `scene.overrideMaterial` or splitting double-sided transparent
   * materials): for an extra pass that must not run user callbacks a second time per frame. Only
   * valid inside a render-object function, while three is rendering.
   */
  readonly draw: DrawObjectFunction;
  /** The render-object function set now, or null for three's default. */
  get(): RenderObjectFunction | null;
  /** Replaces the render-object function; null restores three's default. */
  set(fn: RenderObjectFunction | null): void;
}

interface RendererRenderObjectInternals {
  renderObject: RenderObjectFunction;
  /** Swapped by three per render call (draw, or create pipelines in compileAsync): read per call. */
  _handleObjectFunction: DrawObjectFunction;
  getRenderObjectFunction(): RenderObjectFunction | null;
  setRenderObjectFunction(fn: RenderObjectFunction | null): void;
}

/** The render-object hook of `renderer` (allocates; call once per owner, not per frame). */
export function renderObjectHookOf(renderer: WebGPURenderer): RenderObjectHook {
  const internals = renderer as unknown as RendererRenderObjectInternals;
  return {
    renderObject: internals.renderObject.bind(renderer),
    draw: (object, material, scene, camera, lightsNode, group, clippingContext, passId) =>
      internals._handleObjectFunction.call(
        renderer,
        object,
        material,
        scene,
        camera,
        lightsNode,
        group,
        clippingContext,
        passId,
      ),
    get: () => internals.getRenderObjectFunction(),
    set: (fn) => internals.setRenderObjectFunction(fn),
  };
}

/** The material a node builder is compiling (null while building compute or scene-level nodes). */
export function materialOfBuilder(builder: NodeBuilder): Material | null {
  return (builder as unknown as { material: Material | null }).material ?? null;
}

/** The slice of three's NodeBuilder telling which shader stage it is building. */
interface NodeBuilderStage {
  shaderStage: string | null;
}

/** True while `builder` builds a fragment shader. */
export function buildsFragmentStage(builder: NodeBuilder): boolean {
  return (builder as unknown as NodeBuilderStage).shaderStage === 'fragment';
}

/** The slice of three's StackNode (what TSL's `If` returns) used to move a statement. */
interface StackNodeStatements {
  nodes: unknown[];
  /** The `If` statement added last. */
  _currentCond: unknown;
}

/**
 * Moves the `If` statement TSL's `If()` just added to `stack` (the value `If()` returns) to the end
 * of that stack: while a node graph is being built, `If()` inserts right after the statement being
 * built, and at the end it runs after everything the material emits there, its discards included.
 */
export function moveIfToStackEnd(stack: unknown): void {
  const s = stack as StackNodeStatements;
  const i = s.nodes.indexOf(s._currentCond);
  if (i < 0) return;
  s.nodes.splice(i, 1);
  s.nodes.push(s._currentCond);
}
