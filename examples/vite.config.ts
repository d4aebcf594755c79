import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { packageSourceAliases } from '../package-source-aliases';

/** The examples (`npm run examples`): one page per folder; assets/ is served as the public folder. */
export default defineConfig({
  root: import.meta.dirname,
  publicDir: resolve(import.meta.dirname, '../assets'),
  server: { port: 5174, host: 'localhost', fs: { allow: [resolve(import.meta.dirname, '..')] } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, 'index.html'),
        'deep-zoom': resolve(import.meta.dirname, 'deep-zoom/index.html'),
        cog: resolve(import.meta.dirname, 'cog/index.html'),
        map: resolve(import.meta.dirname, 'map/index.html'),
        planet: resolve(import.meta.dirname, 'planet/index.html'),
        'streamed-textures': resolve(import.meta.dirname, 'streamed-textures/index.html'),
        r3f: resolve(import.meta.dirname, 'r3f/index.html'),
      },
    },
  },
  // The examples import the package by name, as an application would (tsconfig.json's paths agree).
  resolve: {
    alias: packageSourceAliases(),
  },
});
