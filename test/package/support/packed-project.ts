/**
 * A throwaway application depending on the packed library, as a new user sets one up: the
 * tarball from `npm pack`, three and the build tools at the versions this repository locks.
 */

import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs `command` in `cwd`; rejects with the tail of its output when it fails. */
export function run(command: string, args: string[], cwd: string, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      if (error) {
        const tail = `${stdout}\n${stderr}`.trim().split('\n').slice(-30).join('\n');
        reject(new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${tail}`));
      } else resolve(stdout);
    });
  });
}

/** The packed tarballs: the library and the baker (`packages/baker`). */
export interface PackedPackages {
  library: string;
  baker: string;
}

/** Runs `npm pack` (its `prepack` script builds first) with `args`; returns the tarball's path. */
async function pack(repositoryRoot: string, destination: string, args: string[]): Promise<string> {
  const stdout = await run(
    'npm',
    ['pack', '--json', '--pack-destination', destination, ...args],
    repositoryRoot,
  );
  // The prepack build prints to the same stdout before npm's JSON, an array that opens on a line of its own.
  const json = stdout.slice(stdout.lastIndexOf('\n[\n') + 1);
  return join(destination, (JSON.parse(json) as { filename: string }[])[0].filename);
}

/**
 * Packs the library and the baker into `destination` (each package's `prepack` script builds it
 * first, as `npm pack` and an install from git run it); returns the tarballs' paths.
 */
export async function packPackages(repositoryRoot: string, destination: string): Promise<PackedPackages> {
  return {
    library: await packLibrary(repositoryRoot, destination),
    baker: await pack(repositoryRoot, destination, ['--workspace', 'packages/baker']),
  };
}

/**
 * Packs the workspace package in `folder` (e.g. `packages/react`) into `destination`, built by its
 * `prepack`; returns the tarball's path.
 */
export function packWorkspace(repositoryRoot: string, destination: string, folder: string): Promise<string> {
  return pack(repositoryRoot, destination, ['--workspace', folder]);
}

/** Packs the library alone into `destination` (built by its `prepack`); returns the tarball's path. */
export function packLibrary(repositoryRoot: string, destination: string): Promise<string> {
  return pack(repositoryRoot, destination, []);
}

/** The version of `name` in `package-lock.json`. */
export function lockedVersion(repositoryRoot: string, name: string): string {
  const lock = JSON.parse(readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (version === undefined) throw new Error(`package-lock.json locks no ${name}`);
  return version;
}

/** The name, and the commands if any, of the package whose package.json is in `folder`. */
export function packageManifest(folder: string): { name: string; bin?: Record<string, string> } {
  return JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
}

/**
 * Writes the application's package.json (the library from its tarball, three, and the baker and
 * `tools` as dev dependencies, each at the version this repository locks) and installs it, from the npm cache
 * where `npm ci` has already put those versions.
 */
export async function installApplication(
  repositoryRoot: string,
  directory: string,
  tarballs: PackedPackages,
  tools: readonly string[] = ['vite'],
) {
  const manifest = {
    name: 'packed-library-app',
    private: true,
    type: 'module',
    dependencies: {
      [packageManifest(repositoryRoot).name]: `file:${tarballs.library}`,
      three: lockedVersion(repositoryRoot, 'three'),
    },
    devDependencies: {
      [packageManifest(join(repositoryRoot, 'packages/baker')).name]: `file:${tarballs.baker}`,
      ...Object.fromEntries(tools.map((tool) => [tool, lockedVersion(repositoryRoot, tool)])),
    },
  };
  writeFileSync(join(directory, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], directory, 240_000);
}
