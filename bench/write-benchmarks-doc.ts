/**
 * Writes `docs/benchmarks.md` from the JSON of `npm run bench -- --json`:
 *
 *   npm run bench -- --only page-table --json > page-table.json
 *   npm run bench:doc -- page-table.json [more.json ...] [--date 2026-12-03] [--commit 5c8db78]
 *
 * Each benchmark whose figures are in the given files gets its section rewritten (the figures
 * with their targets from `bench/targets.ts`, the machine, the date and the commit); the sections
 * of benchmarks not in the files are kept as they are, so benchmarks can be refreshed one at a
 * time. The machine is read here, so run it on the machine that ran the benchmarks. The date is
 * the JSON file's modification date and the commit is HEAD unless given. Lines before the JSON
 * object (npm's banner when run without `--silent`) are skipped. A benchmark listed under
 * `failures` keeps its previous section, and the script exits with status 1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { chromiumPath } from '../test/browser/chromium';
import { BENCHMARKS, type BenchmarkDescription, TARGETS } from './targets';

const ROOT = new URL('../', import.meta.url);
const BENCH_DIRS = ['bench/', 'lab/bench/'];

const INTRO = `# Benchmarks

Figures from \`npm run bench -- --json\`, written by \`npm run bench:doc\`
(\`bench/write-benchmarks-doc.ts\`; targets and descriptions in \`bench/targets.ts\`). Do not edit the
sections by hand: re-run the benchmark and the script, which rewrites only the sections of the
benchmarks it is given. Each section names its machine, date and commit; figures measured on
different days or machines are not comparable with each other. Other documents link here instead
of copying figures.
`;

interface Section {
  name: string;
  text: string;
}

interface Options {
  files: string[];
  date?: string;
  commit?: string;
  doc: string;
}

function parseArgs(args: string[]): Options {
  const options: Options = { files: [], doc: 'docs/benchmarks.md' };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--date') options.date = args[++i];
    else if (arg === '--commit') options.commit = args[++i];
    else if (arg === '--doc') options.doc = args[++i];
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else options.files.push(arg);
  }
  if (options.files.length === 0) {
    throw new Error(
      'usage: npm run bench:doc -- <results.json> [more.json ...] [--date YYYY-MM-DD] [--commit SHA]',
    );
  }
  return options;
}

/** The JSON object of a `--json` run, without npm's banner lines before it. */
function readResults(file: string): { figures: Map<string, number>; failures: Record<string, string> } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const first = lines.findIndex((line) => line.startsWith('{'));
  if (first < 0) throw new Error(`${file}: no JSON object (expected the output of npm run bench -- --json)`);
  const parsed = JSON.parse(lines.slice(first).join('\n')) as Record<string, unknown>;
  const figures = new Map<string, number>();
  let failures: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key === 'failures') failures = value as Record<string, string>;
    else if (typeof value === 'number') figures.set(key, value);
  }
  return { figures, failures };
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

const literalLength = (pattern: string) => pattern.replace(/\*/g, '').length;

/** The benchmark a figure key belongs to: the one whose matching pattern is most specific. */
function benchmarkOf(key: string): string | undefined {
  let best: string | undefined;
  let bestLength = -1;
  for (const [name, description] of Object.entries(BENCHMARKS)) {
    for (const pattern of description.keys) {
      if (literalLength(pattern) > bestLength && globToRegExp(pattern).test(key)) {
        best = name;
        bestLength = literalLength(pattern);
      }
    }
  }
  return best;
}

function targetOf(key: string): string {
  const target = TARGETS.find((t) => globToRegExp(t.key).test(key));
  return target ? `${target.target} (${target.from})` : '—';
}

function significant(value: number, digits: number): string {
  if (value === 0) return '0';
  const text = Number(value.toPrecision(digits));
  return Math.abs(text) >= 1e5 ? Math.round(text).toLocaleString('en-US') : String(text);
}

