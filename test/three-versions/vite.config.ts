import { mergeConfig } from 'vite';
import base from '../browser/vite.config.js';
import { threeAliases } from './three-aliases.js';

/**
 * The browser tests' server (test/browser/vite.config.ts) with `three` and its subpaths resolved
 * to the previous minor that run.mjs installed, for the pages and for three's own addons.
 */
export default mergeConfig(base, { resolve: { alias: threeAliases } });
