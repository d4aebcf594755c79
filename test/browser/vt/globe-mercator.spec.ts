/**
 * Web Mercator imagery on a globe (`virtualTexture(vt, webMercatorUv())` on a `SphereGeometry`):
 * the camera flies from the whole Earth down to where the source's finest level is magnified,
 * through the antimeridian and a high latitude; every frame the independent GPU tracker keeps
 * the system's bytes under its budget, and each settled view equals plain three.js drawing the
 * same Mercator image as one texture through the same mapping. A view settles only once the
 * feedback finds no page missing, so the feedback requests what the mapped uv reads; a wrong
 * request (the sphere's own uv, or a mip from unmapped derivatives) would leave pages coarser than
 * the reference shows.
 */

import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { equirectangularToMercator, loadEarthImage } from '../../support/imagery/earth-image';
import { EXTENDED, expect, test } from '../fixtures';

interface View {
  lat: number;
  lon: number;
  distance: number;
}

interface GlobeSceneApi {
  mipCount: number;
  maxLatitudeDegrees: number;
  setView(view: View): void;
  fly(to: View, frames: number): Promise<void>;
  settle(maxFrames?: number): Promise<number>;
  compare(): Promise<{ psnr: number; worst: number; pixels: number }>;
  frames(): Promise<{ width: number; height: number; vt: number[]; reference: number[] }>;
  residentMips(): number[];
  budget(): {
    frames: number;
    maxTracked: number;
    maxStats: number;
    overFrames: number;
    budget: number;
    peak: number | null;
  };
  errors(): string[];
}
declare const globeScene: GlobeSceneApi;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Side of the Mercator image, texels: the largest a plain texture holds on every backend here. */
const SIZE = 4096;
/** Agreement of a settled view with plain three.js, dB (over the globe's pixels). */
const MIN_PSNR = 40;

/**
 * The path: the whole Earth, Europe closer and closer until the finest level is magnified, across
 * the antimeridian (Chukotka, land on both sides), and Greenland (where Mercator stretches the most
 * the map shows).
 */
const PATH: { name: string; view: View }[] = [
  { name: 'whole Earth', view: { lat: 20, lon: 10, distance: 4 } },
  { name: 'Europe', view: { lat: 45, lon: 8, distance: 1.8 } },
  { name: 'Alps', view: { lat: 46, lon: 8, distance: 1.25 } },
  { name: 'Alps, finest level magnified', view: { lat: 46.2, lon: 7.5, distance: 1.06 } },
  { name: 'antimeridian', view: { lat: 66, lon: 180, distance: 1.35 } },
  { name: 'Greenland', view: { lat: 72, lon: -40, distance: 1.5 } },
];

/** The Earth map reprojected to Web Mercator with grain, as raw rgba8 (rows top down), once per run. */
async function mercatorImage(): Promise<string> {
  const relative = `test-results/globe-mercator/mercator-${SIZE}.rgba`;
  const file = join(root, relative);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    // Grain, so a texel from the wrong place or mip shows in the error.
    const earth = await loadEarthImage(SIZE, SIZE / 2, 8);
    const scratch = `${file}.tmp-${process.pid}`;
    writeFileSync(scratch, equirectangularToMercator(earth, SIZE).data);
    renameSync(scratch, file);
  }
  return `/${relative}`;
}

test('a globe of Web Mercator imagery matches plain three.js from the whole Earth to the finest level, under budget', {
  tag: EXTENDED,
}, async ({ page, openPage, backend }) => {
  test.setTimeout(300_000);
  const image = await mercatorImage();
  await openPage('/test/browser/vt/pages/globe-mercator.html', { image, size: SIZE });
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 120_000 });
  expect(await page.evaluate(() => globeScene.maxLatitudeDegrees)).toBeCloseTo(85.0511, 4);

  const results: string[] = [];
  for (const [i, { name, view }] of PATH.entries()) {
    const outcome = await page.evaluate(
      async ({ view, first }) => {
        if (first) globeScene.setView(view);
        else await globeScene.fly(view, 12);
        const frames = await globeScene.settle();
        return { frames, comparison: await globeScene.compare(), mips: globeScene.residentMips() };
      },
      { view, first: i === 0 },
    );
    const { comparison } = outcome;
    results.push(`${name}: ${comparison.psnr.toFixed(1)} dB (${outcome.frames} frames)`);
    // The whole Earth and the antimeridian are kept to look at (north up, no seam line).
    if (comparison.psnr < MIN_PSNR || i === 0 || name === 'antimeridian') {
      await saveFrames(page, `${backend}-${name.replace(/\W+/g, '-')}`);
    }
    expect(outcome.frames, `${name}: settled`).toBeGreaterThan(0);
    expect(comparison.psnr, `${name}: ${JSON.stringify(comparison)}`).toBeGreaterThanOrEqual(MIN_PSNR);
    expect(comparison.pixels).toBeGreaterThan(10_000);
    if (name === 'Alps, finest level magnified') {
      // The finest level is on screen: mip 0 pages are resident.
      expect(outcome.mips[0], JSON.stringify(outcome.mips)).toBeGreaterThan(0);
    }
  }

  const budget = await page.evaluate(() => globeScene.budget());
  expect(budget.overFrames, JSON.stringify(budget)).toBe(0);
  expect(budget.maxTracked).toBeLessThanOrEqual(budget.budget);
  expect(budget.maxTracked).toBeGreaterThan(0);
  if (budget.peak !== null) expect(budget.peak).toBeLessThanOrEqual(budget.budget);
  expect(await page.evaluate(() => globeScene.errors())).toEqual([]);
  console.log(
    `globe mercator (${backend}): ${results.join('; ')}; tracker max ${(budget.maxTracked / 2 ** 20).toFixed(1)} MiB of ${(budget.budget / 2 ** 20).toFixed(0)} over ${budget.frames} frames`,
  );
});

/** Saves the virtual texture's frame and the reference as PNGs under test-results/globe-mercator. */
async function saveFrames(page: import('@playwright/test').Page, name: string): Promise<void> {
  const { default: sharp } = await import('sharp');
  const shots = await page.evaluate(() => globeScene.frames());
  for (const which of ['vt', 'reference'] as const) {
    await sharp(Buffer.from(shots[which]), { raw: { width: shots.width, height: shots.height, channels: 4 } })
      .png()
      .toFile(join(root, `test-results/globe-mercator/${name}-${which}.png`));
  }
}
