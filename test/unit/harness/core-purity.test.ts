import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Backs up the lint rule: src/core and src/sim stay renderer-agnostic and DOM-free, so they run
// in Node, in workers and under any renderer.
const root = new URL('../../../', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const FORBIDDEN = [
  { what: 'an import of three', pattern: /from\s+['"]three(\/[^'"]*)?['"]|import\(\s*['"]three/ },
  { what: 'an import of the three.js binding', pattern: /from\s+['"][./]*three\// },
  {
    what: 'a DOM global',
    pattern: /\b(window|document|navigator|HTMLCanvasElement|requestAnimationFrame)\s*[.(]/,
  },
];

describe.each(['src/core', 'src/sim'])('%s is pure TypeScript', (folder) => {
  const files = sourceFiles(join(root, folder));

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(FORBIDDEN)('contains no $what', ({ pattern }) => {
    const offenders = files.filter((file) => pattern.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
