#!/usr/bin/env node
/**
 * The public API report: one file per package entry in `api/` (API Extractor's `.api.md`), checked
 * in, so that any change of the public surface shows as a diff in review.
 *
 *   node test/api-report.mjs            `npm run api:check`: fails when the surface differs from
 *                                        `api/*.api.md`, when an exported declaration has no TSDoc,
 *                                        or when an entry has more names than its limit
 *   node test/api-report.mjs --update   `npm run api:update`: rewrites `api/*.api.md` (the other checks
 *                                        still apply)
 *
 * It builds the declarations itself (`tsconfig.build.json`, as `npm pack` publishes them, into
 * `.tmp/api-report/`), so it runs from a clean clone with nothing built.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import apiExtractor from '@microsoft/api-extractor';

const { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } = apiExtractor;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const API_DIR = path.join(ROOT, 'api');
// Inside the repository, so that the declarations resolve `three` and `@webgpu/types` from its node_modules.
const WORK_DIR = path.join(ROOT, '.tmp', 'api-report');
const TYPES_DIR = path.join(WORK_DIR, 'types');

/**
 * The package entries (`package.json` `exports`): the declaration file tsc writes for each, the
 * report's name in `api/`, and the most names the entry may export (issue #43: a curated root and
 * a `/core` listed name by name).
 */
const ENTRIES = [
  { entry: '@tessera-vt/tessera', dts: 'index.d.ts', report: 'tessera', maxNames: 45 },
  { entry: '@tessera-vt/tessera/core', dts: 'core/index.d.ts', report: 'core', maxNames: 120 },
  { entry: '@tessera-vt/tessera/three', dts: 'three/index.d.ts', report: 'three' },
  { entry: '@tessera-vt/tessera/sources', dts: 'sources/index.d.ts', report: 'sources' },
  { entry: '@tessera-vt/tessera/sim', dts: 'sim/index.d.ts', report: 'sim' },
  { entry: '@tessera-vt/tessera/imagery', dts: 'sources/imagery/index.d.ts', report: 'imagery' },
];

const update = process.argv.includes('--update');

rmSync(WORK_DIR, { recursive: true, force: true });
mkdirSync(WORK_DIR, { recursive: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(
    process.execPath,
    [tsc, '-p', 'tsconfig.build.json', '--outDir', TYPES_DIR, '--declarationMap', 'false'],
    { cwd: ROOT, stdio: 'inherit' },
  );
} catch {
  console.error('api-report: building the declarations (tsconfig.build.json) failed; see above.');
  process.exit(1);
}

const entryFiles = ENTRIES.map((e) => path.join(TYPES_DIR, e.dts));

/** @param {(typeof ENTRIES)[number]} entry */
function prepare(entry) {
  return ExtractorConfig.prepare({
    packageJsonFullPath: path.join(ROOT, 'package.json'),
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: path.join(TYPES_DIR, entry.dts),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2022', 'DOM', 'DOM.Iterable'],
            types: ['@webgpu/types', 'node'],
            strict: true,
            skipLibCheck: true,
          },
          files: entryFiles,
        },
      },
      apiReport: {
        enabled: true,
        reportFolder: API_DIR,
        reportTempFolder: path.join(WORK_DIR, 'reports'),
        reportFileName: entry.report,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: false },
          // The checks this report exists for: every exported declaration and member documented.
          'ae-undocumented': { logLevel: 'error', addToApiReportFile: false },
          // The package has no release stages (@public / @beta): every exported name is public.
          'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
          // The entries share declarations (the root re-exports from /three, /sources and /core), so a
          // type one entry references is often exported by another; each report is read per entry.
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: false },
          // TypeDoc (`npm run docs:check`) validates the links and the TSDoc syntax.
          'ae-unresolved-link': { logLevel: 'none', addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
      },
    },
  });
}

const configs = ENTRIES.map(prepare);
// One TypeScript program for all six entries instead of one each.
const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: entryFiles });
const checker = compilerState.program.getTypeChecker();

/**
 * Whether the declaration API Extractor reports at this line of an emitted `.d.ts` is one of the
 * file's own statements (an exported function, class, interface, type or constant), not a member.
 * @param {string | undefined} file
 * @param {number | undefined} line 1-based
 */
