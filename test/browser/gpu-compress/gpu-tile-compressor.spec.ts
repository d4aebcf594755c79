import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GpuBlockFormat } from '../../../src/three/gpu-compress/block-layout';
import { expect, test } from '../fixtures';
import { makePhotograph } from '../readme/photo-fixture';

interface CompressLab {
  quality(
    format: GpuBlockFormat,
    tileSize: number,
    seed: number,
    photos: Record<string, string>,
    bc7Modes?: 'mode6' | 'mode6+mode1',
  ): Promise<{ psnr: Record<string, number>; lineFit: Record<string, number>; tiles: number }>;
  placement(): Promise<{ changedOutside: number; unchangedInside: number; slotBlocks: number; psnr: number }>;
  badArguments(): Promise<{ codes: Record<string, string>; queued: number; psnr: number[] }>;
  steadyState(): Promise<Record<string, number>>;
  atlasSource(): Promise<number[]>;
  createHeld(format: GpuBlockFormat, tileSize: number, batchTiles: number): number;
  disposeHeld(): void;
  support(): { bc7: boolean; createCode: string };
}
declare const compressLab: CompressLab;

/** Calls the injected GPU tracker (test/support/gpu-tracker.js) of `page`. */
function trackerCall<T>(page: import('@playwright/test').Page, call: string): Promise<T> {
  return page.evaluate(`globalThis.__tesseraGpuTracker.${call}`) as Promise<T>;
}

/**
 * The photographs the quality checks cut tiles from (the README test's generator), repo-relative:
 * with luminance grain, and with independent noise per channel (the README test's own image).
 */
const PHOTO_LUMINANCE = 'test-results/gpu-compress/photo-luminance-grain.png';
const PHOTO_CHANNEL = 'test-results/gpu-compress/photo-channel-noise.png';

const PAGE = '/test/browser/gpu-compress/pages/compress-lab.html';

/** Quality floors from issue #14, dB (vs the uncompressed rgba8 tile). */
const MIN_PSNR = { bc7: 38, bc1: 32, bc5: 40 };
/** How far BC7 must rise above the one-line-per-block ceiling on per-channel noise, dB. */
const MIN_OVER_LINE_FIT = 1;
/** Least gain of modes 6 + 1 over mode 6 alone on detailed content, dB. */
const MIN_MODE1_GAIN = 2;
/** How far mode 6 alone may stay below the one-line-per-block ceiling, dB. */
const MAX_MODE6_BELOW_LINE_FIT = 1;

