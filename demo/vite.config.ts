import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { packageSourceAliases } from '../package-source-aliases';

/** The open-world demo: `npm run demo` serves it, `npm run build:demo` bundles it into demo/dist. */
export default defineConfig({
  root: import.meta.dirname,
  publicDir: resolve(import.meta.dirname, '../assets'),
  server: { port: 5173, host: 'localhost', fs: { allow: [resolve(import.meta.dirname, '..')] } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  // The demo imports the package by name, as an application would (tsconfig.json's paths agree).
  resolve: {
    alias: packageSourceAliases(),
  },
});
