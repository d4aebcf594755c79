/**
 * The path a new user takes, literally: the packed tarball installed into a fresh Vite + three
 * application, a photograph baked with the installed CLI, and the README's "Add a virtual texture
 * to your scene" code as the application's main module, built and served by Vite. The rendered
 * canvas is compared with the same code running against plain three.js (the photo loaded by
 * TextureLoader, see support/plain-three-tessera.js), on WebGPU and on WebGL2.
 *
 * `TESSERA_README=<path>` reads the code block from another Markdown file (e.g. a README draft).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../browser/chromium';
import { psnrOfPngs } from './support/image-compare';
import { installApplication, packLibrary, run } from './support/packed-project';
import { writePhotoLikeJpeg } from './support/photo';
import { extractCodeBlock } from './support/readme-snippet';

const REPOSITORY = resolve(import.meta.dirname, '../..');
const README_HEADING = '## Add a virtual texture to your scene';
/** Agreement with plain three.js expected once the README shows a baked photo on a plane. */
const MIN_PSNR_DB = 50;
/** What the README's `whenSettled()` callback logs. */
const SETTLED_MESSAGE = /tessera: every page in view is resident/;
const VIEWPORT = { width: 960, height: 480 };

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

const VITE_CONFIG = `export default {
  build: {
    target: 'es2022',
    rolldownOptions: { input: { main: 'index.html', reference: 'reference.html', compressed: 'compressed.html' } },
  },
};
`;

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, 'localhost', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Starts `vite preview` of `directory` on `port` and waits until it answers. */
async function startPreview(directory: string, port: number): Promise<ChildProcess> {
  const server = spawn(
    join(directory, 'node_modules/.bin/vite'),
    ['preview', '--port', String(port), '--strictPort', '--host', 'localhost'],
    { cwd: directory, stdio: 'ignore' },
  );
  for (let attempt = 0; attempt < 100; attempt++) {
    if (server.exitCode !== null) throw new Error(`vite preview exited with ${server.exitCode}`);
    try {
      if ((await fetch(`http://localhost:${port}/`)).ok) return server;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  server.kill();
  throw new Error('vite preview did not answer within 10 s');
}

/** The README code with `tessera` swapped for the plain-three stand-in. */
function referenceModule(main: string): string {
  const importFromTessera = /from\s+(['"])tessera\1/g;
  if (!importFromTessera.test(main))
    throw new Error(`the README block under '${README_HEADING}' imports nothing from 'tessera'`);
  return main.replace(importFromTessera, "from './plain-three-tessera.js'");
}

/** Opens `url`, waits until the scene has rendered, and returns the canvas as PNG and the backend seen. */
async function renderPage(browser: Browser, url: string, hideWebGpu: boolean) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  if (hideWebGpu) {
    await page.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true }),
    );
  }
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
    const backend = await page.evaluate(() =>
      document.querySelector('canvas')?.getContext('webgl2') ? 'webgl' : 'webgpu',
    );
    return { png, backend, problems };
  } finally {
    await page.close();
  }
}

/** Opens the compressed page and waits for its verdict in the title (see support/compressed-page.ts). */
async function compressedPage(browser: Browser, url: string, hideWebGpu: boolean) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  if (hideWebGpu) {
    await page.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true }),
    );
  }
  try {
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => /^(ok|error)/.test(document.title), null, { timeout: 60_000 });
    return { title: await page.title(), problems };
  } finally {
    await page.close();
  }
}

test.describe('packed tarball + README code in a fresh Vite application', () => {
  test('renders the baked photo as plain three.js renders the photo', async () => {
    const testInfo = test.info();
    // Node-side packaging plus its own browser per backend: one run, under the webgpu project.
    test.skip(testInfo.project.name !== 'webgpu', 'runs once, under the webgpu project');
    test.setTimeout(240_000);
    const readme = readFileSync(process.env.TESSERA_README ?? join(REPOSITORY, 'README.md'), 'utf8');
    const main = extractCodeBlock(readme, README_HEADING, 'ts');
    const work = mkdtempSync(join(tmpdir(), 'tessera-packed-'));
    let preview: ChildProcess | undefined;
    try {
      const tarball = await packLibrary(REPOSITORY, work);
      const app = join(work, 'app');
      mkdirSync(join(app, 'public'), { recursive: true });
      await installApplication(REPOSITORY, app, tarball);
      await writePhotoLikeJpeg(join(app, 'photo.jpg'));
      await run('npx', ['tessera', 'bake', 'photo.jpg', '-o', 'public/photo.tsva'], app);
      copyFileSync(join(app, 'photo.jpg'), join(app, 'public/photo.jpg'));
      writeFileSync(join(app, 'main.ts'), main);
      writeFileSync(join(app, 'reference.ts'), referenceModule(main));
      copyFileSync(
        join(import.meta.dirname, 'support/plain-three-tessera.js'),
        join(app, 'plain-three-tessera.js'),
      );
      writeFileSync(join(app, 'index.html'), PAGE_HTML('main.ts'));
      writeFileSync(join(app, 'reference.html'), PAGE_HTML('reference.ts'));
      copyFileSync(join(import.meta.dirname, 'support/compressed-page.ts'), join(app, 'compressed.ts'));
      writeFileSync(join(app, 'compressed.html'), PAGE_HTML('compressed.ts'));
      writeFileSync(join(app, 'vite.config.js'), VITE_CONFIG);
      await run(join(app, 'node_modules/.bin/vite'), ['build'], app);
      const port = await freePort();
      preview = await startPreview(app, port);

      for (const [name, backend] of Object.entries(BACKENDS)) {
        const browser = await chromium.launch({ executablePath: chromiumPath(), args: [...backend.args] });
        try {
          const tessera = await renderPage(browser, `http://localhost:${port}/`, backend.hideWebGpu);
          const plain = await renderPage(
            browser,
            `http://localhost:${port}/reference.html`,
            backend.hideWebGpu,
          );
          for (const [label, png] of [
            ['tessera', tessera.png],
            ['three', plain.png],
          ] as const) {
            const path = testInfo.outputPath(`${name}-${label}.png`);
            writeFileSync(path, png);
            await testInfo.attach(`${name}-${label}.png`, { path, contentType: 'image/png' });
          }
          expect(tessera.problems, `${name}: errors on the README page`).toEqual([]);
          expect(plain.problems, `${name}: errors on the reference page`).toEqual([]);
          expect(tessera.backend, 'the backend that rendered').toBe(name);
          const { psnr } = await psnrOfPngs(tessera.png, plain.png);
          testInfo.annotations.push({ type: 'psnr', description: `${name}: ${psnr.toFixed(2)} dB` });
          console.log(`packed README vs plain three.js, ${name}: ${psnr.toFixed(2)} dB`);
          expect(psnr, `${name}: PSNR of the README page against plain three.js, dB`).toBeGreaterThanOrEqual(
            MIN_PSNR_DB,
          );
          // The compressed path: the installed package finds its transcode worker and wasm.
          const compressed = await compressedPage(
            browser,
            `http://localhost:${port}/compressed.html`,
            backend.hideWebGpu,
          );
          console.log(`packed compressed page, ${name}: ${compressed.title}`);
          expect(compressed.problems, `${name}: errors on the compressed page`).toEqual([]);
          expect(compressed.title).toMatch(/^ok bc7-rgba-unorm-srgb [1-9]/);
        } finally {
          await browser.close();
        }
      }
    } finally {
      preview?.kill();
      rmSync(work, { recursive: true, force: true });
    }
  });
});
