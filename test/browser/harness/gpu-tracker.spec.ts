import { expect, test } from '../fixtures';

test('the tracker counts real allocations exactly and follows destroy()', async ({
  page,
  backend,
  openPage,
  gpuTracker,
}) => {
  await openPage('test/browser/harness/pages/blank.html');
  await expect(page).toHaveTitle('ready');
  if (backend === 'webgl') {
    // No WebGPU device may exist on the WebGL2 backend; GL allocations are counted without labels.
    expect((await gpuTracker.snapshot()).devices).toBe(0);
    const before = (await gpuTracker.snapshot()).byPrefix['webgl:texture']?.live ?? 0;
    const sizes = await page.evaluate(() => {
      const { renderer } = (globalThis as never as { harness: import('./pages/blank').BlankHarness }).harness;
      const gl = (renderer.backend as unknown as { gl: WebGL2RenderingContext }).gl;
      const texture = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, texture);
      gl.texStorage2D(gl.TEXTURE_2D, 9, gl.RGBA8, 256, 256);
      const tracker = (
        globalThis as never as { __tesseraGpuTracker: { liveBytesWithPrefix(p: string): number } }
      ).__tesseraGpuTracker;
      const allocated = tracker.liveBytesWithPrefix('webgl:texture');
      gl.deleteTexture(texture);
      return { allocated, deleted: tracker.liveBytesWithPrefix('webgl:texture') };
    });
    expect(sizes.allocated - before).toBe(349_524);
    expect(sizes.deleted).toBe(before);
    return;
  }
  await page.evaluate(() => {
    const { device } = (globalThis as never as { harness: { device: GPUDevice } }).harness;
    const usage = GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST;
    const holder = globalThis as never as Record<string, GPUTexture | GPUBuffer>;
    holder.mipChain = device.createTexture({
      label: 'tessera:probe:mips',
      size: [256, 256],
      format: 'rgba8unorm',
      mipLevelCount: 9,
      usage,
    });
    holder.bc7 = device.createTexture({
      label: 'tessera:probe:bc7',
      size: [256, 256],
      format: 'bc7-rgba-unorm',
      usage,
    });
    holder.array = device.createTexture({
      label: 'tessera:probe:array',
      size: [128, 128, 6],
      format: 'r32uint',
      usage,
    });
    holder.buffer = device.createBuffer({
      label: 'tessera:probe:buffer',
      size: 4096,
      usage: GPUBufferUsage.COPY_DST,
    });
  });
  let snapshot = await gpuTracker.snapshot();
  expect(snapshot.byPrefix['tessera:probe:mips'].live).toBe(349_524);
  expect(snapshot.byPrefix['tessera:probe:bc7'].live).toBe(65_536);
  expect(snapshot.byPrefix['tessera:probe:array'].live).toBe(128 * 128 * 4 * 6);
  const all = 349_524 + 65_536 + 393_216 + 4096;
  expect(snapshot.byPrefix['tessera:'].live).toBe(all);
  expect(snapshot.byPrefix['tessera:probe:'].live).toBe(all);

  await page.evaluate(() => {
    const holder = globalThis as never as Record<string, GPUTexture | GPUBuffer>;
    holder.mipChain.destroy();
    holder.mipChain.destroy(); // destroying twice must not count twice
    holder.buffer.destroy();
  });
  snapshot = await gpuTracker.snapshot();
  expect(snapshot.byPrefix['tessera:'].live).toBe(65_536 + 393_216);
  expect(snapshot.byPrefix['tessera:'].peak).toBe(all);
  expect(await gpuTracker.liveBytesWithPrefix('tessera:probe:b')).toBe(65_536);

  // A texture created by three carries texture.name as its label.
  const threeBytes = await page.evaluate(() => {
    const { renderer, DataTexture } = (
      globalThis as never as { harness: import('./pages/blank').BlankHarness }
    ).harness;
    const texture = new DataTexture(new Uint8Array(64 * 64 * 4), 64, 64);
    texture.name = 'tessera:probe:three';
    texture.needsUpdate = true;
    renderer.initTexture(texture);
    return (
      globalThis as never as { __tesseraGpuTracker: { liveBytesWithPrefix(p: string): number } }
    ).__tesseraGpuTracker.liveBytesWithPrefix('tessera:probe:three');
  });
  expect(threeBytes).toBe(64 * 64 * 4);
});
