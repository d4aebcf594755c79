import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../vite.config.js';
import { THREE_DIR, threeAliases, threeVersionAt } from './three-aliases.js';

/**
 * The unit tests (vite.config.ts's test settings) with `three` resolved to the previous minor that
 * run.mjs installed. A setup file checks that the tests really got that copy.
 */
if (!existsSync(`${THREE_DIR}/package.json`))
  throw new Error(`no three at ${THREE_DIR}: run node test/three-versions/run.mjs`);

export default mergeConfig(
  base,
  defineConfig({
    root: resolve(import.meta.dirname, '../..'),
    test: {
      alias: threeAliases,
      setupFiles: [resolve(import.meta.dirname, 'three-version-check.ts')],
      env: { TESSERA_EXPECTED_THREE: threeVersionAt() },
    },
  }),
);
