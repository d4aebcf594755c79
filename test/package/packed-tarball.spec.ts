/**
 * The packed library as a new user installs it: `npm pack`, installed into one fresh application
 * next to three and the build tools (each at the version this repository locks), then on WebGPU
 * and on WebGL2 (navigator.gpu hidden):
 * - the README's "Add a virtual texture to your scene" code, literally, as the application's main
 *   module under Vite, a photograph baked with the installed CLI, compared with the same code
 *   against plain three.js (the photo loaded by TextureLoader, see support/plain-three-tessera.js);
 * - one page (support/setup-page.js: a UASTC archive into a compressed pool, a WebP archive, a
 *   glTF with KTX2 textures through the glTF plugin) in every setup of support/setups.ts: Vite,
 *   webpack, esbuild, Rollup, each with its defaults, and no bundler with an import map, from the
 *   page's origin and from another one. Each must settle with no page error, console error or GPU
 *   validation error and draw what the others draw.
 * The packed `dist/` must hold no bundler-specific import (`?raw`, `?url`, `?worker`). The
 * application installs neither optional imagery peer (`geotiff`, `pmtiles`), so every build shows
 * that an application importing only the root entry never resolves them.
 *
 * One test, packing and installing once, one browser per backend (both at once); soft assertions, so
 * one failing setup still reports the others (the table is printed and attached).
 * `TESSERA_README=<path>` reads the README code block from another Markdown file (e.g. a draft).
 */

import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, expect, type Page, test } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../browser/chromium';
import { psnrOfPngs } from './support/image-compare';
import { installApplication, packageManifest, packPackages, run } from './support/packed-project';
import { writePhotoLikeJpeg } from './support/photo';
import { extractCodeBlock } from './support/readme-snippet';
import { setupFixtures } from './support/setup-fixtures';
import { BUILD_TIMEOUT_MS, SETUPS, type Setup, type SetupContext } from './support/setups';
import { type StaticServer, serveStatic } from './support/static-server';

const REPOSITORY = resolve(import.meta.dirname, '../..');
const README_HEADING = '## Add a virtual texture to your scene';
/** Agreement with plain three.js expected once the README shows a baked photo on a plane. */
const MIN_PSNR_DB = 50;
/** Agreement of each setup's page with the first setup's, on the same backend. */
const MIN_SETUP_PSNR_DB = 50;
/** What the README's `whenSettled()` callback logs. */
const SETTLED_MESSAGE = /tessera: every page in view is resident/;
const README_VIEWPORT = { width: 960, height: 480 };
const SETUP_VIEWPORT = { width: 480, height: 160 };
/** The tools the application installs besides the library and three. */
const TOOLS = ['vite', 'webpack', 'webpack-cli', 'esbuild', 'rollup', '@rollup/plugin-node-resolve'];
/** What only some bundlers load, were it left in the published code. */
const BUNDLER_SPECIFIC =
  /["'][^"'\s]+\?(?:raw|url|worker|sharedworker|inline)["']|new URL\(\s*["'`]data:|new Worker\(\s*new URL\(/;

const BACKENDS = {
  webgpu: { args: CHROMIUM_ARGS, hideWebGpu: false },
  // Without the flag, and with navigator.gpu hidden, three's WebGPURenderer falls back to WebGL2.
  webgl: { args: CHROMIUM_ARGS.filter((a) => a !== '--enable-unsafe-webgpu'), hideWebGpu: true },
} as const;

const PAGE_HTML = (script: string) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><link rel="icon" href="data:," />
    <style>html, body { margin: 0; overflow: hidden; }</style></head>
  <body><script type="module" src="/${script}"></script></body>
</html>
`;

const README_VITE_CONFIG = `export default {
  build: { target: 'es2022', rolldownOptions: { input: { main: 'index.html', reference: 'reference.html' } } },
};
`;

/** The README code with the library's name swapped for the plain-three stand-in. */
function referenceModule(main: string, packageName: string): string {
  const name = packageName.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const importFromLibrary = new RegExp(`from\\s+(['"])${name}\\1`, 'g');
  if (!importFromLibrary.test(main))
    throw new Error(`the README block under '${README_HEADING}' imports nothing from '${packageName}'`);
  return main.replace(importFromLibrary, "from './plain-three-tessera.js'");
}

/** Every .js file under `folder`. */
function scripts(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => join(folder, file));
}

/** A page that records page errors and console errors, with WebGPU hidden for the WebGL2 backend. */
async function openPage(browser: Browser, viewport: typeof README_VIEWPORT, hideWebGpu: boolean) {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('crash', () => problems.push('page crashed'));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  // Uncaptured WebGPU errors and validation errors, caught by the browser tests' GPU tracker.
  await page.addInitScript({ path: join(REPOSITORY, 'test/support/gpu-tracker.js') });
  if (hideWebGpu) {
    await page.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true }),
    );
  }
  return { page, problems };
}

