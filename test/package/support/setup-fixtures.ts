/**
 * The content of the setups page (support/setup-page.js), made from the repository's own baker
 * and glTF fixtures and kept in `.tmp/package-fixtures/` (ignored by git): the encodings take
 * seconds, and the content is deterministic, so a later run reuses them.
 * - `uastc.tsva`: a photograph-like image baked as UASTC + zstd tiles (the compressed pool);
 * - `webp.tsva`: another baked as WebP tiles (an rgba8 pool, decoded in workers);
 * - `scene.gltf` (+ `.bin`, `.ktx2`): two quads textured with KTX2 files, UASTC + zstd and ETC1S
 *   (the glTF plugin, transcoded level by level).
 */

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MemoryArchiveSink } from '../../../src/sources/archive/archive-writer';
import { bakeImages } from '../../../src/sources/bake/bake-archive';
import { cachedFixtureTexture, photoLikeImage, writeGltfScene } from '../../support/gltf-fixtures';

/** Bump when the content changes: the next run remakes the files. */
const FIXTURE_VERSION = 1;
/** Edge of the baked images, texels (4 x 4 pages of 120 texels at mip 0). */
const ARCHIVE_EDGE = 480;
/** Edge of the glTF's KTX2 textures, texels. */
const KTX2_EDGE = 256;

async function bake(file: string, encoding: 'uastc-zstd' | 'webp', seed: number): Promise<void> {
  const colour = encoding === 'webp' ? ([90, 150, 110] as const) : ([150, 120, 90] as const);
  const image = {
    data: photoLikeImage(ARCHIVE_EDGE, colour, seed),
    width: ARCHIVE_EDGE,
    height: ARCHIVE_EDGE,
  };
  const sink = new MemoryArchiveSink();
  await bakeImages(
    [{ name: 'albedo', colorSpace: 'srgb', image }],
    { encoding, quality: 80, uastcEffort: 0 },
    sink,
  );
  writeFileSync(file, sink.toBytes());
}

/** Makes the files once; returns the folder holding them. */
export async function setupFixtures(repositoryRoot: string): Promise<string> {
  const folder = resolve(repositoryRoot, `.tmp/package-fixtures/v${FIXTURE_VERSION}`);
  const complete = join(folder, '.complete');
  if (existsSync(complete)) return folder;
  mkdirSync(folder, { recursive: true });
  await bake(join(folder, 'uastc.tsva'), 'uastc-zstd', 21);
  await bake(join(folder, 'webp.tsva'), 'webp', 22);
  const textures = [
    await cachedFixtureTexture('uastc', 'uastc', KTX2_EDGE, [60, 110, 170], 23),
    await cachedFixtureTexture('etc1s', 'etc1s', KTX2_EDGE, [190, 70, 60], 24),
  ];
  for (const [name, bytes] of Object.entries(await writeGltfScene('scene', textures)))
    writeFileSync(join(folder, name), bytes);
  writeFileSync(complete, '');
  return folder;
}
