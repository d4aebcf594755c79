import { DataTexture, Mesh, OrthographicCamera, PlaneGeometry, RGBAFormat, Scene } from 'three';
import { atomicAdd, float, If, nodeObject, storage, uniform, vec4 } from 'three/tsl';
import {
  MeshBasicNodeMaterial,
  Node,
  type NodeBuilder,
  RenderTarget,
  StorageBufferAttribute,
} from 'three/webgpu';
import {
  buildsFragmentStage,
  disposeStorageAttribute,
  glTextureOf,
  gpuBufferOf,
  gpuTextureOf,
  materialOfBuilder,
  moveIfToStackEnd,
  type RenderObjectFunction,
  renderObjectHookOf,
  webglBackendOf,
  webgpuBackendOf,
} from '../../../../src/three/three-internals';
import { createTestRenderer } from '../../support/renderer';

// Runs every accessor of src/three/three-internals.ts against the real three on the requested
// backend and reports plain facts; the spec asserts them one by one.

const SIZE = 16;
const renderer = await createTestRenderer(SIZE, SIZE);
const camera = new OrthographicCamera(-1, 1, 1, -1, 0, 2);
camera.position.z = 1;

function makeTexture(name: string): DataTexture {
  const texture = new DataTexture(new Uint8Array(4 * 4 * 4).fill(200), 4, 4, RGBAFormat);
  texture.name = name;
  texture.needsUpdate = true;
  return texture;
}

/** Which backend accessor answered, and what it handed out. */
function backendFacts() {
  const gpu = webgpuBackendOf(renderer);
  const gl = webglBackendOf(renderer);
  return {
    webgpu: gpu !== null,
    webgl: gl !== null,
    deviceIsGPUDevice: gpu !== null && typeof GPUDevice !== 'undefined' && gpu.device instanceof GPUDevice,
    glIsWebGL2: gl !== null && gl.gl instanceof WebGL2RenderingContext,
    stateMethods:
      gl === null
        ? null
        : [gl.state.bindTexture, gl.state.bindFramebuffer, gl.state.pixelStorei].every(
            (f) => typeof f === 'function',
          ),
  };
}

/** The GPU object behind a texture before and after `renderer.initTexture`. */
function textureFacts() {
  const texture = makeTexture('tessera-test:internals');
  const gpu = webgpuBackendOf(renderer);
  const gl = webglBackendOf(renderer);
  const before = gpu ? gpuTextureOf(gpu, texture) : gl ? glTextureOf(gl, texture) : null;
  renderer.initTexture(texture);
  const facts = { before: before ?? null, isGPUTexture: false, label: '', width: 0, isWebGLTexture: false };
  if (gpu !== null) {
    const handle = gpuTextureOf(gpu, texture);
    facts.isGPUTexture = handle instanceof GPUTexture;
    facts.label = handle?.label ?? '';
    facts.width = handle?.width ?? 0;
  } else if (gl !== null) {
    const handle = glTextureOf(gl, texture);
    facts.isWebGLTexture = handle instanceof WebGLTexture && gl.gl.isTexture(handle);
  }
  texture.dispose();
  return facts;
}

/** WebGL2 only: three's state cache calls reach the context. */
function glStateFacts() {
  const backend = webglBackendOf(renderer);
  if (backend === null) return null;
  const { gl, state } = backend;
  const texture = makeTexture('tessera-test:internals-state');
  renderer.initTexture(texture);
  const handle = glTextureOf(backend, texture) ?? null;
  state.bindTexture(gl.TEXTURE_2D, handle);
  const boundTexture = gl.getParameter(gl.TEXTURE_BINDING_2D) === handle;
  state.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  const alignment = gl.getParameter(gl.UNPACK_ALIGNMENT) as number;
  state.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
  const framebuffer = gl.createFramebuffer();
  const changed = state.bindFramebuffer(gl.READ_FRAMEBUFFER, framebuffer);
  const boundFramebuffer = gl.getParameter(gl.READ_FRAMEBUFFER_BINDING) === framebuffer;
  state.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
  gl.deleteFramebuffer(framebuffer);
  state.bindTexture(gl.TEXTURE_2D, null);
  texture.dispose();
  return { boundTexture, alignment, changed, boundFramebuffer };
}

