import { expect, test } from '../fixtures';

// Proves the fixture catches what it must: if these fail, no other browser test can be trusted.

test('a planted invalid WebGPU call is caught as a validation error', async ({
  page,
  backend,
  openPage,
  errorLog,
}) => {
  test.skip(
    backend !== 'webgpu',
    'WebGPU validation exists only on the WebGPU backend; see the WebGL test below',
  );
  await openPage('test/browser/harness/pages/blank.html');
  await expect(page).toHaveTitle('ready');
  expect(await errorLog.take()).toEqual([]);
  await page.evaluate(() => {
    const device = (globalThis as never as { harness: { device: GPUDevice } }).harness.device;
    // Usage 0 is invalid for a texture: the device must report a validation error.
    device.createTexture({ size: [4, 4], format: 'rgba8unorm', usage: 0, label: 'planted' });
  });
  const errors = await errorLog.take();
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/GPUValidationError/);
});

test('a planted invalid WebGL call is caught from the console', async ({
  page,
  backend,
  openPage,
  errorLog,
}) => {
  test.skip(backend !== 'webgl', 'WebGL errors exist only on the WebGL2 backend');
  await openPage('test/browser/harness/pages/blank.html');
  await expect(page).toHaveTitle('ready');
  await page.evaluate(() => {
    const renderer = (
      globalThis as never as { harness: { renderer: { backend: { gl: WebGL2RenderingContext } } } }
    ).harness.renderer;
    const gl = renderer.backend.gl;
    gl.bindTexture(gl.TEXTURE_2D, null);
    // No texture bound: INVALID_OPERATION, which Chromium reports on the console.
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    gl.getError();
  });
  await expect
    .poll(async () => (await errorLog.take()).join('\n'), { timeout: 10_000 })
    .toMatch(/INVALID_OPERATION/);
});

test('page errors and console errors are caught', async ({ page, openPage, errorLog }) => {
  await openPage('test/browser/harness/pages/blank.html');
  await expect(page).toHaveTitle('ready');
  await page.evaluate(() => {
    console.error('planted console error');
    setTimeout(() => {
      throw new Error('planted page error');
    });
  });
  await expect
    .poll(async () => {
      const errors = await errorLog.take();
      return errors.length ? errors : undefined;
    })
    .toEqual(['console.error: planted console error', 'pageerror: planted page error']);
});
