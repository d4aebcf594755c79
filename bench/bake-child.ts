/**
 * What the Node source benchmarks share for figures a process of its own must give (peak RSS):
 * an ES module run in a child Node with tsx, and a noisy PNG to bake out of core.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of a module under src/, for a child's `import()`. */
export function srcModule(path: string): string {
  return fileURLToPath(new URL(`../src/${path}`, import.meta.url));
}

/**
 * Runs `code` (an ES module body that ends by logging numbers separated by spaces) in a child
 * Node with tsx, and returns the numbers of the last line it printed.
 */
export function runChildModule(code: string): number[] {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
  });
  return (out.trim().split('\n').pop() ?? '').split(' ').map(Number);
}

/**
 * Writes a `size`² PNG of gaussian noise (sharp, fast compression) into a temporary folder, runs
 * `use(path)` and removes the folder, whatever `use` does.
 */
export async function withNoisyPng<T>(size: number, use: (path: string) => T | Promise<T>): Promise<T> {
  const { default: sharp } = await import('sharp');
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  try {
    const path = join(dir, 'in.png');
    await sharp({
      create: {
        width: size,
        height: size,
        channels: 3,
        background: { r: 90, g: 120, b: 60 },
        noise: { type: 'gaussian', mean: 110, sigma: 30 },
      },
    })
      .png({ compressionLevel: 1 })
      .toFile(path);
    return await use(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