/** The render-object override is called per drawn mesh, and drawing through it draws. */
async function renderObjectFacts() {
  const hook = renderObjectHookOf(renderer);
  const material = new MeshBasicNodeMaterial({ color: 0xff0000 });
  const mesh = new Mesh(new PlaneGeometry(2, 2), material);
  const scene = new Scene();
  scene.add(mesh);
  const target = new RenderTarget(SIZE, SIZE);
  target.texture.name = 'tessera-test:internals-target';
  const seen: { isOurMesh: boolean; isOurMaterial: boolean }[] = [];
  const callbacks = { before: 0, after: 0 };
  mesh.onBeforeRender = () => void callbacks.before++;
  mesh.onAfterRender = () => void callbacks.after++;
  const green = new MeshBasicNodeMaterial({ color: 0x00ff00 });
  // ?draw: the second render draws through hook.draw, which must skip the object's callbacks.
  let useDraw = false;
  const override: RenderObjectFunction = (object, s, c, geometry, m, group, lights, clipping, passId) => {
    seen.push({ isOurMesh: object === mesh, isOurMaterial: m === material });
    if (useDraw) hook.draw(object, green, s, c, lights, group, clipping, 'tessera-test:draw');
    else hook.renderObject(object, s, c, geometry, m, group, lights, clipping, passId);
  };
  const initially = hook.get();
  hook.set(override);
  const whileSet = hook.get() === override;
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  const centre = ((SIZE / 2) * SIZE + SIZE / 2) * 4;
  let pixels = (await renderer.readRenderTargetPixelsAsync(target, 0, 0, SIZE, SIZE)) as Uint8Array;
  const colour = Array.from(pixels.slice(centre, centre + 4));
  const callbacksAfterRenderObject = { ...callbacks };
  useDraw = true;
  renderer.setRenderTarget(target);
  renderer.render(scene, camera);
  renderer.setRenderTarget(null);
  hook.set(initially);
  const restored = hook.get() === initially;
  pixels = (await renderer.readRenderTargetPixelsAsync(target, 0, 0, SIZE, SIZE)) as Uint8Array;
  const drawColour = Array.from(pixels.slice(centre, centre + 4));
  target.dispose();
  material.dispose();
  green.dispose();
  mesh.geometry.dispose();
  return {
    initiallyNull: initially === null,
    whileSet,
    restored,
    seen,
    colour,
    drawColour,
    callbacksAfterRenderObject,
    callbacksAfterDraw: { ...callbacks },
  };
}

/** A node's setup() sees the material being compiled through materialOfBuilder. */
class MaterialProbeNode extends Node<'vec4'> {
  readonly seen: unknown[] = [];
  constructor() {
    super('vec4');
  }
  override setup(builder: NodeBuilder) {
    this.seen.push(materialOfBuilder(builder));
    return vec4(0, 1, 0, 1);
  }
}

async function builderMaterialFacts() {
  const probe = new MaterialProbeNode();
  const material = new MeshBasicNodeMaterial();
  material.colorNode = nodeObject(probe);
  const mesh = new Mesh(new PlaneGeometry(2, 2), material);
  const scene = new Scene();
  scene.add(mesh);
  renderer.render(scene, camera);
  await renderer.compileAsync(scene, camera);
  const facts = {
    setups: probe.seen.length,
    allCompiledMaterial: probe.seen.every((m) => m === material),
  };
  material.dispose();
  mesh.geometry.dispose();
  return facts;
}

