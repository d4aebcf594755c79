import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath, TEST_SERVER_PORT } from './test/browser/chromium';
import type { BackendOptions } from './test/browser/fixtures';

/**
 * Browser tests: Debian's Chromium, headless, WebGPU on SwiftShader. Every spec runs once per
 * backend of three's WebGPURenderer (the `backend` option).
 */
export default defineConfig<BackendOptions>({
  testDir: 'test',
  // test/package: the packed tarball in a fresh application (Node-side setup, its own browsers),
  // about 5 minutes alone: `npm run test:package` runs it (TESSERA_PACKAGE=1), `npm test` does not,
  // to keep CI's run within its 20 minutes.
  testMatch: process.env.TESSERA_PACKAGE ? ['package/**/*.spec.ts'] : ['browser/**/*.spec.ts'],
  outputDir: 'test-results/playwright',
  timeout: 90_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  // `npm test` leaves out the tests tagged @extended (test/browser/fixtures.ts: EXTENDED) to stay
  // within CI's time; `npm run test:extended` runs them.
  grepInvert: process.env.TESSERA_EXTENDED ? undefined : /@extended/,
  // Two spec files at a time: tests pace frames by animation frames and wait on the GPU, so one
  // worker leaves a core idle (the suite took 12.7 min with two workers on the 2-core machine).
  workers: 2,
  // On CI a test that fails is run once more and reported as flaky if it then passes: SwiftShader
  // on a shared 2-core machine sometimes delays readbacks by seconds.
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: `http://localhost:${TEST_SERVER_PORT}/`,
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
    viewport: { width: 640, height: 480 },
  },
  projects: [
    { name: 'webgpu', use: { backend: 'webgpu' } },
    { name: 'webgl', use: { backend: 'webgl' } },
  ],
  webServer: {
    command: 'npx vite --config test/browser/vite.config.ts',
    url: `http://localhost:${TEST_SERVER_PORT}/package.json`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
