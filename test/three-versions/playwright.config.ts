import { resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import base from '../../playwright.config';
import type { BackendOptions } from '../browser/fixtures';

/**
 * The browser smoke test against the previous three.js minor (run.mjs installs it), on both
 * backends of WebGPURenderer, served by ./vite.config.ts: the specs of this folder, and the probe
 * of each three internal Tessera uses (test/browser/harness/three-internals.spec.ts), which run.mjs
 * runs when the smoke test fails. Its own port, and never a server already running: that one may
 * serve another three.
 */
const PORT = Number(process.env.TESSERA_THREE_VERSIONS_PORT ?? 5186);
const ROOT = resolve(import.meta.dirname, '../..');

export default defineConfig<BackendOptions>({
  // The repository's browser settings (timeouts, workers, retries, Chromium, both backends).
  ...base,
  testDir: ROOT,
  testMatch: ['test/three-versions/**/*.spec.ts', 'test/browser/harness/three-internals.spec.ts'],
  grepInvert: undefined,
  outputDir: resolve(ROOT, 'test-results/three-versions'),
  timeout: 120_000,
  use: { ...base.use, baseURL: `http://localhost:${PORT}/` },
  webServer: {
    command: 'npx vite --config test/three-versions/vite.config.ts',
    cwd: ROOT,
    env: { TESSERA_TEST_PORT: String(PORT) },
    url: `http://localhost:${PORT}/package.json`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
