/**
 * The imagery libraries are optional: the packed library has no `dependencies`, `geotiff` and
 * `pmtiles` are optional peer dependencies (like `sharp`), so a browser application that does not
 * import `@tessera-vt/tessera/imagery` installs the library and three and nothing else, and stays
 * small. Installed as a user would (`npm install three <tarball>` in a fresh folder):
 * - the packed package.json declares no dependency and only optional peers besides three;
 * - node_modules holds three and the library only, at most {@link MAX_INSTALLED_BYTES} besides three;
 * - opening a GeoTIFF or a PMTiles archive without its package fails with
 *   `TesseraConfigError('missing-dependency')` naming `npm install geotiff` / `npm install pmtiles`,
 *   in Node, and in Chromium in a page that imports the imagery entry built by Vite, webpack,
 *   esbuild and Rollup with their defaults (each build succeeds without the packages) or loaded
 *   unbundled through an import map that maps neither package.
 * That builds of an application importing only the root entry do not resolve either package is
 * packed-tarball.spec.ts's work: its application installs neither.
 */

import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath, hasChromium } from '../browser/chromium';
import { lockedVersion, packageManifest, packLibrary, run } from './support/packed-project';
import { serveStatic } from './support/static-server';

const REPOSITORY = resolve(import.meta.dirname, '../..');
/** Issue #43: an application without imagery installs at most 3 MB besides three. */
const MAX_INSTALLED_BYTES = 3_000_000;
const OPTIONAL_IMAGERY_PEERS = ['geotiff', 'pmtiles'];
/** The bundlers the probe page is built with, at the versions this repository locks. */
const TOOLS = ['vite', 'webpack', 'webpack-cli', 'esbuild', 'rollup', '@rollup/plugin-node-resolve'];

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
  test.setTimeout(540_000);
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

    // Chromium: the probe built by each bundler with its defaults, and unbundled with an import map
    // for three and the entry, none for the peers.
    test.skip(!hasChromium(), `no Chromium at ${chromiumPath()}`);
    await run(
      'npm',
      [
        'install',
        '-D',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        ...TOOLS.map((tool) => `${tool}@${lockedVersion(REPOSITORY, tool)}`),
      ],
      app,
      240_000,
    );
    const pageScript = "import report from './probe.js';\ndocument.title = JSON.stringify(report);\n";
    const page = (head: string, script: string) =>
      `<!doctype html><html><head><meta charset="utf-8" /><link rel="icon" href="data:," />${head}</head><body>${script}</body></html>\n`;
    const moduleScript = (src: string) => `<script type="module" src="${src}"></script>`;
    /** Writes the probe page into `folder` (its entry at `entry`) and builds it; returns what to serve. */
    const builds: Record<string, (folder: string, bin: (tool: string) => string) => Promise<string>> = {
      'import map': async (folder) => {
        const dist = `/node_modules/${packageName}/dist`;
        const imports = {
          three: '/node_modules/three/build/three.module.js',
          'three/webgpu': '/node_modules/three/build/three.webgpu.js',
          'three/tsl': '/node_modules/three/build/three.tsl.js',
          [`${packageName}/imagery`]: `${dist}/imagery.js`,
        };
        writeFileSync(join(folder, 'main.js'), pageScript);
        // Served from the application's folder, so /node_modules/ is the installed one.
        const base = `/${relative(app, folder)}`;
        writeFileSync(
          join(folder, 'index.html'),
          page(
            `<script type="importmap">${JSON.stringify({ imports })}</script>`,
            moduleScript(`${base}/main.js`),
          ),
        );
        return folder;
      },
      Vite: async (folder, bin) => {
        writeFileSync(join(folder, 'main.js'), pageScript);
        writeFileSync(join(folder, 'index.html'), page('', moduleScript('./main.js')));
        await run(bin('vite'), ['build'], folder, 180_000);
        return join(folder, 'dist');
      },
      'webpack --mode production': async (folder, bin) => {
        mkdirSync(join(folder, 'src'));
        writeFileSync(join(folder, 'src/index.js'), pageScript.replace('./probe.js', '../probe.js'));
        await run(bin('webpack'), ['--mode', 'production'], folder, 180_000);
        writeFileSync(join(folder, 'dist/index.html'), page('', '<script src="main.js"></script>'));
        return join(folder, 'dist');
      },
      'esbuild --bundle --format=esm': async (folder, bin) => {
        writeFileSync(join(folder, 'main.js'), pageScript);
        await run(
          bin('esbuild'),
          ['main.js', '--bundle', '--format=esm', '--outfile=dist/main.js'],
          folder,
          180_000,
        );
        writeFileSync(join(folder, 'dist/index.html'), page('', moduleScript('main.js')));
        return join(folder, 'dist');
      },
      'Rollup + @rollup/plugin-node-resolve': async (folder, bin) => {
        writeFileSync(join(folder, 'main.js'), pageScript);
        await run(
          bin('rollup'),
          ['main.js', '-p', '@rollup/plugin-node-resolve', '-d', 'dist'],
          folder,
          180_000,
        );
        writeFileSync(join(folder, 'dist/index.html'), page('', moduleScript('main.js')));
        return join(folder, 'dist');
      },
    };
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    try {
      for (const [name, build] of Object.entries(builds)) {
        const folder = join(app, 'builds', name.replace(/\W+/g, '-'));
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, 'probe.js'), PROBE(`${packageName}/imagery`));
        let served: string;
        try {
          served = await build(folder, (tool) => join(app, 'node_modules/.bin', tool));
        } catch (error) {
          expect.soft(error, `${name}: the build, without geotiff and pmtiles`).toBeUndefined();
          continue;
        }
        const server = await serveStatic({ '/': name === 'import map' ? app : served });
        const tab = await browser.newPage();
        try {
          const pageErrors: string[] = [];
          tab.on('pageerror', (error) => pageErrors.push(error.message));
          await tab.goto(
            name === 'import map' ? `${server.origin}/${relative(app, folder)}/` : `${server.origin}/`,
          );
          await tab.waitForFunction(() => document.title.startsWith('{'), null, { timeout: 30_000 });
          expectMissingDependencies(JSON.parse(await tab.title()), `Chromium, ${name}`);
          expect.soft(pageErrors, `${name}: page errors`).toEqual([]);
        } finally {
          await tab.close();
          await server.close();
        }
      }
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
