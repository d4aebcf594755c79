import { expect, test } from '../fixtures';

test('three WebGPURenderer draws a textured plane with the expected colours', async ({ page, openPage }) => {
  await openPage('test/browser/harness/pages/smoke.html');
  await expect(page).toHaveTitle('ready');
  const { pixels, size } = await page.evaluate(async () => {
    const smoke = (globalThis as never as { smoke: { renderAndRead(): Promise<number[]>; size: number } })
      .smoke;
    return { pixels: await smoke.renderAndRead(), size: smoke.size };
  });
  // Sample the centre of each quadrant. Render-target rows may start at the top or the bottom
  // depending on the backend, so accept either vertical order but require each colour to dominate.
  const at = (x: number, y: number) => pixels.slice((y * size + x) * 4, (y * size + x) * 4 + 3);
  const q = size / 4;
  const bottom = [at(q, q), at(3 * q, q)];
  const top = [at(q, 3 * q), at(3 * q, 3 * q)];
  const red = [255, 0, 0];
  const green = [0, 255, 0];
  const blue = [0, 0, 255];
  const white = [255, 255, 255];
  const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]) <= 8);
  const upright = near(bottom[0], red) && near(bottom[1], green) && near(top[0], blue) && near(top[1], white);
  const flipped = near(top[0], red) && near(top[1], green) && near(bottom[0], blue) && near(bottom[1], white);
  expect(upright || flipped, `quadrants ${JSON.stringify({ bottom, top })}`).toBe(true);
});
