#!/usr/bin/env node
// An installed package runs the built CLI (dist/cli.js: no dev dependencies needed); the
// repository runs the TypeScript source through tsx (a dev dependency), so edits need no build.
const installed = import.meta.url.includes('/node_modules/');
let main;
if (installed) {
  ({ main } = await import('../dist/cli.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../../../src/cli/tessera.ts'));
}
process.exitCode = await main(process.argv.slice(2));
