#!/usr/bin/env node
// Makes sure Debian's Chromium is present before browser tests: installs the `chromium` package
// when running as root with apt, otherwise stops with a message naming the package and variable.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (process.env.CHROMIUM_PATH || !isRoot || !hasApt) {
  console.error(
    `Chromium not found at ${path}.\n` +
      "Install Debian's package `chromium` (apt-get install -y chromium) as root, " +
      'or set CHROMIUM_PATH to a Chromium binary. Browsers are never downloaded by the tests.',
  );
  process.exit(1);
}
console.error(`Chromium not found at ${path}: installing Debian's chromium package...`);
execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', {
  stdio: 'inherit',
});
if (!existsSync(path)) {
  console.error(`apt-get finished but ${path} is still missing.`);
  process.exit(1);
}
