import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/** The open-world demo: `npm run demo` serves it, `npm run build:demo` bundles it into demo/dist. */
export default defineConfig({
  root: import.meta.dirname,
  publicDir: resolve(import.meta.dirname, '../assets'),
  server: { port: 5173, host: 'localhost', fs: { allow: [resolve(import.meta.dirname, '..')] } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  // The demo imports the package by name, as an application would (tsconfig.json's paths agree).
  resolve: {
    alias: [
      { find: /^@tessera-vt\/tessera$/, replacement: resolve(import.meta.dirname, '../src/index.ts') },
      {
        find: /^@tessera-vt\/tessera\/core$/,
        replacement: resolve(import.meta.dirname, '../src/core/index.ts'),
      },
      {
        find: /^@tessera-vt\/tessera\/three$/,
        replacement: resolve(import.meta.dirname, '../src/three/index.ts'),
      },
      {
        find: /^@tessera-vt\/tessera\/sources$/,
        replacement: resolve(import.meta.dirname, '../src/sources/index.ts'),
      },
    ],
  },
});
