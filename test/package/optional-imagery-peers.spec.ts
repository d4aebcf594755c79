/**
 * The imagery libraries are optional: the packed library has no `dependencies`, `geotiff` and
 * `pmtiles` are optional peer dependencies (like `sharp`), so a browser application that does not
 * import `@tessera-vt/tessera/imagery` installs the library and three and nothing else, and stays
 * small. Installed as a user would (`npm install three <tarball>` in a fresh folder):
 * - the packed package.json declares no dependency and only optional peers besides three;
 * - node_modules holds three and the library only, at most {@link MAX_INSTALLED_BYTES} besides three;
 * - opening a GeoTIFF or a PMTiles archive without its package fails with
 *   `TesseraConfigError('missing-dependency')` naming `npm install geotiff` / `npm install pmtiles`,
 *   in Node and in Chromium without a bundler (an import map that maps neither package).
 * That builds of an application importing only the root entry do not resolve either package is
 * packed-tarball.spec.ts's work: its application installs neither, and builds under Vite,
 * webpack, esbuild and Rollup.
 */

import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath, hasChromium } from '../browser/chromium';
import { lockedVersion, packageManifest, packLibrary, run } from './support/packed-project';
import { serveStatic } from './support/static-server';

const REPOSITORY = resolve(import.meta.dirname, '../..');
/** Issue #43: an application without imagery installs at most 3 MB besides three. */
const MAX_INSTALLED_BYTES = 3_000_000;
const OPTIONAL_IMAGERY_PEERS = ['geotiff', 'pmtiles'];

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Bytes of every file under `path` (links counted as themselves, not followed). */
function fileBytes(path: string): number {
  const stats = lstatSync(path);
  if (!stats.isDirectory()) return stats.size;
  return readdirSync(path).reduce((sum, entry) => sum + fileBytes(join(path, entry)), 0);
}

/**
 * Opens a GeoTIFF and a PMTiles archive with the imagery entry `imagery` and reports how each
 * failed; the same text runs as a Node module and as a page's module script.
 */
const PROBE = (imagery: string) => `import { openCogPyramid, openPmtilesPyramid } from '${imagery}';
const emptySource = { getKey: () => 'empty', getBytes: async () => ({ data: new ArrayBuffer(0) }) };
const report = {};
for (const [name, open] of [
  ['cog', () => openCogPyramid(new ArrayBuffer(16))],
  ['pmtiles', () => openPmtilesPyramid(emptySource)],
]) {
  try {
    await open();
    report[name] = { opened: true };
  } catch (error) {
    report[name] = { name: error.name, code: error.code, message: error.message };
  }
}
export default report;
`;

/** What opening each kind without its package must fail with. */
function expectMissingDependencies(report: Record<string, Record<string, unknown>>, where: string) {
  for (const [kind, name] of [
    ['cog', 'geotiff'],
    ['pmtiles', 'pmtiles'],
  ]) {
    expect.soft(report[kind], `${where}: opening ${kind} without ${name}`).toMatchObject({
      name: 'TesseraConfigError',
      code: 'missing-dependency',
      message: expect.stringContaining(`npm install ${name}`),
    });
  }
}

test('without the optional imagery peers: no dependency, a small install, typed errors naming the install', async () => {
  // Node-side packaging plus one browser: one run, under the webgpu project.
  test.skip(test.info().project.name !== 'webgpu', 'runs once, under the webgpu project');
  test.setTimeout(300_000);
  const packageName = packageManifest(REPOSITORY).name;
  const work = mkdtempSync(join(tmpdir(), 'tessera-optional-peers-'));
  try {
    const tarball = await packLibrary(REPOSITORY, work);

    const manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
    ) as Manifest;
    expect(Object.keys(manifest.dependencies ?? {}), 'the packed dependencies').toEqual([]);
    const requiredPeers = Object.keys(manifest.peerDependencies ?? {}).filter(
      (name) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
    );
    expect(requiredPeers, 'peer dependencies that are not optional').toEqual(['three']);
    for (const name of OPTIONAL_IMAGERY_PEERS)
      expect(manifest.peerDependencies?.[name], `${name} is a peer dependency`).toBeDefined();

    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'app-without-imagery', private: true, type: 'module' }, null, 2)}\n`,
    );
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        `three@${lockedVersion(REPOSITORY, 'three')}`,
        tarball,
      ],
      app,
      240_000,
    );
    const modules = join(app, 'node_modules');
    const installed = readdirSync(modules)
      .filter((entry) => !entry.startsWith('.'))
      .flatMap((entry) =>
        entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry],
      )
      .sort();
    expect(installed, 'what a fresh install holds').toEqual([packageName, 'three'].sort());
    const besidesThree = fileBytes(modules) - fileBytes(join(modules, 'three'));
    console.log(`installed besides three: ${besidesThree} bytes (${packageName} alone)`);
    test
      .info()
      .annotations.push({ type: 'installed bytes besides three', description: String(besidesThree) });
    expect(besidesThree, 'bytes installed besides three').toBeLessThanOrEqual(MAX_INSTALLED_BYTES);

    // Node: the package's own exports resolve the entry.
    writeFileSync(join(app, 'probe.mjs'), PROBE(`${packageName}/imagery`));
    const nodeReport = JSON.parse(
      await run(
        process.execPath,
        ['--input-type=module', '-e', "console.log(JSON.stringify((await import('./probe.mjs')).default))"],
        app,
      ),
    );
    expectMissingDependencies(nodeReport, 'Node');

    // Chromium without a bundler: an import map for three and the entry, none for the peers.
    test.skip(!hasChromium(), `no Chromium at ${chromiumPath()}`);
    const dist = `/node_modules/${packageName}/dist`;
    const imports = {
      three: '/node_modules/three/build/three.module.js',
      'three/webgpu': '/node_modules/three/build/three.webgpu.js',
      'three/tsl': '/node_modules/three/build/three.tsl.js',
      [`${packageName}/imagery`]: `${dist}/imagery.js`,
    };
    writeFileSync(join(app, 'probe.js'), PROBE(`${packageName}/imagery`));
    writeFileSync(
      join(app, 'index.html'),
      `<!doctype html><html><head><meta charset="utf-8" /><link rel="icon" href="data:," />
<script type="importmap">${JSON.stringify({ imports })}</script></head>
<body><script type="module">
import report from './probe.js';
document.title = JSON.stringify(report);
</script></body></html>
`,
    );
    const server = await serveStatic({ '/': app });
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${server.origin}/`);
      await page.waitForFunction(() => document.title.startsWith('{'), null, { timeout: 30_000 });
      expectMissingDependencies(JSON.parse(await page.title()), 'Chromium, import map');
      expect.soft(pageErrors, 'page errors').toEqual([]);
    } finally {
      await browser.close();
      await server.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
