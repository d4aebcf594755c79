#!/usr/bin/env node
// Makes sure the Debian packages the tests need are present: `chromium` (browser tests) and
// `xplanet-images` (a real Earth map, /usr/share/xplanet/images/earth.jpg, from which the imagery
// tests make their COG, PMTiles, XYZ and Deep Zoom pyramids). Installs what is missing when
// running as root with apt; otherwise stops with a message naming the package. Nothing is ever
// downloaded by the tests themselves.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const wanted = [
  { pkg: 'chromium', path: chromium, variable: 'CHROMIUM_PATH' },
  { pkg: 'xplanet-images', path: '/usr/share/xplanet/images/earth.jpg' },
];
const missing = wanted.filter((w) => !existsSync(w.path));
if (missing.length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if ((process.env.CHROMIUM_PATH && missing.some((m) => m.pkg === 'chromium')) || !isRoot || !hasApt) {
  for (const m of missing) {
    console.error(
      `${m.path} not found: install Debian's package \`${m.pkg}\` (apt-get install -y ${m.pkg}) as root` +
        (m.variable ? `, or set ${m.variable}.` : '.'),
    );
  }
  process.exit(1);
}
const names = missing.map((m) => m.pkg).join(' ');
console.error(`Missing ${missing.map((m) => m.path).join(', ')}: installing Debian's ${names}...`);
execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${names}`, {
  stdio: 'inherit',
});
for (const m of missing) {
  if (!existsSync(m.path)) {
    console.error(`apt-get finished but ${m.path} is still missing.`);
    process.exit(1);
  }
}
