#!/usr/bin/env node
// Runs the TypeScript CLI through tsx (a dev dependency); a published build would import dist/cli.js.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/tessera.ts');
process.exitCode = await main(process.argv.slice(2));
