/**
 * Installing from a clone, as the README tells a newcomer to do while nothing is on the npm
 * registry: a fresh `git clone` of the committed tree (no `dist/`, nothing built), its
 * dependencies, then `npm pack`. Each package's `prepack` script must build it, so every tarball
 * (the library, the baker, the React Three Fiber bindings) holds every file their `package.json` names: each `exports` entry point (`import` and `types`),
 * `main`, `types` and the baker's `bin`.
 *
 * The clone links this checkout's `node_modules` (what `npm ci` installed here) instead of
 * installing again: the test is about what packing builds, not about the registry.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { packPackages, packWorkspace } from './support/packed-project';

const REPOSITORY = resolve(import.meta.dirname, '../..');

interface Manifest {
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: Record<string, { types?: string; import?: string }>;
}

/** Every file `manifest` promises, as paths inside the package (no leading `./`). */
function promisedFiles(manifest: Manifest): string[] {
  const files = new Set<string>();
  const add = (path: string | undefined) => path !== undefined && files.add(posix.normalize(path));
  add(manifest.main);
  add(manifest.types);
  for (const target of Object.values(manifest.exports ?? {})) {
    add(target.import);
    add(target.types);
  }
  for (const path of Object.values(manifest.bin ?? {})) add(path);
  return [...files].sort();
}

/** The files in a tarball from `npm pack`, as paths inside the package. */
function tarballFiles(tarball: string): Set<string> {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  return new Set(
    listing
      .split('\n')
      .filter((line) => line.startsWith('package/'))
      .map((line) => line.slice('package/'.length)),
  );
}

test('npm pack in a fresh clone builds every package and ships every entry point', async () => {
  // Node only: one run, under the webgpu project.
  test.skip(test.info().project.name !== 'webgpu', 'runs once, under the webgpu project');
  test.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'tessera-clone-'));
  try {
    const clone = join(work, 'tessera');
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', REPOSITORY, clone]);
    expect(existsSync(join(clone, 'dist')), 'a fresh clone has nothing built').toBe(false);
    symlinkSync(join(REPOSITORY, 'node_modules'), join(clone, 'node_modules'), 'dir');

    const tarballs = await packPackages(clone, work);
    // The React Three Fiber bindings: no application here installs them, but they must pack.
    const reactBindings = await packWorkspace(clone, work, 'packages/react');
    for (const [tarball, folder] of [
      [tarballs.library, clone],
      [tarballs.baker, join(clone, 'packages/baker')],
      [reactBindings, join(clone, 'packages/react')],
    ] as const) {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
      const promised = promisedFiles(manifest);
      expect(promised.length, `${folder}/package.json names its entry points`).toBeGreaterThan(1);
      const shipped = tarballFiles(tarball);
      const missing = promised.filter((file) => !shipped.has(file));
      expect(missing, `${tarball} lacks entry points (${shipped.size} files shipped)`).toEqual([]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
