import { expect, test } from '../fixtures';
import { VT_SCENE, type VtSceneApi, waitForScene } from './vt-scene-api';

interface SharedFigures {
  budgetBytes: number;
  liveBytes: number;
  overBudgetBytes: number;
  byCategory: Record<string, number>;
  vtByCategory: Record<string, number>;
  vtGpuTotal: number;
  vtStagedBytes: number;
  tracked: number;
}

declare const vtScene: VtSceneApi & {
  shared(): SharedFigures;
  trackedBytes(): number;
  budgetLiveBytes(): number;
  tryConstruct(bytes: number): { code: string; reservedAfter: number; allocated: number };
  deprecatedBudget(
    bytes: number,
    share: number,
  ): { runtimeBudgetIsGiven: boolean; systemBudgetIsGiven: boolean; reserved: number; after: number };
};

/** The shared budget, in bytes, and the virtual textures' share of it. */
const SHARED = 16 * 1024 * 1024;
const VT_SHARE = 8 * 1024 * 1024;
const VT_CATEGORIES = ['vt-pool', 'page-table', 'feedback', 'readback', 'staging'] as const;

/**
 * One TextureBudget shared by a VirtualTextureSystem and a TextureStreamingSystem (four streamed
 * textures): at every frame the independent tracker's bytes stay within the budget and below the
 * budget's live reservations, and the VT system's reservations are the budget's VT categories,
 * staging included: the bytes of tiles loaded but not yet uploaded (and loads in flight) stay
 * within the staging reserve, inside the budget.
 */
test('a shared budget covers virtual and streamed textures at every frame, and dispose frees all', async ({
  page,
  openPage,
}) => {
  await openPage(VT_SCENE, { shared: SHARED, budget: VT_SHARE, delay: 1 });
  await waitForScene(page);
  const frames = await page.evaluate(async () => {
    await vtScene.waitReady();
    const records: SharedFigures[] = [vtScene.shared()];
    for (let round = 0; round < 4; round++) {
      vtScene.setPose(0.2 + round * 0.2, 0.05, 0.1 + round * 0.1, 0.3 * round, -0.5);
      for (let i = 0; i < 10; i++) {
        vtScene.step();
        records.push(vtScene.shared());
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
    }
    return records;
  });
  expect(frames.length).toBe(41);
  for (const f of frames) {
    expect(f.tracked).toBeGreaterThan(0);
    expect(f.tracked).toBeLessThanOrEqual(SHARED);
    expect(f.tracked).toBeLessThanOrEqual(f.liveBytes);
    expect(f.liveBytes).toBeLessThanOrEqual(f.budgetBytes);
    expect(f.overBudgetBytes).toBe(0);
    for (const category of VT_CATEGORIES) expect(f.vtByCategory[category]).toBe(f.byCategory[category]);
    expect(f.vtGpuTotal).toBeLessThanOrEqual(VT_SHARE);
    expect(f.byCategory.staging).toBeGreaterThan(0);
    expect(f.vtStagedBytes).toBeLessThanOrEqual(f.byCategory.staging);
  }
  // Tiles were staged on the way (loads in flight or awaiting upload) at some recorded frame.
  expect(Math.max(...frames.map((f) => f.vtStagedBytes))).toBeGreaterThan(0);
  // The streamed textures did reserve from the same budget.
  expect(Math.max(...frames.map((f) => f.byCategory.streamed))).toBeGreaterThan(0);

  await page.evaluate(() => vtScene.dispose());
  await page.waitForTimeout(50);
  const after = await page.evaluate(() => ({
    live: vtScene.budgetLiveBytes(),
    tracked: vtScene.trackedBytes(),
  }));
  expect(after.live).toBe(0);
  expect(after.tracked).toBeLessThanOrEqual(0);
});

test('a budget below the virtual-texture minimum throws at construction and allocates nothing', async ({
  page,
  openPage,
}) => {
  await openPage(VT_SCENE, { shared: SHARED, budget: VT_SHARE });
  await waitForScene(page);
  const small = await page.evaluate(() => vtScene.tryConstruct(1024 * 1024));
  expect(small).toEqual({ code: 'budget-too-small', reservedAfter: 0, allocated: 0 });
  const enough = await page.evaluate(() => vtScene.tryConstruct(8 * 1024 * 1024));
  expect(enough.code).toBe('ok');
  expect(enough.reservedAfter).toBe(0);
  await page.evaluate(() => vtScene.dispose());
});

test('a system given the deprecated shared budget makes its own runtime around that budget', async ({
  page,
  openPage,
}) => {
  await openPage(VT_SCENE, { shared: SHARED, budget: VT_SHARE });
  await waitForScene(page);
  const made = await page.evaluate(() => vtScene.deprecatedBudget(32 * 1024 * 1024, 8 * 1024 * 1024));
  expect(made.runtimeBudgetIsGiven).toBe(true);
  expect(made.systemBudgetIsGiven).toBe(true);
  expect(made.reserved).toBeGreaterThan(0);
  expect(made.reserved).toBeLessThanOrEqual(8 * 1024 * 1024);
  expect(made.after).toBe(0);
  await page.evaluate(() => vtScene.dispose());
});
