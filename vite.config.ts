import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { build, type Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { packageSourceAliases } from './package-source-aliases';

const ROOT = import.meta.dirname;

/**
 * Library modules that start a browser worker of their own, each written in the sources as
 * `new Worker(new URL('./x-worker.ts', import.meta.url), { type: 'module', name: 'tessera-x' })`:
 * a module worker, which the Vite dev server, the tests and the demo run from the sources.
 */
const WORKER_STARTERS = [
  'src/sources/io/default-tile-decoder.ts',
  'src/three/transcode/basis-transcoder-pool.ts',
  'src/sources/mips/image-pyramid-generator.ts',
  'src/sources/procedural/worker-procedural-tile-source.ts',
];
const WORKER_START =
  /new Worker\(\s*new URL\(\s*'(\.[^']+\.ts)',\s*import\.meta\.url\s*\),\s*\{\s*type: 'module',\s*name: '([\w-]+)',?\s*\}\s*\)/g;

/** The module naming three's Basis transcoder files, and how the sources name them. */
const TRANSCODER_MODULE = 'src/three/transcode/transcoder-path.ts';
const TRANSCODER_FILES = ['basis_transcoder.js', 'basis_transcoder.wasm'];
const TRANSCODER_SOURCE_FOLDER = '../../../node_modules/three/examples/jsm/libs/basis/';
/** Where the package ships them, relative to its chunks (all in dist/). */
const TRANSCODER_DIST_FOLDER = './basis/';

/**
 * What only some bundlers load: an asset query (`?raw`, `?url`, `?worker`...), a file an asset
 * plugin inlined as `new URL('data:...')`, a worker started from `new URL(...)`.
 */
const BUNDLER_SPECIFIC =
  /\?(?:raw|url|worker|sharedworker|inline)\b|new URL\(\s*["'`]data:|new Worker\(\s*new URL\(/;

/** Bundles one worker entry and everything it imports into a single classic script (IIFE). */
async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    configFile: false,
    root: ROOT,
    publicDir: false,
    logLevel: 'warn',
    build: {
      write: false,
      minify: true,
      target: 'es2022',
      sourcemap: false,
      rolldownOptions: { input: entry, output: { format: 'iife' } },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => ('output' in r ? r.output : []));
  const chunks = outputs.filter((o) => o.type === 'chunk');
  if (chunks.length !== 1 || outputs.length !== 1)
    throw new Error(`${entry} bundled to ${outputs.map((o) => o.fileName).join(', ')}, not one script`);
  const code = chunks[0].code;
  if (/\bimport\.meta\b|\bimport\s*\(/.test(code))
    throw new Error(
      `${entry}: the bundled worker still uses import.meta or import(), which a classic worker lacks`,
    );
  return code;
}

/**
 * Makes the published `dist/` loadable by any bundler, by none (an import map) and from another
 * origin (a CDN), as three's KTX2Loader is:
 * - each browser worker is bundled into one self-contained script whose text the starting module
 *   carries; the worker starts from a Blob URL of it (classic, so any browser runs it), where the
 *   sources' `new Worker(new URL(...))` would need a bundler that follows it and a same-origin
 *   script;
 * - three's Basis transcoder is copied into `dist/basis/` and named by
 *   `new URL('./basis/<file>', import.meta.url)`, which Vite and webpack emit with the application
 *   and which resolves beside the library when it is served unbundled. A placeholder hides it from
 *   Vite's asset plugin until the chunk is rendered (lib mode would inline the wasm as base64);
 * - the build fails if a chunk keeps a bundler-specific import (`?raw`, `?url`, `?worker`), a
 *   `data:` URL or a `new Worker(new URL(...))`, or lands outside dist/ itself (the transcoder
 *   folder is found beside the chunks).
 */
function portableLibrary(): Plugin {
  const scripts = new Map<string, Promise<string>>();
  const started = new Set<string>();
  return {
    name: 'tessera-portable-library',
    apply: 'build',
    enforce: 'pre',
    async transform(code, id) {
      const path = id.split('?')[0];
      if (path.endsWith(`/${TRANSCODER_MODULE}`)) {
        let out = code;
        for (const [i, file] of TRANSCODER_FILES.entries()) {
          const literal = `'${TRANSCODER_SOURCE_FOLDER}${file}'`;
          if (!out.includes(literal)) this.error(`${TRANSCODER_MODULE} no longer names ${literal}`);
          out = out.replace(literal, `__TESSERA_TRANSCODER_FILE_${i}__`);
        }
        return { code: out, map: null };
      }
      const starter = WORKER_STARTERS.find((s) => path.endsWith(`/${s}`));
      if (starter === undefined) return null;
      const matches = [...code.matchAll(WORKER_START)];
      if (matches.length !== 1)
        this.error(
          `${starter} must start its worker exactly once as ${WORKER_START} (found ${matches.length})`,
        );
      const [expression, url, name] = matches[0];
      const entry = resolve(dirname(path), url);
      if (!scripts.has(entry)) scripts.set(entry, bundleWorker(entry));
      const script = await (scripts.get(entry) as Promise<string>);
      started.add(starter);
      const helper = `
let tesseraWorkerScriptUrl;
/** A Blob URL of the worker's bundled script, made once per page (a worker may outlive its starter). */
function tesseraWorkerScript() {
  tesseraWorkerScriptUrl ??= URL.createObjectURL(new Blob([${JSON.stringify(script)}], { type: 'text/javascript' }));
  return tesseraWorkerScriptUrl;
}
`;
      return {
        code: `${code.replace(expression, `new Worker(tesseraWorkerScript(), { name: '${name}' })`)}\n${helper}`,
        map: null,
      };
    },
    renderChunk(code, chunk) {
      if (!code.includes('__TESSERA_TRANSCODER_FILE_')) return null;
      if (chunk.fileName.includes('/'))
        this.error(`${chunk.fileName}: the transcoder's chunk must be in dist/ itself`);
      let out = code;
      for (const [i, file] of TRANSCODER_FILES.entries())
        out = out.replaceAll(`__TESSERA_TRANSCODER_FILE_${i}__`, `'${TRANSCODER_DIST_FOLDER}${file}'`);
      return { code: out, map: null };
    },
    generateBundle(_, bundle) {
      for (const starter of WORKER_STARTERS)
        if (!started.has(starter)) this.error(`${starter} was not built: is it still a worker starter?`);
      for (const file of TRANSCODER_FILES) {
        const from = resolve(ROOT, TRANSCODER_MODULE, '..', TRANSCODER_SOURCE_FOLDER, file);
        this.emitFile({ type: 'asset', fileName: `basis/${file}`, source: readFileSync(from) });
      }
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        if (chunk.fileName.includes('/'))
          this.error(`${chunk.fileName}: every chunk must be in dist/ itself`);
        const specifiers = [...chunk.imports, ...chunk.dynamicImports].filter((s) => s.includes('?'));
        if (specifiers.length > 0) this.error(`${chunk.fileName} imports ${specifiers.join(', ')}`);
        const leftover = BUNDLER_SPECIFIC.exec(chunk.code);
        if (leftover !== null)
          this.error(`${chunk.fileName} keeps '${leftover[0]}', which only some bundlers load`);
      }
    },
  };
}

/** Library build: one ESM entry per package export; three stays external (peer dependency). */
export default defineConfig({
  plugins: [portableLibrary()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No source maps: the sources are not shipped, and the unminified chunks read as they are.
    sourcemap: false,
    target: 'es2022',
    lib: {
      entry: {
        index: resolve(ROOT, 'src/index.ts'),
        core: resolve(ROOT, 'src/core/index.ts'),
        three: resolve(ROOT, 'src/three/index.ts'),
        sources: resolve(ROOT, 'src/sources/index.ts'),
        sim: resolve(ROOT, 'src/sim/index.ts'),
        imagery: resolve(ROOT, 'src/sources/imagery/index.ts'),
        // Worker entries, for an application starting the workers itself (`workers/*` exports);
        // the library starts its own from Blob URLs (portableLibrary).
        'procedural-worker': resolve(ROOT, 'src/sources/procedural/procedural-worker.ts'),
        'decode-worker': resolve(ROOT, 'src/sources/io/worker/decode-worker.ts'),
        'transcode-worker': resolve(ROOT, 'src/three/transcode/transcode-worker.ts'),
        'image-pyramid-worker': resolve(ROOT, 'src/sources/mips/image-pyramid-worker.ts'),
      },
      formats: ['es'],
    },
    rolldownOptions: {
      // Node's image codecs for archives read in Node (optional peer dependencies, loaded on use).
      // The baker and its encoders are @tessera-vt/baker's (packages/baker).
      external: [/^three($|\/)/, /^node:/, 'sharp', 'jpeg-js', 'geotiff', 'pmtiles'],
    },
  },
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Demo modules under test import the package by name, as the demo does (demo/vite.config.ts).
    alias: packageSourceAliases(),
    environment: 'node',
    pool: 'threads',
  },
});
