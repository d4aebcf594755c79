import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const previous: { version: string; cache: string } = JSON.parse(
  readFileSync(resolve(import.meta.dirname, 'previous-three.json'), 'utf8'),
);

/** The previous three.js minor under test, e.g. '0.186.1' (previous-three.json). */
export const PREVIOUS_THREE = previous.version;

/**
 * The three package the tests resolve `three` to: where run.mjs installs {@link PREVIOUS_THREE},
 * or `TESSERA_THREE_DIR` (e.g. node_modules/three, to check these tests against the current minor).
 */
export const THREE_DIR =
  process.env.TESSERA_THREE_DIR ??
  resolve(import.meta.dirname, '../..', previous.cache, 'node_modules/three');

/** The version of the three package at {@link THREE_DIR}. */
export function threeVersionAt(dir = THREE_DIR): string {
  return JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')).version;
}

/**
 * Vite aliases sending every `three` specifier the sources, tests, pages and three's own addons
 * use to the copy in {@link THREE_DIR}, following its package.json `exports`: `three`,
 * `three/webgpu`, `three/tsl`, `three/addons/*` and `three/examples/jsm/*` (also how three's
 * addons import each other and how three.tsl.js imports three/webgpu).
 */
export const threeAliases = [
  { find: /^three$/, replacement: `${THREE_DIR}/build/three.module.js` },
  { find: /^three\/webgpu$/, replacement: `${THREE_DIR}/build/three.webgpu.js` },
  { find: /^three\/tsl$/, replacement: `${THREE_DIR}/build/three.tsl.js` },
  { find: /^three\/addons$/, replacement: `${THREE_DIR}/examples/jsm/Addons.js` },
  { find: /^three\/addons\/(.*)$/, replacement: `${THREE_DIR}/examples/jsm/$1` },
  { find: /^three\/examples\/(.*)$/, replacement: `${THREE_DIR}/examples/$1` },
  { find: /^three\/src\/(.*)$/, replacement: `${THREE_DIR}/src/$1` },
];
