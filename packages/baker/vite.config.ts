import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const SOURCES = resolve(import.meta.dirname, '../../src');

/**
 * The baker's build (Node only): the `tessera` command, its Node API and the encoding process the
 * CLI's TileEncodePool forks, each chunk in dist/ beside the others. The native and wasm encoders
 * stay external: they load their binaries from beside their own files, and are dependencies.
 */
export default defineConfig({
  build: {
    outDir: resolve(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    sourcemap: false,
    target: 'node20',
    minify: false,
    lib: {
      entry: {
        node: resolve(SOURCES, 'sources/node.ts'),
        cli: resolve(SOURCES, 'cli/tessera.ts'),
        'tile-encode-worker': resolve(SOURCES, 'sources/bake/tile-encode-worker.ts'),
      },
      formats: ['es'],
    },
    rolldownOptions: {
      external: [
        /^node:/,
        'sharp',
        'jpeg-js',
        'ktx2-encoder',
        '@bokuweb/zstd-wasm',
        /^@gltf-transform\//,
        'fflate',
        'ktx-parse',
        'zstddec',
      ],
    },
  },
});