function bytes(value: number): string {
  if (Math.abs(value) < 1024) return `${Math.round(value)} B`;
  if (Math.abs(value) < 1 << 20) return `${(value / 1024).toFixed(1)} KiB`;
  if (Math.abs(value) < 1 << 30) return `${(value / (1 << 20)).toFixed(2)} MiB`;
  return `${(value / (1 << 30)).toFixed(2)} GiB`;
}

/** A figure with its unit, read from the key's words (the last segment that names one wins). */
function formatFigure(key: string, value: number): string {
  const segments = key.split('.');
  for (let i = segments.length - 1; i >= 0; i--) {
    const words = segments[i].split('_');
    const has = (word: string) => words.includes(word);
    if (has('psnr') || has('db')) return value >= 99 ? 'identical' : `${value.toFixed(1)} dB`;
    if (has('ratio') || has('speedup') || has('vs')) return `${significant(value, 3)}x`;
    if (has('efficiency') || has('fraction')) return value.toFixed(3);
    if (has('bytes')) return bytes(value);
    if (has('ms')) return `${significant(value, 3)} ms`;
    if (has('us')) return `${significant(value, 3)} µs`;
    if (has('ns')) return `${significant(value, 3)} ns`;
    if (has('mb')) return `${significant(value, 3)} MB`;
    if (has('deg')) return `${significant(value, 3)}°`;
    if (has('frames') || has('frame')) return String(value);
  }
  return Number.isInteger(value) ? value.toLocaleString('en-US') : significant(value, 4);
}

/** The benchmark's module, found by its `name: '...'` (the runner's way of naming it). */
function moduleOf(name: string): string | undefined {
  for (const dir of BENCH_DIRS) {
    const url = new URL(dir, ROOT);
    if (!existsSync(url)) continue;
    for (const file of readdirSync(url).filter((f) => f.endsWith('.bench.ts'))) {
      if (readFileSync(new URL(file, url), 'utf8').includes(`name: '${name}'`)) return `${dir}${file}`;
    }
  }
  return undefined;
}

