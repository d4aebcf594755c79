import { expect, test } from '../fixtures';
import type { InternalsProbe } from './pages/three-internals';

// One test per accessor of src/three/three-internals.ts, against the real three on each backend:
// when a three upgrade moves an internal Tessera relies on, the failing test names it.

type Probe = keyof InternalsProbe;

test.beforeEach(async ({ page, openPage }) => {
  await openPage('test/browser/harness/pages/three-internals.html');
  await expect(page).toHaveTitle('ready');
});

function probe<K extends Probe>(page: import('@playwright/test').Page, name: K) {
  return page.evaluate(
    (n: Probe): unknown => (globalThis as never as { internals: InternalsProbe }).internals[n](),
    name,
  ) as Promise<Awaited<ReturnType<InternalsProbe[K]>>>;
}

test('webgpuBackendOf / webglBackendOf: exactly the running backend, with its device or GL context and state cache', async ({
  page,
  backend,
}) => {
  const facts = await probe(page, 'backendFacts');
  expect(facts.webgpu).toBe(backend === 'webgpu');
  expect(facts.webgl).toBe(backend === 'webgl');
  if (backend === 'webgpu') {
    expect(facts.deviceIsGPUDevice, 'backend.device is a GPUDevice').toBe(true);
  } else {
    expect(facts.glIsWebGL2, 'backend.gl is a WebGL2RenderingContext').toBe(true);
    expect(facts.stateMethods, 'backend.state has bindTexture, bindFramebuffer, pixelStorei').toBe(true);
  }
});

test('gpuTextureOf / glTextureOf: the GPU texture behind a three texture exists after initTexture', async ({
  page,
  backend,
}) => {
  const facts = await probe(page, 'textureFacts');
  expect(facts.before, 'nothing before renderer.initTexture').toBeNull();
  if (backend === 'webgpu') {
    expect(facts.isGPUTexture, 'backend.get(texture).texture is a GPUTexture').toBe(true);
    expect(facts.label).toBe('tessera-test:internals');
    expect(facts.width).toBe(4);
  } else {
    expect(facts.isWebGLTexture, 'backend.get(texture).textureGPU is a live WebGLTexture').toBe(true);
  }
});

test('WebGL2 state cache: bindTexture, pixelStorei and bindFramebuffer reach the context', async ({
  page,
  backend,
}) => {
  test.skip(backend !== 'webgl', 'WebGL2 backend only');
  const facts = await probe(page, 'glStateFacts');
  expect(facts).toEqual({ boundTexture: true, alignment: 1, changed: true, boundFramebuffer: true });
});

test('renderObjectHookOf: the override is called for each drawn object and draws through renderObject, or through draw without callbacks', async ({
  page,
}) => {
  const facts = await probe(page, 'renderObjectFacts');
  expect(facts.initiallyNull, 'no render-object function set by default').toBe(true);
  expect(facts.whileSet, 'getRenderObjectFunction returns the override').toBe(true);
  expect(facts.restored, 'setRenderObjectFunction(null) restores the default').toBe(true);
  expect(facts.seen, 'called once per render, with the mesh and its material').toEqual([
    { isOurMesh: true, isOurMaterial: true },
    { isOurMesh: true, isOurMaterial: true },
  ]);
  expect(facts.colour, 'the mesh drew red through hook.renderObject').toEqual([255, 0, 0, 255]);
  expect(facts.callbacksAfterRenderObject, 'renderObject runs the callbacks').toEqual({
    before: 1,
    after: 1,
  });
  expect(facts.drawColour, 'hook.draw drew the mesh with the material given').toEqual([0, 255, 0, 255]);
  expect(facts.callbacksAfterDraw, 'hook.draw runs neither callback').toEqual({ before: 1, after: 1 });
});

test('materialOfBuilder: a node setup() sees the material being compiled', async ({ page }) => {
  const facts = await probe(page, 'builderMaterialFacts');
  expect(facts.setups, 'setup ran').toBeGreaterThan(0);
  expect(facts.allCompiledMaterial, 'builder.material is the compiled material').toBe(true);
});

test("buildsFragmentStage / moveIfToStackEnd: a node adds an If in the fragment stage, moved after three's discard", async ({
  page,
}) => {
  const facts = await probe(page, 'stackFacts');
  expect(facts.fragmentSetups, 'setup ran in the fragment stage').toBeGreaterThan(0);
  expect(facts.discardAt, 'three emitted the alpha test discard').toBeGreaterThanOrEqual(0);
  expect(facts.markerAt, 'the moved statement is in the shader').toBeGreaterThan(0);
  expect(facts.markerAt, 'after the discard').toBeGreaterThan(facts.discardAt);
});

test('gpuBufferOf / disposeStorageAttribute: three makes a storage buffer at first use; the release destroys it', async ({
  page,
  backend,
}) => {
  test.skip(backend === 'webgl', 'storage buffers are WebGPU only');
  const facts = await probe(page, 'storageAttributeFacts');
  expect(facts).toEqual({ beforeFirstUse: true, isGPUBuffer: true, size: 16, afterDispose: true });
});
