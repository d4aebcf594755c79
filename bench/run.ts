/**
 * Benchmark runner: `npm run bench` prints a table, `npm run bench -- --json` prints one JSON
 * object (flat keys such as `feedback.analyze.240x135.median_ms`) on stdout and nothing else.
 * `--only <name>` runs the benchmarks whose name contains <name>; `--dir <folder>` runs the
 * `*.bench.ts` of another folder (`npm run bench:lab`: `lab/bench`).
 *
 * Each `bench/*.bench.ts` default-exports `{ name, run(): Promise<Record<string, number>> }`.
 * Benchmarks measure; the targets they are compared with live in the issues and the README.
 */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One benchmark module. */
export interface Benchmark {
  name: string;
  run(): Promise<Record<string, number>>;
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;
const dirIndex = args.indexOf('--dir');

// In JSON mode stdout carries the JSON document alone: benchmark chatter goes to stderr.
if (json) console.log = console.error;

const dir = dirIndex >= 0 ? pathToFileURL(`${resolve(args[dirIndex + 1])}/`) : new URL('./', import.meta.url);
const files = readdirSync(dir)
  .filter((file) => file.endsWith('.bench.ts'))
  .sort();

const results: Record<string, number> = {};
const failures: Record<string, string> = {};
for (const file of files) {
  const bench = (await import(pathToFileURL(new URL(file, dir).pathname).href)).default as Benchmark;
  if (only && !bench.name.includes(only)) continue;
  if (!json) console.error(`running ${bench.name} (${file})...`);
  try {
    Object.assign(results, await bench.run());
  } catch (error) {
    failures[bench.name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`benchmark ${bench.name} failed:`, error);
  }
}

if (json) {
  process.stdout.write(
    `${JSON.stringify({ ...results, ...(Object.keys(failures).length ? { failures } : {}) }, null, 2)}\n`,
  );
} else {
  const width = Math.max(10, ...Object.keys(results).map((key) => key.length));
  for (const [key, value] of Object.entries(results)) {
    console.log(`${key.padEnd(width)}  ${Number.isInteger(value) ? value : value.toPrecision(4)}`);
  }
}
process.exitCode = Object.keys(failures).length ? 1 : 0;
