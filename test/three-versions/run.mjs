#!/usr/bin/env node
// Runs the unit tests and a browser smoke test (WebGPU and WebGL2) against the previous three.js
// minor the peer range accepts, so a difference between three releases that the library (mostly
// src/three/three-internals.ts) does not absorb fails here rather than in an application.
//
//   node test/three-versions/run.mjs            three-dependent unit tests + browser smoke test
//   node test/three-versions/run.mjs --all-unit every unit test file, also those that never load three
//   node test/three-versions/run.mjs --unit     unit tests only    (--browser: browser only)
//
// The previous minor (previous-three.json: its exact latest patch) is installed once into
// .cache/three-<minor>/ (ignored by git); package.json and the installed three stay untouched.
// The unit tests run under test/three-versions/vitest.config.ts and the browser test under
// test/three-versions/playwright.config.ts, both resolving `three` and its subpaths to that copy.
// Nothing here type-checks: vitest and Vite strip types, so @types/three (the current minor's)
// is never read against the older three.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
/** The previous three.js minor, pinned to its latest patch, and the ignored folder it goes into. */
const previous = JSON.parse(readFileSync(join(import.meta.dirname, 'previous-three.json'), 'utf8'));
const PREVIOUS_THREE = previous.version;
const CACHE = join(ROOT, previous.cache);
const THREE_DIR = join(CACHE, 'node_modules', 'three');

const args = new Set(process.argv.slice(2));
for (const arg of args)
  if (!['--all-unit', '--unit', '--browser'].includes(arg)) {
    console.error(`unknown option ${arg} (known: --all-unit, --unit, --browser)`);
    process.exit(2);
  }
const runUnit = !args.has('--browser') || args.has('--unit');
const runBrowser = !args.has('--unit') || args.has('--browser');

/** Installs three@PREVIOUS_THREE into the cache folder unless that exact version is there. */
function ensureThree() {
  const manifest = join(THREE_DIR, 'package.json');
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === PREVIOUS_THREE) return;
  console.log(`installing three@${PREVIOUS_THREE} into ${relative(ROOT, CACHE)}/`);
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      CACHE,
      `three@${PREVIOUS_THREE}`,
      '--no-save',
      '--no-package-lock',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const installed = JSON.parse(readFileSync(manifest, 'utf8')).version;
  if (installed !== PREVIOUS_THREE) throw new Error(`installed three ${installed}, wanted ${PREVIOUS_THREE}`);
}

// Import specifiers of a TypeScript or JavaScript module: static, re-exports, side-effect and dynamic.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
// Package names the unit tests resolve to the sources (package-source-aliases.ts).
const PACKAGE_ALIASES = {
  '@tessera-vt/tessera': 'src/index.ts',
  '@tessera-vt/tessera/sim': 'src/sim/index.ts',
  '@tessera-vt/tessera/core': 'src/core/index.ts',
  '@tessera-vt/tessera/three': 'src/three/index.ts',
  '@tessera-vt/tessera/sources': 'src/sources/index.ts',
};

/** The file an in-repository import names, or null for a package outside the repository. */
function resolveImport(from, specifier) {
  if (specifier in PACKAGE_ALIASES) return join(ROOT, PACKAGE_ALIASES[specifier]);
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier.split('?')[0]);
  const stem = base.replace(/\.(m?js)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${base}.ts`, join(base, 'index.ts')])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** Repository files whose imports were read, with the files they import, or true if they import three. */
const importsOf = new Map();

function importsOfFile(file) {
  let imports = importsOf.get(file);
  if (imports !== undefined) return imports;
  imports = [];
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    // A package entry not followed here (one the aliases above do not name) counts as three's.
    if (
      /^three($|\/)/.test(specifier) ||
      (/^tessera($|\/)/.test(specifier) && !(specifier in PACKAGE_ALIASES))
    ) {
      imports = true;
      break;
    }
    const target = resolveImport(file, specifier);
    if (target !== null) imports.push(target);
  }
  importsOf.set(file, imports);
  return imports;
}

/**
 * Whether `file` or anything it imports inside the repository imports `three`: only such tests
 * can behave differently under another three, so only they run by default (the others, the
 * baker's and the archive format's, take minutes and give the same result under any three).
 */
function reachesThree(file) {
  const seen = new Set([file]);
  const pending = [file];
  while (pending.length > 0) {
    const imports = importsOfFile(pending.pop());
    if (imports === true) return true;
    for (const target of imports)
      if (!seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
  }
  return false;
}

/** The unit test files (the `test.include` of vite.config.ts), repository-relative. */
function unitTestFiles() {
  return readdirSync(join(ROOT, 'test/unit'), { recursive: true })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join('test/unit', name))
    .sort();
}

function run(command, commandArgs, env) {
  const started = performance.now();
  const result = spawnSync(command, commandArgs, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TESSERA_THREE_DIR: THREE_DIR, ...env },
  });
  return { ok: result.status === 0, seconds: (performance.now() - started) / 1000 };
}

const started = performance.now();
ensureThree();
const results = [];
if (runUnit) {
  const all = unitTestFiles();
  const chosen = args.has('--all-unit') ? all : all.filter((file) => reachesThree(join(ROOT, file)));
  console.log(
    `\nunit tests against three ${PREVIOUS_THREE}: ${chosen.length} of ${all.length} files` +
      (args.has('--all-unit') ? '' : ' (those that import three; --all-unit for every file)'),
  );
  results.push([
    'unit',
    run('npx', ['vitest', 'run', '--config', 'test/three-versions/vitest.config.ts', ...chosen]),
  ]);
}
if (runBrowser) {
  console.log(`\nbrowser smoke test against three ${PREVIOUS_THREE} (WebGPU and WebGL2)`);
  execFileSync(process.execPath, [join(ROOT, 'test/ensure-system-packages.mjs')], { stdio: 'inherit' });
  const playwright = ['playwright', 'test', '--config', 'test/three-versions/playwright.config.ts'];
  const smoke = run('npx', [...playwright, 'test/three-versions/']);
  results.push(['browser', smoke]);
  if (!smoke.ok) {
    // The smoke test goes through every accessor of three-internals.ts; when it fails, the probe of
    // each accessor on its own says whether one of them is what moved.
    console.log('\nthe smoke test failed: probing each three internal Tessera uses');
    results.push([
      'three-internals probe',
      run('npx', [...playwright, 'test/browser/harness/three-internals.spec.ts']),
    ]);
  }
}
console.log(`\nthree ${PREVIOUS_THREE}:`);
for (const [name, { ok, seconds }] of results)
  console.log(`  ${name}: ${ok ? 'passed' : 'FAILED'} (${seconds.toFixed(0)} s)`);
console.log(`  total ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exitCode = results.every(([, r]) => r.ok) ? 0 : 1;
