/**
 * The demo guide's automation block (`docs/demo.md`, "Automation API"), copied literally and run in
 * the demo page as a script typed into its console would be: every call answers, the transition
 * lands in the desert within the budget it reports, and nothing errs (the fixture fails the test
 * on any page, console or GPU error).
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { extractCodeBlock } from '../../package/support/readme-snippet';
import { DEMO_PAGE } from '../demo/demo-page';
import { expect, test } from '../fixtures';

const ROOT = resolve(import.meta.dirname, '../../..');

test('the demo guide automation block, literally: load, teleport, settle, a transition and the live settings', async ({
  page,
  openPage,
}) => {
  const guide = readFileSync(resolve(ROOT, 'docs/demo.md'), 'utf8');
  const code = extractCodeBlock(
    guide,
    '## Automation API (`window.demo`, types in `demo/automation.ts`)',
    'js',
  );
  await openPage(DEMO_PAGE, { auto: 0, size: '256x144', hud: 0 });
  // As typed into the console (top-level await there), then what it left behind.
  const result = await page.evaluate(
    `(async () => {\n${code}\nreturn { frames, settled, peakBytes, ruleBytes, stats: demo.stats() };\n})()`,
  );
  const r = result as {
    frames: number;
    settled: boolean;
    peakBytes: number;
    ruleBytes: number;
    stats: { scene: string; budgetBytes: number; usedBytes: number; errors: string[] };
  };
  expect(r.frames).toBeGreaterThan(0);
  expect(r.peakBytes).toBeLessThanOrEqual(r.ruleBytes);
  expect(r.stats.scene).toBe('desert');
  expect(r.stats.budgetBytes).toBe(48 * 2 ** 20);
  expect(r.stats.usedBytes).toBeLessThanOrEqual(r.stats.budgetBytes);
  expect(r.stats.errors).toEqual([]);
});
