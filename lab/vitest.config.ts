import { defineConfig } from 'vitest/config';

/**
 * The lab's tests (`npm run test:lab`): replacement policies and tools that are not part of the
 * published package. `npm test` does not run them.
 */
export default defineConfig({
  root: import.meta.dirname,
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    pool: 'threads',
  },
});
