import { expect, test } from '../fixtures';

interface ErrorStats {
  pixels: number;
  max: number;
  psnr: number;
}

interface Comparison {
  all: ErrorStats;
  boundary: ErrorStats;
  rest: ErrorStats;
  shifted: ErrorStats;
  centre: { globe: number[]; reference: number[] };
}

interface GlobeTestApi {
  fly(stop: string, frames?: number): Promise<void>;
  jump(stop: string): void;
  settle(maxFrames?: number): Promise<number>;
  compare(stop: string): Promise<Comparison>;
  dispose(): {
    afterGlobe: { residentPages: number; pageTableBytes: number };
    trackedBefore: number;
    trackedAfter: number;
  };
  budget(): {
    frames: number;
    maxReserved: number;
    maxGpu: number;
    overBudgetFrames: number;
    budgetBytes: number;
  };
  errors(): string[];
  cascade(): {
    zoom: number;
    region: boolean;
    originX: number;
    originY: number;
    texels: number;
    moving: boolean;
  }[];
  counters(): { regionMoves: number; texturesRemoved: number; requests: number };
  lastShots(): { width: number; height: number; globe: number[]; reference: number[] };
}
declare const globeTest: GlobeTestApi;

/**
 * Least PSNR against plain three.js drawing the server's tiles, per stop, dB (measured, pages of
 * 264, both backends alike: orbit 35.1, Paris 52.9, the region's edge 54.7 with 56.1 at the
 * boundary, Sydney 56.5). At zoom 18 the view is magnified 1.5x (mip 0 only, bilinear on both
 * sides): what differs is rounding, so the bar is high. From orbit both sides blend two mips of
 * different content (each zoom has its own noise, grid lines and labels) with weights that differ
 * (Tessera's trilinear blend has a knee, the hardware's is linear), so the bar is lower. Every bar
 * is above what the same frame scores against the reference moved by about one texel of the zoom
 * shown (28-31 dB), which each stop also checks.
 */
const MIN_PSNR: Record<string, number> = { orbit: 32, paris: 45, edge: 45, sydney: 45 };

test('one globe from orbit to zoom 18 over Paris, across a region edge, and a jump to Sydney', async ({
  page,
  openPage,
}) => {
  test.setTimeout(600_000);
  await openPage('/test/browser/sources/pages/imagery-globe.html');
  await page.waitForFunction(() => document.title === 'ready', undefined, { timeout: 60_000 });
  const report: string[] = [];
  const visit = async (stop: string, how: 'fly' | 'jump') => {
    if (how === 'fly') await page.evaluate((s) => globeTest.fly(s), stop);
    else await page.evaluate((s) => globeTest.jump(s), stop);
    const frames = await page.evaluate(() => globeTest.settle());
    expect(frames, `${stop}: settled`).toBeGreaterThan(0);
    const result = await page.evaluate((s) => globeTest.compare(s), stop);
    const line =
      `${stop}: ${frames} frames, ${result.all.psnr.toFixed(1)} dB over ${result.all.pixels} px ` +
      `(boundary ${result.boundary.psnr.toFixed(1)} dB over ${result.boundary.pixels} px, rest ` +
      `${result.rest.psnr.toFixed(1)} dB), one texel off ${result.shifted.psnr.toFixed(1)} dB; ` +
      `centre ${JSON.stringify(result.centre)}; cascade ${JSON.stringify(await page.evaluate(() => globeTest.cascade()))}`;
    report.push(line);
    console.log(line);
    test.info().annotations.push({ type: 'globe', description: line });
    // Both frames saved beside the test's results when below the bar (or always with GLOBE_SAVE=1).
    if (result.all.psnr < MIN_PSNR[stop] || process.env.GLOBE_SAVE) {
      const { default: sharp } = await import('sharp');
      const shots = await page.evaluate(() => globeTest.lastShots());
      for (const which of ['globe', 'reference'] as const) {
        await sharp(Buffer.from(shots[which]), {
          raw: { width: shots.width, height: shots.height, channels: 4 },
        })
          .png()
          .toFile(test.info().outputPath(`${stop}-${which}.png`));
      }
    }
    expect(result.all.pixels, line).toBeGreaterThan(20_000);
    expect(result.all.psnr, line).toBeGreaterThanOrEqual(MIN_PSNR[stop]);
    // The measure sees a one-texel misplacement (else the bar above proves nothing).
    expect(result.shifted.psnr, line).toBeLessThan(result.all.psnr - 3);
    return result;
  };

  await visit('orbit', 'jump');
  const paris = await visit('paris', 'fly');
  const cascade = await page.evaluate(() => globeTest.cascade());
  expect(cascade.map((level) => level.zoom)).toEqual([12, 18]);
  // The finest region covers Paris.
  expect(paris.all.pixels).toBeGreaterThan(0);
  // Where the region meets the whole-world texture: as good as elsewhere (no seam).
  const edge = await visit('edge', 'fly');
  expect(edge.boundary.pixels, 'the region edge crosses the view').toBeGreaterThan(5_000);
  expect(edge.rest.pixels).toBeGreaterThan(5_000);
  expect(edge.boundary.psnr).toBeGreaterThanOrEqual(edge.rest.psnr - 3);
  const movesBefore = (await page.evaluate(() => globeTest.counters())).regionMoves;
  await visit('sydney', 'jump');
  const after = await page.evaluate(() => globeTest.counters());
  // The jump moved the region (and the old one's pages went back to the pool).
  expect(after.regionMoves).toBeGreaterThan(movesBefore);
  expect(after.texturesRemoved).toBeGreaterThan(0);

  const budget = await page.evaluate(() => globeTest.budget());
  console.log(`budget: ${JSON.stringify(budget)}`);
  expect(budget.overBudgetFrames, JSON.stringify(budget)).toBe(0);
  expect(budget.maxReserved).toBeLessThanOrEqual(budget.budgetBytes);
  expect(await page.evaluate(() => globeTest.errors())).toEqual([]);

  // Every byte back: the globe's pages and page tables, then the system's own.
  const left = await page.evaluate(() => globeTest.dispose());
  expect(left.afterGlobe).toEqual({ residentPages: 0, pageTableBytes: 0 });
  expect(left.trackedBefore, 'the tracker saw the textures').toBeGreaterThan(1_000_000);
  expect(left.trackedAfter, JSON.stringify(left)).toBe(0);
});
