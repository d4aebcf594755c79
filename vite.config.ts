import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/** Library build: one ESM entry per package export; three stays external (peer dependency). */
export default defineConfig({
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
        sim: resolve(import.meta.dirname, 'src/sim/index.ts'),
        node: resolve(import.meta.dirname, 'src/sources/node.ts'),
        // Worker entries, for `new Worker(new URL('tessera/workers/...', import.meta.url), { type: 'module' })`.
        'procedural-worker': resolve(import.meta.dirname, 'src/sources/procedural/procedural-worker.ts'),
        'decode-worker': resolve(import.meta.dirname, 'src/sources/archive/worker/decode-worker.ts'),
      },
      formats: ['es'],
    },
    rolldownOptions: {
      external: [/^three($|\/)/, /^node:/, 'sharp', 'jpeg-js'],
    },
  },
  test: {
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    pool: 'threads',
  },
});