/** The doc comment that opens a module, as Markdown, or undefined when it opens with code. */
function openingComment(path: string): string | undefined {
  const text = readFileSync(new URL(path, ROOT), 'utf8');
  const match = /^\/\*\*([\s\S]*?)\*\//.exec(text);
  if (!match) return undefined;
  return match[1]
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

function run(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** HEAD, and whether tracked files differ from it (the figures may then measure those changes). */
function commitOf(): string {
  const head = run('git', ['rev-parse', '--short', 'HEAD']) ?? 'unknown';
  const dirty = run('git', ['status', '--porcelain', '--untracked-files=no']);
  return dirty ? `\`${head}\` with uncommitted changes` : `\`${head}\``;
}

let chromiumVersion: string | undefined;
let chromiumAsked = false;
function chromium(): string | undefined {
  if (!chromiumAsked) {
    chromiumAsked = true;
    chromiumVersion = run(chromiumPath(), ['--version'])?.match(/Chromium \S+/)?.[0];
  }
  return chromiumVersion;
}

function machine(browser: boolean): string {
  const cpu = cpus();
  const parts = [
    `${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}`,
    `${Math.round(totalmem() / 2 ** 30)} GiB`,
    `${type()} ${release()}`,
    `Node ${process.version}`,
  ];
  const version = browser ? chromium() : undefined;
  if (version) parts.push(`headless ${version}`);
  return parts.join(', ');
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function table(description: BenchmarkDescription | undefined, figures: Map<string, number>): string[] {
  const columns = description?.columns;
  if (!columns) {
    const lines = ['| figure | value | target |', '|---|---|---|'];
    for (const [key, value] of figures)
      lines.push(row([`\`${key}\``, formatFigure(key, value), targetOf(key)]));
    return lines;
  }
  const names = Object.keys(columns.names);
  // Rows keyed by the key without its column segment, in the order of first appearance.
  const rows = new Map<string, Map<string, string>>();
  for (const key of figures.keys()) {
    const segments = key.split('.');
    const column = segments[columns.at];
    const rowKey = names.includes(column)
      ? [...segments.slice(0, columns.at), '*', ...segments.slice(columns.at + 1)].join('.')
      : key;
    if (!rows.has(rowKey)) rows.set(rowKey, new Map());
    rows.get(rowKey)!.set(names.includes(column) ? column : names[0], key);
  }
  const lines = [
    row(['figure', ...names.map((n) => columns.names[n]), 'target']),
    `|---|${names.map(() => '---|').join('')}---|`,
  ];
  for (const [rowKey, keys] of rows) {
    const cells = names.map((n) => {
      const key = keys.get(n);
      return key === undefined ? '' : formatFigure(key, figures.get(key)!);
    });
    lines.push(row([`\`${rowKey}\``, ...cells, targetOf(keys.values().next().value!)]));
  }
  return lines;
}

function sectionText(name: string, figures: Map<string, number>, date: string, commit: string): string {
  const description = BENCHMARKS[name];
  const module = moduleOf(name);
  const about = description?.about ?? (module ? openingComment(module) : undefined);
  const lines = [`## ${name}`, ''];
  const title = description?.title ?? `figures \`${name}.*\``;
  const where = module ? `\`${module}\`, ` : '';
  lines.push(`**${title}** (${where}\`npm run bench -- --only ${name}\`).`, '');
  lines.push(`Measured ${date} at commit ${commit} on ${machine(description?.browser ?? false)}.`, '');
  if (about) lines.push(about, '');
  lines.push(...table(description, figures), '');
  for (const note of description?.notes ?? []) lines.push(`- ${note}`);
  if (description?.notes?.length) lines.push('');
  return lines.join('\n');
}

/** The sections of the current page, by benchmark name (`## name`, or a title ending in (`name`)). */
function readSections(doc: string): Section[] {
  if (!existsSync(doc)) return [];
  const sections: Section[] = [];
  let current: Section | undefined;
  for (const line of readFileSync(doc, 'utf8').split('\n')) {
    if (line.startsWith('## ')) {
      const heading = line.slice(3).trim();
      const name = /\(`([a-z0-9-]+)`\)$/.exec(heading)?.[1] ?? heading;
      current = { name, text: '' };
      sections.push(current);
    }
    if (current) current.text += `${line}\n`;
  }
  for (const section of sections) section.text = `${section.text.trimEnd()}\n`;
  return sections;
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function main(): number {
  const options = parseArgs(process.argv.slice(2));
  const sections = new Map(readSections(options.doc).map((s) => [s.name, s.text]));
  const commit = options.commit ? `\`${options.commit}\`` : commitOf();
  let status = 0;
  for (const file of options.files) {
    const { figures, failures } = readResults(file);
    const date = options.date ?? isoDate(statSync(file).mtimeMs);
    const byBenchmark = new Map<string, Map<string, number>>();
    for (const [key, value] of figures) {
      let name = benchmarkOf(key);
      if (!name) {
        name = key.split('.')[0];
        console.error(`${key}: no benchmark in bench/targets.ts claims it; section "${name}"`);
      }
      if (!byBenchmark.has(name)) byBenchmark.set(name, new Map());
      byBenchmark.get(name)!.set(key, value);
    }
    for (const [name, error] of Object.entries(failures)) {
      console.error(`${file}: benchmark ${name} failed, its section is kept: ${error.split('\n')[0]}`);
      byBenchmark.delete(name);
      status = 1;
    }
    for (const [name, benchFigures] of byBenchmark) {
      sections.set(name, sectionText(name, benchFigures, date, commit));
      console.error(`${options.doc}: section ${name} (${benchFigures.size} figures, ${date})`);
    }
  }
  const names = [...sections.keys()].sort();
  writeFileSync(options.doc, [INTRO, ...names.map((n) => sections.get(n)!)].join('\n'));
  return status;
}

process.exitCode = main();
