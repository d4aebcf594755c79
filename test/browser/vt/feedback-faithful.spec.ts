import type { Page } from '@playwright/test';
import { EXTENDED, expect, test } from '../fixtures';
import { waitForScene } from './vt-scene-api';

/** The page API of pages/faithful-scene.ts. */
interface FaithfulApi {
  fw: number;
  ids: { a: number; b: number };
  run(frames: number): Promise<number[][]>;
  calls: { before: number; after: number; sceneBefore: number; sceneAfter: number };
}
declare const faithful: FaithfulApi;

const PAGE = 'test/browser/vt/pages/faithful-scene.html';
const A = 0;
const B = 1;
const NONE = -1;

/** Opens the scene `which` and returns the feedback grid after `frames` frames. */
async function feedback(
  page: Page,
  openPage: (path: string, query?: Record<string, string | number>) => Promise<void>,
  which: string,
  frames = 6,
  extra: Record<string, string | number> = {},
): Promise<number[][]> {
  await openPage(PAGE, { case: which, ...extra });
  await waitForScene(page);
  const grid = await page.evaluate((n) => faithful.run(n), frames);
  expect(grid.length, 'a feedback readback arrived').toBe(16);
  expect(await page.evaluate(() => faithful.ids)).toEqual({ a: A, b: B });
  return grid;
}

/** The vt ids found in the block of feedback pixels rows r0..r1, columns c0..c1 (inclusive). */
function idsIn(grid: number[][], r0: number, r1: number, c0: number, c1: number): number[] {
  const seen = new Set<number>();
  for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) seen.add(grid[r][c]);
  return [...seen].sort();
}

/** Share of the block's pixels holding `id`. */
function share(grid: number[][], id: number, r0: number, r1: number, c0: number, c1: number): number {
  let n = 0;
  for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) if (grid[r][c] === id) n++;
  return n / ((r1 - r0 + 1) * (c1 - c0 + 1));
}

const show = (grid: number[][]) => grid.map((row) => row.map((v) => (v < 0 ? '.' : v)).join('')).join('\n');

test('a plane displaced by its positionNode requests where the displaced surface is', async ({
  page,
  openPage,
}) => {
  const grid = await feedback(page, openPage, 'displaced');
  // Geometry over x in [0, 0.5], moved by +0.5: columns 8-15 only.
  expect(idsIn(grid, 1, 14, 9, 14), show(grid)).toEqual([A]);
  expect(idsIn(grid, 0, 15, 0, 6), show(grid)).toEqual([NONE]);
});

for (const [which, kind] of [
  ['instanced', 'an InstancedMesh'],
  ['batched', 'a BatchedMesh'],
]) {
  test(`each instance of ${kind} requests where it is`, { tag: which === 'batched' ? EXTENDED : [] }, async ({
    page,
    openPage,
  }) => {
    const grid = await feedback(page, openPage, which);
    // Strips 0.125 wide centred at x = 0.2, 0.5, 0.8: columns 3, 7-8 and 12.
    for (const column of [3, 8, 12]) expect(idsIn(grid, 2, 13, column, column), show(grid)).toEqual([A]);
    for (const column of [0, 5, 10, 15])
      expect(idsIn(grid, 0, 15, column, column), show(grid)).toEqual([NONE]);
  });
}

test('a SkinnedMesh requests where its bones pose it', async ({ page, openPage }) => {
  const grid = await feedback(page, openPage, 'skinned');
  // Bind pose: a strip over rows 0-3; bone 1 carries its right end (x > 0.5) down to rows 8-11.
  expect(idsIn(grid, 1, 2, 1, 3), show(grid)).toEqual([A]);
  expect(idsIn(grid, 9, 10, 13, 15), show(grid)).toEqual([A]);
  expect(idsIn(grid, 0, 4, 13, 15), show(grid)).toEqual([NONE]);
});

test('where an alpha-tested quad discards, the plane behind it requests', async ({ page, openPage }) => {
  const grid = await feedback(page, openPage, 'alpha-test');
  // The quad (texture b) is cut away on its left half (alpha map 0 < alphaTest 0.5).
  expect(idsIn(grid, 0, 15, 0, 6), show(grid)).toEqual([A]);
  expect(idsIn(grid, 0, 15, 9, 15), show(grid)).toEqual([B]);
});

/**
 * A mesh without a virtual texture is not drawn by the feedback (either way of writing it): the
 * plane behind a plain quad requests where the quad discards and where it does not.
 */
test('a plain quad in front of the plane hides nothing from the feedback', {
  tag: EXTENDED,
}, async ({ page, openPage }) => {
  const grid = await feedback(page, openPage, 'alpha-test', 6, { occluder: 1 });
  expect(idsIn(grid, 0, 15, 0, 6), show(grid)).toEqual([A]);
  expect(idsIn(grid, 0, 15, 9, 15), show(grid)).toEqual([A]);
});

test('transparent quads do not occlude the plane behind them', { tag: EXTENDED }, async ({
  page,
  openPage,
}) => {
  const grid = await feedback(page, openPage, 'transparent');
  // Left: a plain transparent quad, invisible to the feedback. Right: a transparent quad of
  // texture b, which requests on half the pixels (alternating each frame) and lets a through.
  expect(idsIn(grid, 0, 15, 0, 7), show(grid)).toEqual([A]);
  expect(idsIn(grid, 0, 15, 8, 15), show(grid)).toEqual([A, B]);
  expect(share(grid, B, 0, 15, 8, 15), show(grid)).toBeGreaterThan(0.3);
  expect(share(grid, A, 0, 15, 8, 15), show(grid)).toBeGreaterThan(0.3);
});

test("a mesh's and the scene's onBeforeRender and onAfterRender run once per frame", {
  tag: EXTENDED,
}, async ({ page, openPage }) => {
  const grid = await feedback(page, openPage, 'callbacks', 6);
  expect(idsIn(grid, 0, 15, 0, 15)).toEqual([A]);
  // Six frames, each one main render (and one feedback pass that must not call them).
  expect(await page.evaluate(() => ({ ...faithful.calls }))).toEqual({
    before: 6,
    after: 6,
    sceneBefore: 6,
    sceneAfter: 6,
  });
});
