import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Keeps the architecture readable: no import circles in src/, and a demo and examples that use the
// package the way an application does. (No line cap: a file is sized by its concept, and a cap
// split concepts to fit it.)
const root = resolve(new URL('../../../', import.meta.url).pathname);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports (value and type) of `file`, resolved to files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = resolve(dirname(file), match[1]);
    const hit = [`${base}.ts`, join(base, 'index.ts'), base].find(
      (p) => existsSync(p) && statSync(p).isFile(),
    );
    if (hit) out.push(hit);
  }
  return out;
}

describe('source layout', () => {
  const files = sourceFiles(join(root, 'src'));

  it('has no import circle in src/ (type imports included)', () => {
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const state = new Map<string, 1 | 2>();
    const stack: string[] = [];
    const cycles: string[] = [];
    const visit = (node: string): void => {
      state.set(node, 1);
      stack.push(node);
      for (const next of graph.get(node) ?? []) {
        if (state.get(next) === 1) {
          cycles.push(
            stack
              .slice(stack.indexOf(next))
              .map((f) => relative(root, f))
              .join(' -> '),
          );
        } else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(node, 2);
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  // lab/ (experiments not shipped) is a consumer of src/, never a dependency of it.
  it('never imports lab/ or bench/ from src/', () => {
    const reaching = files.filter((f) =>
      importsOf(f).some((target) => /^(lab|bench)\//.test(relative(root, target))),
    );
    expect(reaching.map((f) => relative(root, f))).toEqual([]);
  });

  // What the archive and the imagery sources both need (range readers, decoders, the decode worker,
  // the HTTP client) lives in src/sources/io/, so neither folder reaches into the other, and io/
  // reaches into neither.
  const forbiddenFolderImports: ReadonlyArray<readonly [string, string]> = [
    ['src/sources/archive/', 'src/sources/imagery/'],
    ['src/sources/imagery/', 'src/sources/archive/'],
    ['src/sources/io/', 'src/sources/archive/'],
    ['src/sources/io/', 'src/sources/imagery/'],
  ];
  for (const [from, to] of forbiddenFolderImports) {
    it(`never imports ${to} from ${from} (type imports included)`, () => {
      const reaching = files
        .filter((f) => relative(root, f).startsWith(from))
        .flatMap((f) =>
          importsOf(f)
            .filter((target) => relative(root, target).startsWith(to))
            .map((target) => `${relative(root, f)} -> ${relative(root, target)}`),
        );
      expect(reaching).toEqual([]);
    });
  }

  // Rendered tiles and the GPU compressor are opt-in plug-ins: the core path reaches them through
  // one seam (page-producers.ts: each texture's page producer, chosen at add()), and the /three
  // entry re-exports their public names. Nothing else imports them, so the system, the uploads and
  // the texture set stay free of them.
  const pluginFolders = ['src/three/rendered/', 'src/three/gpu-compress/'];
  const pluginSeams = ['src/three/page-producers.ts', 'src/three/index.ts'];
  it(`imports ${pluginFolders.join(' and ')} only from ${pluginSeams.join(' and ')} (type imports included)`, () => {
    const inside = (path: string): boolean => pluginFolders.some((folder) => path.startsWith(folder));
    const reaching = files
      .filter((f) => !inside(relative(root, f)) && !pluginSeams.includes(relative(root, f)))
      .flatMap((f) =>
        importsOf(f)
          .filter((target) => inside(relative(root, target)))
          .map((target) => `${relative(root, f)} -> ${relative(root, target)}`),
      );
    expect(reaching).toEqual([]);
  });

  // demo/ and examples/ are applications: they import `@tessera-vt/tessera` by name (a Vite alias and tsconfig
  // paths resolve it to source), so they only use what the package exports.
  for (const app of ['demo', 'examples']) {
    it(`lets ${app}/ import only package entry points, never src/ paths`, () => {
      const reaching = sourceFiles(join(root, app)).filter((f) =>
        /(?:from|import)\s*\(?\s*['"](\.\.\/)+src\//.test(readFileSync(f, 'utf8')),
      );
      expect(reaching.map((f) => relative(root, f))).toEqual([]);
    });
  }
});
