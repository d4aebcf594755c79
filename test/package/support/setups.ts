/**
 * The setups packed-tarball.spec.ts installs the packed library into: each writes the same page
 * (support/setup-page.js) into its own folder of the application, builds it with the tool's
 * defaults (no configuration beyond the entry), and serves the result with a plain static server.
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './packed-project';
import { type StaticServer, serveStatic } from './static-server';

/** What every setup needs to know about the application. */
export interface SetupContext {
  /** The application's folder (package.json, node_modules with the packed library). */
  app: string;
  /** The packed library's name (from the repository's package.json). */
  packageName: string;
  /** The folder of the page's content (support/setup-fixtures.ts). */
  fixtures: string;
}

/** A setup built and served: the page's URL and its servers (closed by the caller). */
export interface ServedSetup {
  url: string;
  servers: StaticServer[];
}

export interface Setup {
  /** As the table names it. */
  name: string;
  /** Writes the page into the setup's folder and builds it. */
  build(context: SetupContext): Promise<void>;
  /** Starts its servers. */
  serve(context: SetupContext): Promise<ServedSetup>;
}

/** The page with the library's name in its import. */
function pageSource(packageName: string): string {
  const source = readFileSync(join(import.meta.dirname, 'setup-page.js'), 'utf8');
  if (!source.includes("from 'PACKAGE_UNDER_TEST'"))
    throw new Error('setup-page.js imports no PACKAGE_UNDER_TEST');
  return source.replace("from 'PACKAGE_UNDER_TEST'", `from '${packageName}'`);
}

const html = (head: string, script: string) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><link rel="icon" href="data:," />${head}</head>
  <body style="margin: 0">${script}</body>
</html>
`;

/** A setup's folder, made with the page in it as `entry`; returns the folder. */
function writePage(context: SetupContext, id: string, entry: string): string {
  const folder = join(context.app, 'setups', id);
  mkdirSync(join(folder, entry, '..'), { recursive: true });
  writeFileSync(join(folder, entry), pageSource(context.packageName));
  return folder;
}

/** Ample for a build on a busy 2-core machine (webpack's minifier takes the longest). */
export const BUILD_TIMEOUT_MS = 300_000;

const bin = (context: SetupContext, name: string) => join(context.app, 'node_modules/.bin', name);

/** Three's own copy of the transcoder, as an application using esbuild or Rollup copies it. */
const threeTranscoder = (context: SetupContext) =>
  join(context.app, 'node_modules/three/examples/jsm/libs/basis');

/** A bundled setup: its output folder served as the site's root, beside the content. */
async function serveBundle(context: SetupContext, id: string, query = ''): Promise<ServedSetup> {
  const mounts: Record<string, string> = {
    '/': join(context.app, 'setups', id, 'dist'),
    '/fixtures/': context.fixtures,
  };
  if (query.includes('transcoderPath=/basis/')) mounts['/basis/'] = threeTranscoder(context);
  const server = await serveStatic(mounts);
  return { url: `${server.origin}/${query}`, servers: [server] };
}

/** The import map three documents for an install without a bundler, the library beside it. */
function importMap(context: SetupContext, modules: string): string {
  const imports = {
    three: `${modules}/three/build/three.module.js`,
    'three/webgpu': `${modules}/three/build/three.webgpu.js`,
    'three/tsl': `${modules}/three/build/three.tsl.js`,
    'three/addons/': `${modules}/three/examples/jsm/`,
    [context.packageName]: `${modules}/${context.packageName}/dist/index.js`,
  };
  return `<script type="importmap">${JSON.stringify({ imports }, null, 2)}</script>`;
}

export const SETUPS: readonly Setup[] = [
  {
    name: 'Vite',
    async build(context) {
      const folder = writePage(context, 'vite', 'main.js');
      writeFileSync(join(folder, 'index.html'), html('', '<script type="module" src="./main.js"></script>'));
      await run(bin(context, 'vite'), ['build'], folder, BUILD_TIMEOUT_MS);
    },
    serve: (context) => serveBundle(context, 'vite'),
  },
  {
    name: 'webpack 5 (`webpack --mode production`)',
    async build(context) {
      const folder = writePage(context, 'webpack', 'src/index.js');
      await run(bin(context, 'webpack'), ['--mode', 'production'], folder, BUILD_TIMEOUT_MS);
      writeFileSync(join(folder, 'dist/index.html'), html('', '<script src="main.js"></script>'));
    },
    serve: (context) => serveBundle(context, 'webpack'),
  },
  {
    name: 'esbuild (`--bundle --format=esm`)',
    async build(context) {
      const folder = writePage(context, 'esbuild', 'main.js');
      await run(
        bin(context, 'esbuild'),
        ['main.js', '--bundle', '--format=esm', '--outfile=dist/main.js'],
        folder,
        BUILD_TIMEOUT_MS,
      );
      writeFileSync(
        join(folder, 'dist/index.html'),
        html('', '<script type="module" src="main.js"></script>'),
      );
    },
    serve: (context) => serveBundle(context, 'esbuild', '?transcoderPath=/basis/'),
  },
  {
    name: 'Rollup + @rollup/plugin-node-resolve',
    async build(context) {
      const folder = writePage(context, 'rollup', 'main.js');
      await run(
        bin(context, 'rollup'),
        ['main.js', '-p', '@rollup/plugin-node-resolve', '-d', 'dist'],
        folder,
        BUILD_TIMEOUT_MS,
      );
      writeFileSync(
        join(folder, 'dist/index.html'),
        html('', '<script type="module" src="main.js"></script>'),
      );
    },
    serve: (context) => serveBundle(context, 'rollup', '?transcoderPath=/basis/'),
  },
  {
    name: 'no bundler, import map, same origin',
    async build(context) {
      const folder = writePage(context, 'importmap', 'main.js');
      const head = importMap(context, '/node_modules');
      writeFileSync(
        join(folder, 'index.html'),
        html(head, '<script type="module" src="./main.js"></script>'),
      );
    },
    async serve(context) {
      const server = await serveStatic({
        '/': join(context.app, 'setups/importmap'),
        '/node_modules/': join(context.app, 'node_modules'),
        '/fixtures/': context.fixtures,
      });
      return { url: `${server.origin}/`, servers: [server] };
    },
  },
  {
    name: 'no bundler, import map, library and three from another origin (a CDN)',
    async build(context) {
      writePage(context, 'cdn', 'main.js');
    },
    async serve(context) {
      // node_modules on a second port, with CORS headers, as a CDN serves packages.
      const cdn = await serveStatic({ '/': join(context.app, 'node_modules') }, { cors: true });
      const folder = join(context.app, 'setups/cdn');
      const head = importMap(context, cdn.origin);
      writeFileSync(
        join(folder, 'index.html'),
        html(head, '<script type="module" src="./main.js"></script>'),
      );
      const site = await serveStatic({ '/': folder, '/fixtures/': context.fixtures });
      return { url: `${site.origin}/`, servers: [site, cdn] };
    },
  },
];