function isTopLevelDeclaration(file, line) {
  const sourceFile =
    file === undefined ? undefined : compilerState.program.getSourceFile(path.resolve(ROOT, file));
  if (sourceFile === undefined || line === undefined) return true;
  return sourceFile.statements.some(
    (statement) => sourceFile.getLineAndCharacterOfPosition(statement.getStart(sourceFile)).line === line - 1,
  );
}

/**
 * The change of one entry's surface: `diff -u` of the checked-in report against the one just made
 * (API Extractor writes it into the temp folder), cut to 80 lines.
 * @param {string} report
 */
function reportDiff(report) {
  const name = `${report}.api.md`;
  const diff = spawnSync('diff', ['-u', path.join('api', name), path.join(WORK_DIR, 'reports', name)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const lines = (diff.stdout || diff.error?.message || '').split('\n');
  const shown = lines.slice(0, 80).join('\n');
  return lines.length > 80 ? `${shown}\n... (${lines.length - 80} more lines)` : shown;
}

const failures = [];
for (const entry of ENTRIES) {
  // Each entry lists its names one by one, so that a new export is a decision, not a side effect.
  const source = path.join('src', entry.dts.replace(/\.d\.ts$/, '.ts'));
  if (/^\s*export\s+(type\s+)?\*/m.test(readFileSync(path.join(ROOT, source), 'utf8'))) {
    failures.push(`${source}: \`export *\` re-exports a module wholesale; list its public names one by one`);
  }
}
for (const [i, entry] of ENTRIES.entries()) {
  const sourceFile = compilerState.program.getSourceFile(entryFiles[i]);
  const names = checker.getExportsOfModule(checker.getSymbolAtLocation(sourceFile));
  const limit = entry.maxNames === undefined ? '' : ` (at most ${entry.maxNames})`;
  console.log(`${entry.entry}: ${names.length} names${limit}`);
  if (entry.maxNames !== undefined && names.length > entry.maxNames) {
    failures.push(`${entry.entry} exports ${names.length} names, more than ${entry.maxNames}`);
  }

  const undocumented = [];
  let undocumentedMembers = 0;
  const result = Extractor.invoke(configs[i], {
    localBuild: update,
    compilerState,
    messageCallback(message) {
      if (message.messageId === 'ae-undocumented') {
        message.handled = true;
        // An undocumented member shows as `// (undocumented)` in the report, for review; an exported
        // declaration without TSDoc fails the check.
        if (!isTopLevelDeclaration(message.sourceFilePath, message.sourceFileLine)) {
          undocumentedMembers++;
          return;
        }
        // Name the source file, not the emitted declaration file (the line is the declaration file's).
        const file = path.relative(TYPES_DIR, path.resolve(ROOT, message.sourceFilePath ?? ''));
        undocumented.push(`src/${file.replace(/\.d\.ts$/, '.ts')}: ${message.text}`);
      } else if (
        message.logLevel === ExtractorLogLevel.Info ||
        message.logLevel === ExtractorLogLevel.Verbose
      ) {
        // API Extractor's own progress lines ("Analysis will use the bundled TypeScript version ...").
        message.handled = true;
      }
    },
  });
  if (undocumentedMembers > 0)
    console.log(`  ${undocumentedMembers} members without TSDoc (marked in the report)`);
  if (undocumented.length > 0) {
    failures.push(`${entry.entry}: ${undocumented.length} exported declarations without TSDoc:`);
    failures.push(...undocumented.map((text) => `  ${text}`));
  }
  if (result.apiReportChanged) {
    if (update) console.log(`  api/${entry.report}.api.md updated`);
    else {
      failures.push(`${entry.entry}: the public API differs from api/${entry.report}.api.md:`);
      failures.push(reportDiff(entry.report));
    }
  }
  const otherErrors = result.errorCount - undocumented.length - undocumentedMembers;
  if (otherErrors > 0) failures.push(`${entry.entry}: API Extractor reported ${otherErrors} errors (above)`);
}

if (failures.length > 0) {
  console.error(`\napi-report failed:\n${failures.join('\n')}`);
  if (!update) {
    console.error(
      '\nIf the change of the public API is intended, run `npm run api:update` and commit api/*.api.md ' +
        '(`git diff api/` shows the change).',
    );
  }
  process.exit(1);
}
console.log(
  update ? 'api-report: api/*.api.md up to date' : 'api-report: the public API matches api/*.api.md',
);
