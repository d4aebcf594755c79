/**
 * `tessera gltf` output streams as the README says: a glTF of PNG and JPEG textures baked by
 * `bakeGltfFile` (a .glb, one .ktx2 per texture beside it), served by a static host that answers
 * Range, loaded through `registerGltfTextureStreaming(...).load(url)`: textured on the first
 * frames from the coarsest levels, every texture read by Range only as deep as the view needs.
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { bakeGltfFile } from '../../../src/sources/bake/bake-gltf-file';
import {
  cachedFixtureTexture,
  type GltfFixtureTexture,
  photoLikeImage,
  writeGltfScene,
} from '../../support/gltf-fixtures';
import { expect, test } from '../fixtures';
import { serveFiles } from './serve-files';

const PAGE = 'test/browser/gltf/pages/gltf-baked.html';

/** The baked files by name: two 512² PNGs and a 256² JPEG, baked once per spec run. */
async function bakedScene(): Promise<Record<string, Uint8Array>> {
  const jpeg = await sharp(Buffer.from(photoLikeImage(256, [90, 140, 200], 13)), {
    raw: { width: 256, height: 256, channels: 4 },
  })
    .jpeg({ quality: 90 })
    .toBuffer();
  const textures: GltfFixtureTexture[] = [
    await cachedFixtureTexture('png', 'p0', 512, [200, 90, 60], 11),
    { uri: 'j0.jpg', bytes: new Uint8Array(jpeg), mimeType: 'image/jpeg' as 'image/png' },
    await cachedFixtureTexture('png', 'p1', 512, [60, 180, 90], 12),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'tessera-gltf-baked-'));
  try {
    for (const [name, bytes] of Object.entries(await writeGltfScene('orig', textures))) {
      writeFileSync(join(dir, name), bytes);
    }
    const out = join(dir, 'out');
    mkdirSync(out);
    await bakeGltfFile(join(dir, 'orig.gltf'), join(out, 'baked.glb'));
    const files: Record<string, Uint8Array> = {};
    for (const name of readdirSync(out))
      files[basename(name)] = new Uint8Array(readFileSync(join(out, name)));
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a glTF baked by tessera gltf streams through registerGltfTextureStreaming', async ({
  page,
  openPage,
}) => {
  test.setTimeout(180_000);
  const files = await bakedScene();
  expect(Object.keys(files).sort()).toEqual(['baked-j0.ktx2', 'baked-p0.ktx2', 'baked-p1.ktx2', 'baked.glb']);
  const served = await serveFiles(page, files);
  await openPage(PAGE);
  await expect(page).toHaveTitle('ready');
  const r = (await page.evaluate(() =>
    (globalThis as never as { gltfPage: { run(url: string): Promise<unknown> } }).gltfPage.run(
      '/gltf-files/baked.glb',
    ),
  )) as {
    firstTexturedFrame: number;
    settled: boolean;
    frames: number;
    mapsAreStreamed: boolean;
    errors: string[];
    textures: { name: string; format: string; levels: number; mip: number }[];
  };
  expect(r.errors).toEqual([]);
  expect(r.mapsAreStreamed).toBe(true);
  expect(r.settled).toBe(true);
  // loadAsync resolves with every texture's coarsest levels bound: textured at once (issue #45: <= 4 frames).
  expect(r.firstTexturedFrame).toBeGreaterThanOrEqual(1);
  expect(r.firstTexturedFrame).toBeLessThanOrEqual(4);
  // UASTC colour transcoded to SwiftShader's best block format, full chains, the view's mips
  // (a 512² texture on ~121 pixels needs mip 2, the 256² JPEG mip 1).
  expect(r.textures.map((t) => [t.name, t.format, t.levels, t.mip]).sort()).toEqual([
    ['j0.jpg', 'bc7-rgba-unorm-srgb', 9, 1],
    ['p0.png', 'bc7-rgba-unorm-srgb', 10, 2],
    ['p1.png', 'bc7-rgba-unorm-srgb', 10, 2],
  ]);
  // The .glb arrives whole; each .ktx2 only by Range, and only its levels the view needs.
  expect(served.filter((x) => x.file === 'baked.glb').map((x) => x.range)).toEqual([false]);
  for (const name of ['baked-j0.ktx2', 'baked-p0.ktx2', 'baked-p1.ktx2']) {
    const requests = served.filter((x) => x.file === name);
    expect(requests.length, name).toBeGreaterThan(0);
    expect(
      requests.every((x) => x.range),
      name,
    ).toBe(true);
    const bytes = requests.reduce((sum, x) => sum + x.bytes, 0);
    expect(bytes, name).toBeLessThan(files[name].length / 2);
    const early = requests.filter((x) => x.phase === 'load' || x.afterFrame < r.firstTexturedFrame);
    const beforeFirstFrame = early.reduce((sum, x) => sum + x.bytes, 0);
    console.log(
      `[gltf-baked] ${name}: ${early.length} requests, ${beforeFirstFrame} B before the first textured frame; ${requests.length} requests, ${bytes} B of ${files[name].length} settled`,
    );
    expect(beforeFirstFrame, name).toBeLessThanOrEqual(64 * 1024);
  }
});