/** GPU errors the tracker caught on `page` (after flushing the queues). */
function gpuErrors(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const tracker = (globalThis as { __tesseraGpuTracker?: { checkErrors(): Promise<string[]> } })
      .__tesseraGpuTracker;
    return tracker ? tracker.checkErrors() : [];
  });
}

/** Which backend drew the page's canvas. */
function backendOf(page: Page): Promise<string> {
  return page.evaluate(() => (document.querySelector('canvas')?.getContext('webgl2') ? 'webgl' : 'webgpu'));
}

/** Opens a README page, waits until the scene has settled, and returns the canvas as PNG. */
async function renderReadmePage(browser: Browser, url: string, hideWebGpu: boolean) {
  const { page, problems } = await openPage(browser, README_VIEWPORT, hideWebGpu);
  const settled = page.waitForEvent('console', {
    predicate: (message) => SETTLED_MESSAGE.test(message.text()),
    timeout: 90_000,
  });
  try {
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('canvas', { timeout: 30_000 });
    // The README code logs once every page in view is resident (`vts.whenSettled()`).
    await settled;
    await page.evaluate(
      () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(undefined)))),
    );
    const png = await page.locator('canvas').first().screenshot();
    problems.push(...(await gpuErrors(page)));
    return { png, backend: await backendOf(page), problems };
  } finally {
    await page.close();
  }
}

/** Opens a setup's page and waits for its verdict in the title (see support/setup-page.js). */
async function renderSetupPage(browser: Browser, url: string, hideWebGpu: boolean) {
  const { page, problems } = await openPage(browser, SETUP_VIEWPORT, hideWebGpu);
  try {
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => /^(ok|error)/.test(document.title), null, { timeout: 90_000 });
    const title = await page.title();
    const png = await page.locator('canvas').first().screenshot();
    problems.push(...(await gpuErrors(page)));
    return { title, png, backend: await backendOf(page), problems };
  } finally {
    await page.close();
  }
}

/**
 * Runs `check`; when it throws (a build that failed, a page that never settled) the test fails
 * softly, so the other setups still run and report. Returns the error, if any.
 */
async function softly(what: string, check: () => Promise<void>): Promise<unknown> {
  try {
    await check();
    return undefined;
  } catch (error) {
    expect.soft(error, what).toBeUndefined();
    return error;
  }
}

