import { resolve } from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

/** Library modules that start a worker of their own, with the worker URL as written in source. */
const WORKER_URLS = [
  {
    module: '/src/sources/archive/default-tile-decoder.ts',
    source: "new URL('./worker/decode-worker.ts', import.meta.url)",
    placeholder: '__TESSERA_DECODE_WORKER_ENTRY__',
    entry: './decode-worker.js',
  },
  {
    module: '/src/three/transcode/basis-transcoder-pool.ts',
    source: "new URL('./transcode-worker.ts', import.meta.url)",
    placeholder: '__TESSERA_TRANSCODE_WORKER_ENTRY__',
    entry: './transcode-worker.js',
  },
  {
    module: '/src/sources/mips/image-pyramid-generator.ts',
    source: "new URL('./image-pyramid-worker.ts', import.meta.url)",
    placeholder: '__TESSERA_IMAGE_PYRAMID_WORKER_ENTRY__',
    entry: './image-pyramid-worker.js',
  },
  {
    module: '/src/sources/procedural/worker-procedural-tile-source.ts',
    source: "new URL('./procedural-worker.ts', import.meta.url)",
    placeholder: '__TESSERA_PROCEDURAL_WORKER_ENTRY__',
    entry: './procedural-worker.js',
  },
  {
    module: '/src/sources/bake/tile-encode-pool.ts',
    source: "new URL('./tile-encode-worker.js', import.meta.url)",
    placeholder: '__TESSERA_TILE_ENCODE_WORKER_ENTRY__',
    entry: './tile-encode-worker.js',
  },
];

/**
 * Points the library's default workers at the library's own worker entries, as
 * `new Worker(new URL('./decode-worker.js', import.meta.url))`: the form an application's bundler
 * recognises and bundles. Left to itself, lib mode rewrites it to a root-absolute asset path
 * marked `@vite-ignore`, which resolves against the page rather than the package and which an
 * application's build would not copy. A placeholder hides the URL from Vite's worker and asset
 * plugins until the chunk is rendered.
 */
function libraryWorkerUrl(): Plugin {
  return {
    name: 'tessera-library-worker-url',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      const worker = WORKER_URLS.find((w) => id.endsWith(w.module));
      if (worker === undefined) return null;
      if (!code.includes(worker.source)) this.error(`${worker.module} no longer contains ${worker.source}`);
      return {
        code: code.replace(worker.source, `new URL(${worker.placeholder}, import.meta.url)`),
        map: null,
      };
    },
    renderChunk(code) {
      let out = code;
      for (const worker of WORKER_URLS) out = out.replaceAll(worker.placeholder, `'${worker.entry}'`);
      return out === code ? null : { code: out, map: null };
    },
  };
}

/** Library build: one ESM entry per package export; three stays external (peer dependency). */
export default defineConfig({
  plugins: [libraryWorkerUrl()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    lib: {
      entry: {
        index: resolve(import.meta.dirname, 'src/index.ts'),
        core: resolve(import.meta.dirname, 'src/core/index.ts'),
        three: resolve(import.meta.dirname, 'src/three/index.ts'),
        sources: resolve(import.meta.dirname, 'src/sources/index.ts'),
        sim: resolve(import.meta.dirname, 'src/sim/index.ts'),
        node: resolve(import.meta.dirname, 'src/sources/node.ts'),
        // The `tessera` command of an installed package (bin/tessera.mjs).
        cli: resolve(import.meta.dirname, 'src/cli/tessera.ts'),
        // Worker entries, for `new Worker(new URL('tessera/workers/...', import.meta.url), { type: 'module' })`.
        'procedural-worker': resolve(import.meta.dirname, 'src/sources/procedural/procedural-worker.ts'),
        'decode-worker': resolve(import.meta.dirname, 'src/sources/archive/worker/decode-worker.ts'),
        'transcode-worker': resolve(import.meta.dirname, 'src/three/transcode/transcode-worker.ts'),
        'image-pyramid-worker': resolve(import.meta.dirname, 'src/sources/mips/image-pyramid-worker.ts'),
        // The baker's encoding thread (worker_threads), started by the CLI's TileEncodePool.
        'tile-encode-worker': resolve(import.meta.dirname, 'src/sources/bake/tile-encode-worker.ts'),
      },
      formats: ['es'],
    },
    rolldownOptions: {
      // The wasm packages of the baker load their .wasm from beside their own files: bundled, they
      // would not find it (and would weigh megabytes); they are dependencies, installed with the package.
      external: [/^three($|\/)/, /^node:/, 'sharp', 'jpeg-js', 'ktx2-encoder', '@bokuweb/zstd-wasm'],
    },
  },
  test: {
    include: ['test/unit/**/*.test.ts'],
    // Demo modules under test import the package by name, as the demo does (demo/vite.config.ts).
    alias: [
      { find: /^tessera$/, replacement: resolve(import.meta.dirname, 'src/index.ts') },
      { find: /^tessera\/core$/, replacement: resolve(import.meta.dirname, 'src/core/index.ts') },
      { find: /^tessera\/three$/, replacement: resolve(import.meta.dirname, 'src/three/index.ts') },
      { find: /^tessera\/sources$/, replacement: resolve(import.meta.dirname, 'src/sources/index.ts') },
    ],
    environment: 'node',
    pool: 'threads',
  },
});