// One page for every WebGPU test: the compressor runs on WebGPU only.
test.describe('GpuTileCompressor on WebGPU', () => {
  test.describe.configure({ mode: 'serial' });
  test.skip(({ backend }) => backend !== 'webgpu', 'compute compression is WebGPU only');
  let page: import('@playwright/test').Page;
  const errors: string[] = [];

  test.beforeAll(async ({ browser }) => {
    if (!existsSync(PHOTO_LUMINANCE))
      await makePhotograph(join(process.cwd(), PHOTO_LUMINANCE), 1024, 512, 'luminance');
    if (!existsSync(PHOTO_CHANNEL))
      await makePhotograph(join(process.cwd(), PHOTO_CHANNEL), 1024, 512, 'channel');
    page = await browser.newPage();
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || /WebGPU|validation/i.test(message.text()))
        errors.push(message.text());
    });
    await page.addInitScript({ path: new URL('../../support/gpu-tracker.js', import.meta.url).pathname });
    await page.goto(`${PAGE}?backend=webgpu`);
    await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  });
  test.afterEach(async () => {
    errors.push(...(await trackerCall<string[]>(page, 'checkErrors()')));
    expect(errors.splice(0), 'page, console or GPU errors').toEqual([]);
  });
  test.afterAll(async () => page.close());

  test('BC7, BC1 and BC5 tiles of terrain detail and photographs meet the PSNR floors; dispose frees every byte', async () => {
    test.setTimeout(120_000);
    const photos = { photo: `/${PHOTO_LUMINANCE}`, 'photo-channel-noise': `/${PHOTO_CHANNEL}` };
    // Seeds 1000+ were never used while writing the encoders.
    const bc7 = await page.evaluate(
      ([p]) => compressLab.quality('bc7-rgba-unorm-srgb', 128, 1001, p),
      [photos],
    );
    const bc1 = await page.evaluate(
      ([p]) => compressLab.quality('bc1-rgba-unorm-srgb', 136, 1101, p),
      [photos],
    );
    const bc5 = await page.evaluate(([p]) => compressLab.quality('bc5-rg-unorm', 128, 1201, p), [photos]);
    const mode6 = await page.evaluate(
      ([p]) => compressLab.quality('bc7-rgba-unorm-srgb', 128, 1001, p, 'mode6'),
      [photos],
    );
    console.log(
      `PSNR dB: BC7 ${JSON.stringify(bc7.psnr)}\nBC7 mode 6 alone ${JSON.stringify(mode6.psnr)}\nBC1 ${JSON.stringify(bc1.psnr)}\nBC5 ${JSON.stringify(bc5.psnr)}`,
    );
    console.log(`one-line-per-block ceiling dB: ${JSON.stringify(bc7.lineFit)}`);
    expect(bc7.tiles).toBe(16);
    for (const kind of ['grass', 'pebbles', 'road', 'demo-world', 'photo']) {
      expect(bc7.psnr[kind], `BC7 ${kind}`).toBeGreaterThanOrEqual(MIN_PSNR.bc7);
      expect(bc1.psnr[kind], `BC1 ${kind}`).toBeGreaterThanOrEqual(MIN_PSNR.bc1);
      // BC7 is the better colour format on the same content: the choice of formats is measured.
      expect(bc7.psnr[kind]).toBeGreaterThan(bc1.psnr[kind]);
    }
    expect(bc5.psnr.normals).toBeGreaterThanOrEqual(MIN_PSNR.bc5);
    expect(bc5.psnr['demo-world']).toBeGreaterThanOrEqual(MIN_PSNR.bc5);
    // Independent noise per channel is off any line through colour space: no single-subset
    // encoder (mode 6 alone) reaches 38 dB there. Two subsets (mode 1) must beat that ceiling.
    const ceiling = bc7.lineFit['photo-channel-noise'];
    expect(ceiling).toBeLessThan(MIN_PSNR.bc7);
    expect(bc7.psnr['photo-channel-noise']).toBeGreaterThan(ceiling + MIN_OVER_LINE_FIT);
    expect(bc1.psnr['photo-channel-noise']).toBeGreaterThanOrEqual(MIN_PSNR.bc1);
    // Mode 1 is worth its cost on detail (measured, not assumed), and mode 6 alone is near the
    // best any one-subset mode can do.
    for (const kind of ['grass', 'pebbles', 'photo']) {
      expect(bc7.psnr[kind] - mode6.psnr[kind], `mode 1's gain on ${kind}`).toBeGreaterThanOrEqual(
        MIN_MODE1_GAIN,
      );
      expect(mode6.psnr[kind], `mode 6 on ${kind}`).toBeGreaterThanOrEqual(
        bc7.lineFit[kind] - MAX_MODE6_BELOW_LINE_FIT,
      );
    }

    const bytes = await page.evaluate(() => compressLab.createHeld('bc7-rgba-unorm', 136, 16));
    const tracked = await trackerCall<number>(page, "liveBytesWithPrefix('tessera:gpu-compress')");
    expect(bytes).toBe(16 * (34 * 768) + 16 * 256);
    expect(tracked).toBe(bytes);
    await page.evaluate(() => compressLab.disposeHeld());
    expect(await trackerCall<number>(page, "liveBytesWithPrefix('tessera:gpu-compress')")).toBe(0);
  });

  test('a padded 136² tile lands in its array-pool slot only, as the render target shows it; atlas tiles by origin', async () => {
    const result = await page.evaluate(() => compressLab.placement());
    expect(result.slotBlocks).toBe(34 * 34);
    expect(result.changedOutside).toBe(0);
    expect(result.unchangedInside).toBe(0);
    expect(result.psnr).toBeGreaterThanOrEqual(MIN_PSNR.bc7);
    // Tiles of one atlas source, each read from its own origin.
    for (const value of await page.evaluate(() => compressLab.atlasSource())) {
      expect(value).toBeGreaterThanOrEqual(MIN_PSNR.bc7);
    }
  });

  test('steady state creates no GPU objects but one command encoder per submit', async () => {
    expect(await page.evaluate(() => compressLab.steadyState())).toEqual({
      createBindGroup: 0,
      createBuffer: 0,
      createTexture: 0,
      createComputePipeline: 0,
      createShaderModule: 0,
      createCommandEncoder: 3,
      createView: 0,
    });
  });

  test('bad arguments throw typed errors and lose no queued tile', async () => {
    const result = await page.evaluate(() => compressLab.badArguments());
    expect(result.codes).toEqual({
      wrongPoolFormat: 'TesseraConfigError:invalid-option',
      slotOffBlockGrid: 'TesseraConfigError:invalid-size',
      slotOutsidePool: 'TesseraConfigError:invalid-size',
      slotNegative: 'TesseraConfigError:invalid-size',
      layerPastPool: 'TesseraConfigError:invalid-size',
      sourceTooSmall: 'TesseraConfigError:invalid-size',
      sourceOriginOutside: 'TesseraConfigError:invalid-size',
      sourceNotCreated: 'TesseraConfigError:invalid-option',
      sourceNotRgba8: 'TesseraConfigError:invalid-option',
      tileSizeNotBlocks: 'TesseraConfigError:invalid-tile',
      batchOfZero: 'TesseraConfigError:invalid-option',
      unknownBc7Modes: 'TesseraConfigError:invalid-option',
      unknownFormat: 'TesseraConfigError:invalid-option',
      afterDispose: 'TesseraError:disposed',
      disposeTwice: 'none',
    });
    expect(result.queued).toBe(2);
    for (const value of result.psnr) expect(value).toBeGreaterThanOrEqual(MIN_PSNR.bc7);
  });
});

test('on WebGL2 the compressor is unsupported and says so with a typed error', async ({
  page,
  openPage,
  backend,
}) => {
  test.skip(backend !== 'webgl', 'the WebGL2 backend only');
  await openPage(PAGE);
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  expect(await page.evaluate(() => compressLab.support())).toEqual({
    bc7: false,
    createCode: 'TesseraConfigError:invalid-option',
  });
});
