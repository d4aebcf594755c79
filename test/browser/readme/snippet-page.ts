import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import type { Backend } from '../fixtures';

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * Writes `code` (a guide's code block, literally) as `main.ts` of a bare page at `dir`
 * (repository-relative, served by the test server), beside an `index.html` loading it, and
 * returns the folder's absolute path (for the files the block names).
 */
export function writeSnippetPage(dir: string, code: string): string {
  const path = join(ROOT, dir);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'main.ts'), code);
  writeFileSync(
    join(path, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">' +
      '<style>html,body{margin:0;overflow:hidden}</style></head>' +
      '<body><script type="module" src="./main.ts"></script></body></html>\n',
  );
  return path;
}

/**
 * On the webgl project, hides WebGPU from the page before it loads, so three's renderer falls back
 * to WebGL2 by itself, as in a browser without it; the fallback's one notice is what this provokes,
 * any other warning still counts.
 */
export async function fallBackWithoutWebGPU(page: Page, backend: Backend): Promise<void> {
  if (backend !== 'webgl') return;
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).includes('WebGPU is not available, running under WebGL2 backend')) warn(...args);
    };
  });
}
