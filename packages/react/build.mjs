// Builds the package (`npm run build`, run by `npm pack`): the library's declarations first (the
// bindings type-check against them, and a stale build would not have today's API), then tsc into dist/.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const repositoryRoot = resolve(import.meta.dirname, '../..');

function run(command, cwd) {
  const result = spawnSync(command, { cwd, stdio: 'inherit', shell: true });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run('npx tsc -p tsconfig.build.json', repositoryRoot);
run('npx tsc -p tsconfig.build.json', import.meta.dirname);
