import { expect, test } from '../fixtures';

interface RvtApi {
  compare(
    x0: number,
    y0: number,
    mip: number,
  ): Promise<{ settleFrames: number; psnr: number; stats: unknown }>;
  addRoad(points: number[], width: number): Promise<Record<string, number>>;
  cut(bytes: number): { rerendered: number; resident: number };
  frames(): { budgetLive: number; tracked: number; rendered: number }[];
  budgetBytes: number;
  stats(): { rendering: { renderedTotal: number }; gpuBytes: { renderTargets: number; total: number } };
  dispose(): number;
}
declare const rvt: RvtApi;

/**
 * Runtime virtual texture (RenderedTileSource), one page per backend: pages rendered on the GPU
 * from a splat-mapped TSL material (and ribbon decals) match the same material drawn straight on a
 * plane; an invalidation re-renders exactly the resident pages its rectangle overlaps, each staying
 * mapped until its new content is in; the budget holds every frame; dispose frees every byte.
 */
test('rendered pages match the material drawn directly, invalidate by region, stay in budget', async ({
  page,
  openPage,
  backend,
}) => {
  await openPage('test/browser/vt/pages/rendered-scene.html');
  await page.waitForFunction(() => document.title === 'ready', null, { timeout: 60_000 });
  const mip0 = await page.evaluate(() => rvt.compare(300, 420, 0));
  expect(mip0.psnr, JSON.stringify(mip0)).toBeGreaterThanOrEqual(35);
  // A road across the mip-0 view and beyond: some resident pages overlap it, most do not.
  const road = await page.evaluate(() => rvt.addRoad([250, 470, 400, 520, 560, 600], 14));
  expect(road.marked, JSON.stringify(road)).toBe(road.expected);
  expect(road.marked).toBeGreaterThan(0);
  expect(road.marked).toBeLessThan(road.resident);
  expect(road.rerendered).toBe(road.marked);
  expect(road.renderedDelta).toBe(road.marked);
  expect(road.lostMarked).toBe(0);
  // Mip 1 over the road: the decal as drawn directly, the base rendered at the page's mip.
  const withRoad = await page.evaluate(() => rvt.compare(250, 400, 1));
  expect(withRoad.psnr, JSON.stringify(withRoad)).toBeGreaterThanOrEqual(35);
  console.log(
    `[${backend}] rendered pages: PSNR mip 0 ${mip0.psnr.toFixed(1)} dB, mip 1 with a decal ${withRoad.psnr.toFixed(1)} dB; invalidation ${JSON.stringify(road)}`,
  );
  // A budget cut rebuilds the pool without a GPU copy: the pinned pages (no CPU copies) render
  // again at once, the rest re-renders as the view asks; the picture is the same once settled.
  const cut = await page.evaluate(() => rvt.cut(4 * 1024 * 1024));
  expect(cut.rerendered).toBe(cut.resident);
  expect(cut.resident).toBe(21);
  const afterCut = await page.evaluate(() => rvt.compare(250, 400, 1));
  expect(afterCut.psnr, JSON.stringify(afterCut)).toBeGreaterThanOrEqual(35);
  const { frames, budgetBytes } = await page.evaluate(() => ({
    frames: rvt.frames(),
    budgetBytes: rvt.budgetBytes,
  }));
  for (const f of frames) {
    expect(f.budgetLive).toBeLessThanOrEqual(budgetBytes);
    expect(f.tracked).toBeLessThanOrEqual(budgetBytes);
    expect(f.rendered).toBeLessThanOrEqual(6);
  }
  const left = await page.evaluate(() => rvt.dispose());
  if (backend === 'webgpu') expect(left).toBe(0);
});