/** Marks the statement a {@link StackProbeNode} moves, in the generated shader's text. */
const MARKER = 0.1234567;

/**
 * A node whose setup() adds an `If` statement in the fragment stage and moves it to the end of its
 * stack, as the main-pass feedback's write does.
 */
class StackProbeNode extends Node<'vec4'> {
  readonly stages: boolean[] = [];
  constructor(private readonly marker: Node) {
    super('vec4');
  }
  override setup(builder: NodeBuilder) {
    const fragment = buildsFragmentStage(builder);
    this.stages.push(fragment);
    // biome-ignore lint/suspicious/noExplicitAny: TSL node values.
    if (fragment) moveIfToStackEnd(If((this.marker as any).greaterThan(float(MARKER)), () => {}));
    return vec4(1, 0, 0, 0);
  }
}

/** The moved statement lands after the discard three emits for an alpha-tested material. */
async function stackFacts() {
  const probe = new StackProbeNode(uniform(1));
  const material = new MeshBasicNodeMaterial({ alphaTest: 0.5 });
  material.colorNode = nodeObject(probe);
  const mesh = new Mesh(new PlaneGeometry(2, 2), material);
  const scene = new Scene();
  scene.add(mesh);
  renderer.render(scene, camera);
  const debug = (
    renderer as unknown as {
      debug: { getShaderAsync(s: Scene, c: unknown, m: Mesh): Promise<{ fragmentShader: string }> };
    }
  ).debug;
  const code = (await debug.getShaderAsync(scene, camera, mesh)).fragmentShader;
  const facts = {
    fragmentSetups: probe.stages.filter(Boolean).length,
    otherSetups: probe.stages.filter((s) => !s).length,
    discardAt: code.indexOf('discard'),
    markerAt: code.indexOf(String(MARKER)),
  };
  material.dispose();
  mesh.geometry.dispose();
  return facts;
}

/** The GPUBuffer three makes for a storage attribute, and its release (WebGPU). */
async function storageAttributeFacts() {
  const backend = webgpuBackendOf(renderer);
  if (backend === null) return null;
  const attribute = new StorageBufferAttribute(new Uint32Array(4), 1);
  const material = new MeshBasicNodeMaterial();
  const counter = storage(attribute, 'uint', 4).toAtomic();
  material.colorNode = nodeObject(
    new (class extends Node<'vec4'> {
      constructor() {
        super('vec4');
      }
      override setup() {
        atomicAdd(counter.element(0), 1);
        return vec4(0, 0, 1, 1);
      }
    })(),
  );
  const mesh = new Mesh(new PlaneGeometry(2, 2), material);
  const scene = new Scene();
  scene.add(mesh);
  const before = gpuBufferOf(backend, attribute);
  renderer.render(scene, camera);
  const made = gpuBufferOf(backend, attribute);
  const size = made?.size ?? 0;
  material.dispose();
  mesh.geometry.dispose();
  disposeStorageAttribute(backend, attribute);
  return {
    beforeFirstUse: before === undefined,
    isGPUBuffer: typeof GPUBuffer !== 'undefined' && made instanceof GPUBuffer,
    size,
    afterDispose: gpuBufferOf(backend, attribute) === undefined,
  };
}

Object.assign(globalThis, {
  internals: {
    backendFacts,
    textureFacts,
    glStateFacts,
    renderObjectFacts,
    builderMaterialFacts,
    stackFacts,
    storageAttributeFacts,
  },
});
document.title = 'ready';

/** What the page exposes as `globalThis.internals` (typed for the spec). */
export interface InternalsProbe {
  backendFacts: typeof backendFacts;
  textureFacts: typeof textureFacts;
  glStateFacts: typeof glStateFacts;
  renderObjectFacts: typeof renderObjectFacts;
  builderMaterialFacts: typeof builderMaterialFacts;
  stackFacts: typeof stackFacts;
  storageAttributeFacts: typeof storageAttributeFacts;
}
