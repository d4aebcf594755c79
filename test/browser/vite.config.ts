import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { packageSourceAliases } from '../../package-source-aliases';
import { faultInjectionService } from './fault-injection-service.js';
import { globeTileService } from './globe-tile-service.js';
import { latencyFileService } from './latency-file-service.js';
import { uastcEncodeService } from './uastc-encode-service.js';

/**
 * Serves the repository root to the browser tests and benchmark pages, so a page anywhere under
 * test/ or bench/ imports the library from /src. Dependency discovery is off: a mid-test
 * re-optimisation would reload the page under a running test.
 */
// The port must match TEST_SERVER_PORT in ./chromium.ts (not imported: Vite's config loader
// prefers configs without extensionless relative imports).
export default defineConfig({
  root: resolve(import.meta.dirname, '../..'),
  plugins: [
    uastcEncodeService(),
    faultInjectionService(resolve(import.meta.dirname, '../..')),
    latencyFileService(resolve(import.meta.dirname, '../..')),
    globeTileService(),
  ],
  logLevel: 'warn',
  // No live reload: an edit during a run must not reload a page under a running test.
  server: {
    port: Number(process.env.TESSERA_TEST_PORT ?? 5180),
    strictPort: true,
    host: 'localhost',
    hmr: false,
    watch: null,
  },
  // React and React Three Fiber (examples/r3f) ship CommonJS, which a browser cannot import
  // unbundled: they are pre-bundled once at server start (listed, so nothing is discovered mid-test),
  // with three left out of the bundle so that R3F and the page share one three.
  // A cache of its own: another Vite server of this checkout (the examples, the demo) re-optimising
  // into the shared node_modules/.vite would make this server's pre-bundled files outdated mid-run.
  cacheDir: resolve(import.meta.dirname, '../../node_modules/.vite/browser-tests'),
  optimizeDeps: {
    noDiscovery: true,
    include: [
      'react',
      'react/jsx-runtime',
      'react/jsx-dev-runtime',
      'react-dom/client',
      '@react-three/fiber',
    ],
    exclude: ['three'],
  },
  // The demo imports the package by name (see demo/vite.config.ts).
  resolve: {
    alias: packageSourceAliases(),
  },
});
