/**
 * Writes `assets/examples/photo-3840x1920.tsva`, the deep-zoom example's image: the test
 * suite's synthetic stand-in for a photograph (gradients, shapes, text, luminance grain; deterministic) at
 * 3840 x 1920 texels, exactly 32 x 16 pages of 120² payload texels, baked by the CLI as the
 * README shows (`tessera bake photo.png -o photo.tsva`, here WebP quality 75 to keep it small).
 * Run with `npm run bake:examples` (~20 s).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makePhotograph } from '../../test/browser/readme/photo-fixture';

const root = resolve(import.meta.dirname, '../..');
const image = join(tmpdir(), 'tessera-example-photo-3840x1920.png');
const archive = join(root, 'assets/examples/photo-3840x1920.tsva');

await makePhotograph(image, 3840, 1920, 'luminance');
mkdirSync(join(root, 'assets/examples'), { recursive: true });
execFileSync(
  process.execPath,
  [
    join(root, 'packages/baker/bin/tessera.mjs'),
    'bake',
    image,
    '-o',
    archive,
    '--encoding',
    'webp',
    '--quality',
    '75',
  ],
  { stdio: 'inherit' },
);
rmSync(image);