test.describe('the packed tarball in fresh applications', () => {
  test('the README code under Vite, and one page under Vite, webpack, esbuild, Rollup and import maps', async () => {
    const testInfo = test.info();
    // Node-side packaging plus its own browser per backend: one run, under the webgpu project.
    test.skip(testInfo.project.name !== 'webgpu', 'runs once, under the webgpu project');
    test.setTimeout(600_000);
    const readme = readFileSync(process.env.TESSERA_README ?? join(REPOSITORY, 'README.md'), 'utf8');
    const main = extractCodeBlock(readme, README_HEADING, 'ts');
    const manifest = packageManifest(REPOSITORY);
    const work = mkdtempSync(join(tmpdir(), 'packed-library-'));
    const app = join(work, 'app');
    const servers: StaticServer[] = [];
    const browsers: Browser[] = [];
    const started = performance.now();
    const seconds = () => ((performance.now() - started) / 1000).toFixed(0);
    try {
      const context: SetupContext = { app, packageName: manifest.name, fixtures: '' };
      await test.step('pack, install, make the content', async () => {
        const tarballs = await packPackages(REPOSITORY, work);
        mkdirSync(app, { recursive: true });
        [context.fixtures] = await Promise.all([
          setupFixtures(REPOSITORY),
          installApplication(REPOSITORY, app, tarballs, TOOLS),
        ]);
        console.log(`packed and installed in ${seconds()} s`);
      });

      await test.step('the optional imagery peers are not installed', () => {
        // So every build below proves that an application importing only the root entry never
        // resolves them (optional-imagery-peers.spec.ts checks the rest).
        for (const name of ['geotiff', 'pmtiles'])
          expect.soft(existsSync(join(app, 'node_modules', name)), `${name} installed`).toBe(false);
      });

      await test.step('the packed dist holds no bundler-specific import', () => {
        const dist = join(app, 'node_modules', manifest.name, 'dist');
        const offenders = scripts(dist).flatMap((file) => {
          const found = BUNDLER_SPECIFIC.exec(readFileSync(file, 'utf8'));
          return found === null ? [] : [`${file.slice(dist.length + 1)}: ${found[0].slice(0, 80)}`];
        });
        expect.soft(offenders).toEqual([]);
        expect
          .soft(readdirSync(join(dist, 'basis')).sort())
          .toEqual(['basis_transcoder.js', 'basis_transcoder.wasm']);
      });

      // Builds start together (webpack's minifier takes longest); each page waits for its own.
      const readmeApp = join(app, 'readme');
      const readmeBuilt = (async () => {
        mkdirSync(join(readmeApp, 'public'), { recursive: true });
        await writePhotoLikeJpeg(join(readmeApp, 'photo.jpg'));
        const cli = Object.keys(packageManifest(join(REPOSITORY, 'packages/baker')).bin ?? {})[0];
        await run(
          join(app, 'node_modules/.bin', cli),
          ['bake', 'photo.jpg', '-o', 'public/photo.tsva'],
          readmeApp,
          BUILD_TIMEOUT_MS,
        );
        copyFileSync(join(readmeApp, 'photo.jpg'), join(readmeApp, 'public/photo.jpg'));
        writeFileSync(join(readmeApp, 'main.ts'), main);
        writeFileSync(join(readmeApp, 'reference.ts'), referenceModule(main, manifest.name));
        copyFileSync(
          join(import.meta.dirname, 'support/plain-three-tessera.js'),
          join(readmeApp, 'plain-three-tessera.js'),
        );
        writeFileSync(join(readmeApp, 'index.html'), PAGE_HTML('main.ts'));
        writeFileSync(join(readmeApp, 'reference.html'), PAGE_HTML('reference.ts'));
        writeFileSync(join(readmeApp, 'vite.config.js'), README_VITE_CONFIG);
        await run(join(app, 'node_modules/.bin/vite'), ['build'], readmeApp, BUILD_TIMEOUT_MS);
        const server = await serveStatic({ '/': join(readmeApp, 'dist') });
        servers.push(server);
        return server.origin;
      })();
      const built = SETUPS.map(async (setup) => {
        await setup.build(context);
        console.log(`built ${setup.name} at ${seconds()} s`);
        const served = await setup.serve(context);
        servers.push(...served.servers);
        return served.url;
      });
      // A failed build fails its rows below, not the others.
      for (const promise of [readmeBuilt, ...built]) promise.catch(() => {});

      const table: string[] = ['| setup | WebGPU | WebGL2 |', '|---|---|---|'];
      const results = new Map<string, Record<string, string>>(SETUPS.map((s) => [s.name, {}]));
      // The two backends side by side, one browser each (a page spends part of its time waiting on
      // workers and readbacks).
      const backendRuns = Object.entries(BACKENDS).map(async ([name, backend]) => {
        const browser = await chromium.launch({ executablePath: chromiumPath(), args: [...backend.args] });
        browsers.push(browser);

        const readmePage = () =>
          softly(`README page against plain three.js, ${name}`, async () => {
            const origin = await readmeBuilt;
            const library = await renderReadmePage(browser, `${origin}/`, backend.hideWebGpu);
            const plain = await renderReadmePage(browser, `${origin}/reference.html`, backend.hideWebGpu);
            for (const [label, png] of [
              ['library', library.png],
              ['three', plain.png],
            ] as const) {
              const path = testInfo.outputPath(`readme-${name}-${label}.png`);
              writeFileSync(path, png);
              await testInfo.attach(`readme-${name}-${label}.png`, { path, contentType: 'image/png' });
            }
            expect.soft(library.problems, `${name}: errors on the README page`).toEqual([]);
            expect.soft(plain.problems, `${name}: errors on the reference page`).toEqual([]);
            expect.soft(library.backend, 'the backend that rendered').toBe(name);
            const { psnr } = await psnrOfPngs(library.png, plain.png);
            testInfo.annotations.push({
              type: 'psnr',
              description: `README, ${name}: ${psnr.toFixed(2)} dB`,
            });
            console.log(`packed README vs plain three.js, ${name}: ${psnr.toFixed(2)} dB`);
            expect
              .soft(psnr, `${name}: PSNR of the README page against plain three.js, dB`)
              .toBeGreaterThanOrEqual(MIN_PSNR_DB);
          });

        let reference: { name: string; png: Buffer } | undefined;
        const setupPage = async (i: number, setup: Setup) => {
          const error = await softly(`${setup.name}, ${name}`, async () => {
            const url = await built[i];
            const page = await renderSetupPage(browser, url, backend.hideWebGpu);
            const path = testInfo.outputPath(`setup-${i}-${name}.png`);
            writeFileSync(path, page.png);
            await testInfo.attach(`${setup.name}, ${name}.png`, { path, contentType: 'image/png' });
            const ok = page.title.startsWith('ok ');
            let psnr = Number.POSITIVE_INFINITY;
            // The first page that settles cleanly is what the others must draw.
            if (reference !== undefined) psnr = (await psnrOfPngs(page.png, reference.png)).psnr;
            else if (ok && page.problems.length === 0) reference = { name: setup.name, png: page.png };
            const passed =
              ok && page.problems.length === 0 && page.backend === name && psnr >= MIN_SETUP_PSNR_DB;
            results.get(setup.name)![name] = passed
              ? `settles; ${JSON.parse(page.title.slice(3)).compressedPool.join(' + ')} pool`
              : `fails: ${ok ? page.problems.join('; ') || `PSNR ${psnr.toFixed(1)} dB` : page.title}`.slice(
                  0,
                  200,
                );
            console.log(`${setup.name}, ${name} (${seconds()} s): ${page.title}`);
            expect.soft(page.title, `${setup.name}, ${name}: the page's verdict`).toMatch(/^ok /);
            expect.soft(page.problems, `${setup.name}, ${name}: page, console and GPU errors`).toEqual([]);
            expect.soft(page.backend, `${setup.name}: the backend that rendered`).toBe(name);
            expect
              .soft(psnr, `${setup.name}, ${name}: PSNR against ${reference?.name}, dB`)
              .toBeGreaterThanOrEqual(MIN_SETUP_PSNR_DB);
            if (ok) {
              const report = JSON.parse(page.title.slice(3));
              expect
                .soft(report.compressedPool[0], `${setup.name}, ${name}: a compressed pool`)
                .not.toMatch(/rgba8/);
              expect.soft(report.compressedUploads).toBeGreaterThan(0);
              expect.soft(report.webpUploads).toBeGreaterThan(0);
              expect.soft(report.gltfTextures).toHaveLength(2);
            }
          });
          if (error !== undefined) results.get(setup.name)![name] = `fails: ${String(error).split('\n')[0]}`;
        };

        // Pages in the order their builds finish, so none waits on a build while another is ready.
        const ready = new Map(
          [readmeBuilt, ...built].map((p, k) => [
            k,
            p.then(
              () => k,
              () => k,
            ),
          ]),
        );
        while (ready.size > 0) {
          const k = await Promise.race(ready.values());
          ready.delete(k);
          if (k === 0) await readmePage();
          else await setupPage(k - 1, SETUPS[k - 1]);
        }
        if (name === 'webgpu') {
          await softly('a transcoderPath that serves nothing fails typed, naming the option', async () => {
            const url = new URL(await built[SETUPS.findIndex((setup) => setup.name.includes('same origin'))]);
            url.searchParams.set('transcoderPath', '/nowhere/');
            const page = await renderSetupPage(browser, url.href, backend.hideWebGpu);
            expect.soft(page.title).toMatch(/^error .*transcoder-unavailable.*transcoderPath/);
          });
        }
        await browser.close();
      });
      await Promise.all(backendRuns);
      for (const [setup, row] of results)
        table.push(`| ${setup} | ${row.webgpu ?? '-'} | ${row.webgl ?? '-'} |`);
      console.log(`${table.join('\n')}\n(${seconds()} s in all)`);
      await testInfo.attach('setups.md', { body: table.join('\n'), contentType: 'text/markdown' });
    } finally {
      for (const browser of browsers) await browser.close();
      for (const server of servers) await server.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});
