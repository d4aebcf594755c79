import { expect, test } from '../fixtures';

interface CompressedRvtApi {
  compare(
    x0: number,
    y0: number,
    mip: number,
  ): Promise<{
    settleFrames: number;
    bcVsDirect: number;
    bcVsRgba8: number;
    rgba8VsDirect: number;
    poolFormats: string[];
    rgba8PoolFormats: string[];
    compressedTotal: number;
    renderedTotal: number;
    renderTargetBytes: number;
    stagingReserved: number;
  }>;
  frames(): { budgetLive: number; tracked: number; rendered: number }[];
  budgetBytes: number;
  dispose(): number;
}
declare const bcrvt: CompressedRvtApi;

/**
 * Rendered pages in a block-compressed pool (`rendered: 'compressed'`), one view per backend: on
 * WebGPU the layer is BC7 sRGB, every rendered page compressed on the GPU into its slot, and the
 * picture matches the material drawn directly (>= 35 dB) and the uncompressed rendered pool
 * (>= 38 dB); on WebGL2 the same option keeps rgba8 and renders as before. The shared budget
 * holds every frame (the compressors' buffers are in it), renders per frame stay bounded, and
 * dispose frees every byte.
 */
test('rendered pages compressed on the GPU into a BC7 pool match the direct render and the rgba8 pool', async ({
  page,
  openPage,
  backend,
}) => {
  await openPage('test/browser/vt/pages/rendered-compressed-scene.html');
  await page.waitForFunction(() => document.title === 'ready', null, { timeout: 60_000 });
  const r = await page.evaluate(() => bcrvt.compare(200, 330, 0));
  console.log(`[${backend}] rendered + compressed: ${JSON.stringify(r)}`);
  expect(r.bcVsDirect, JSON.stringify(r)).toBeGreaterThanOrEqual(35);
  expect(r.rgba8PoolFormats).toEqual(['rgba8unorm-srgb']);
  if (backend === 'webgpu') {
    expect(r.poolFormats).toEqual(['bc7-rgba-unorm-srgb']);
    expect(r.bcVsRgba8, JSON.stringify(r)).toBeGreaterThanOrEqual(38);
    expect(r.compressedTotal).toBe(r.renderedTotal);
    expect(r.compressedTotal).toBeGreaterThan(0);
    // One 128² rgba8 target plus the compressor's 16 KiB block buffer and 256-byte parameters.
    expect(r.renderTargetBytes).toBe(128 * 128 * 4 + 16384 + 256);
  } else {
    expect(r.poolFormats).toEqual(['rgba8unorm-srgb']);
    expect(r.compressedTotal).toBe(0);
    expect(r.renderTargetBytes).toBe(128 * 128 * 4);
  }
  expect(r.stagingReserved).toBeGreaterThanOrEqual(r.renderTargetBytes);
  const { frames, budgetBytes } = await page.evaluate(() => ({
    frames: bcrvt.frames(),
    budgetBytes: bcrvt.budgetBytes,
  }));
  for (const f of frames) {
    expect(f.budgetLive).toBeLessThanOrEqual(budgetBytes);
    expect(f.tracked).toBeLessThanOrEqual(budgetBytes);
    expect(f.rendered).toBeLessThanOrEqual(6);
  }
  const left = await page.evaluate(() => bcrvt.dispose());
  if (backend === 'webgpu') expect(left).toBe(0);
});
