/**
 * `tessera gltf` output streams as the README says: a glTF of PNG and JPEG textures baked by
 * `bakeGltfFile` (a .glb, one .ktx2 per texture beside it), served by a static host that answers
 * Range, loaded through `registerGltfTextureStreaming(...).load(url)`: textured on the first
 * frames from the coarsest levels, which arrive inside the .glb (`TESSERA_texture_prefix`), every
 * texture read by Range only for finer levels, only as deep as the view needs.
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

/**
 * The baked files by name: two 512² PNGs and a 256² JPEG, baked once per spec run, as `baked.glb`
 * (with `TESSERA_texture_prefix`, the default) and as `plain.glb` (`prefix: false`, as before it).
 */
function bakedScene(): Promise<Record<string, Uint8Array>> {
  baked ??= bake();
  return baked;
}
let baked: Promise<Record<string, Uint8Array>> | undefined;

async function bake(): Promise<Record<string, Uint8Array>> {
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
    const files: Record<string, Uint8Array> = {};
    for (const [stem, prefix] of [
      ['baked', true],
      ['plain', false],
    ] as const) {
      const out = join(dir, stem);
      mkdirSync(out);
      await bakeGltfFile(join(dir, 'orig.gltf'), join(out, `${stem}.glb`), { prefix });
      for (const name of readdirSync(out))
        files[basename(name)] = new Uint8Array(readFileSync(join(out, name)));
    }
    return files;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface RunResult {
  firstTexturedFrame: number;
  settled: boolean;
  frames: number;
  mapsAreStreamed: boolean;
  errors: string[];
  textures: { name: string; format: string; levels: number; mip: number }[];
}

interface BakedPage {
  run(url: string, name: string): Promise<RunResult>;
  reference(url: string, name: string): Promise<void>;
  compare(a: string, b: string): { maxDifference: number; psnr: number; drawn: number };
}

const KTX2 = ['j0', 'p0', 'p1'];

test('a glTF baked by tessera gltf streams through registerGltfTextureStreaming', async ({
  page,
  openPage,
}, testInfo) => {
  test.setTimeout(240_000);
  const files = await bakedScene();
  expect(Object.keys(files).sort()).toEqual([
    'baked-j0.ktx2',
    'baked-p0.ktx2',
    'baked-p1.ktx2',
    'baked.glb',
    'plain-j0.ktx2',
    'plain-p0.ktx2',
    'plain-p1.ktx2',
    'plain.glb',
  ]);
  const served = await serveFiles(page, files);
  await openPage(PAGE);
  await expect(page).toHaveTitle('ready');
  const run = (url: string, as: string) =>
    page.evaluate(([url, as]) => (globalThis as never as { gltfPage: BakedPage }).gltfPage.run(url, as), [
      url,
      as,
    ] as const);
  const r = await run('/gltf-files/baked.glb', 'baked');
  const plain = await run('/gltf-files/plain.glb', 'plain');
  for (const result of [r, plain]) {
    expect(result.errors).toEqual([]);
    expect(result.mapsAreStreamed).toBe(true);
    expect(result.settled).toBe(true);
    // loadAsync resolves with every texture's coarsest levels bound: textured at once (issue #45: <= 4 frames).
    expect(result.firstTexturedFrame).toBeGreaterThanOrEqual(1);
    expect(result.firstTexturedFrame).toBeLessThanOrEqual(4);
    // UASTC colour transcoded to SwiftShader's best block format, full chains, the view's mips
    // (a 512² texture on ~121 pixels needs mip 2, the 256² JPEG mip 1).
    expect(result.textures.map((t) => [t.name, t.format, t.levels, t.mip]).sort()).toEqual([
      ['j0.jpg', 'bc7-rgba-unorm-srgb', 9, 1],
      ['p0.png', 'bc7-rgba-unorm-srgb', 10, 2],
      ['p1.png', 'bc7-rgba-unorm-srgb', 10, 2],
    ]);
  }
  // The .glb arrives whole; each .ktx2 only by Range, and only its levels the view needs.
  expect(served.filter((x) => x.file === 'baked.glb').map((x) => x.range)).toEqual([false]);
  for (const stem of ['baked', 'plain']) {
    const glb = files[`${stem}.glb`].length;
    let requestsBeforeFirstFrame = 0;
    let bytesBeforeFirstFrame = glb;
    for (const texture of KTX2) {
      const name = `${stem}-${texture}.ktx2`;
      const result = stem === 'baked' ? r : plain;
      const requests = served.filter((x) => x.file === name);
      expect(requests.length, name).toBeGreaterThan(0);
      expect(
        requests.every((x) => x.range),
        name,
      ).toBe(true);
      const bytes = requests.reduce((sum, x) => sum + x.bytes, 0);
      expect(bytes, name).toBeLessThan(files[name].length / 2);
      const early = requests.filter(
        (x) => x.phase === `${stem}-load` || x.afterFrame < result.firstTexturedFrame,
      );
      const beforeFirstFrame = early.reduce((sum, x) => sum + x.bytes, 0);
      requestsBeforeFirstFrame += early.length;
      bytesBeforeFirstFrame += beforeFirstFrame;
      console.log(
        `[gltf-baked ${testInfo.project.name}] ${name}: ${early.length} requests, ${beforeFirstFrame} B before the first textured frame; ${requests.length} requests, ${bytes} B of ${files[name].length} settled`,
      );
      expect(beforeFirstFrame, name).toBeLessThanOrEqual(64 * 1024);
      // With TESSERA_texture_prefix the coarse levels came inside the .glb: no .ktx2 request at all.
      if (stem === 'baked') expect(early, name).toEqual([]);
    }
    console.log(
      `[gltf-baked ${testInfo.project.name}] ${stem}.glb (${glb} B): ${1 + requestsBeforeFirstFrame} requests, ${bytesBeforeFirstFrame} B before the first textured frame`,
    );
  }
  // The same .ktx2 bytes either way; the prefixes make the .glb larger by what they carry.
  for (const texture of KTX2) expect(files[`baked-${texture}.ktx2`]).toEqual(files[`plain-${texture}.ktx2`]);

  // The settled frame is the one without prefixes, pixel for pixel; and three's own GLTFLoader +
  // KTX2Loader, which does not know the extension (optional), loads the same .glb and draws it.
  await page.evaluate(() =>
    (globalThis as never as { gltfPage: BakedPage }).gltfPage.reference('/gltf-files/baked.glb', 'three'),
  );
  const compare = (a: string, b: string) =>
    page.evaluate(([a, b]) => (globalThis as never as { gltfPage: BakedPage }).gltfPage.compare(a, b), [
      a,
      b,
    ] as const);
  expect((await compare('plain', 'baked')).maxDifference).toBe(0);
  const againstThree = await compare('three', 'baked');
  const plainAgainstThree = await compare('three', 'plain');
  console.log(
    `[gltf-baked ${testInfo.project.name}] settled frame against three's GLTFLoader + KTX2Loader on baked.glb: ${againstThree.psnr.toFixed(2)} dB (without prefixes: ${plainAgainstThree.psnr.toFixed(2)} dB)`,
  );
  expect(againstThree.psnr).toBe(plainAgainstThree.psnr);
  // Three quads of about 121 x 121 pixels of the 704 x 128 are textured (the rest is the clear colour).
  for (const frame of ['baked', 'three'])
    expect((await compare(frame, frame)).drawn, frame).toBeGreaterThan(0.4);
  expect(againstThree.psnr).toBeGreaterThanOrEqual(35);
});

test('a .ktx2 that does not match the prefix in its .glb: a prefix-mismatch error naming the texture, and it streams from the file', async ({
  page,
  openPage,
}) => {
  test.setTimeout(240_000);
  const files = await bakedScene();
  // p0's file re-made from another image (p1's), the .glb left as it was.
  const stale = { ...files, 'baked-p0.ktx2': files['plain-p1.ktx2'] };
  expect(stale['baked-p0.ktx2'].length).not.toBe(files['baked-p0.ktx2'].length);
  const served = await serveFiles(page, stale);
  await openPage(PAGE);
  await expect(page).toHaveTitle('ready');
  const r = await page.evaluate(() =>
    (globalThis as never as { gltfPage: BakedPage }).gltfPage.run('/gltf-files/baked.glb', 'stale'),
  );
  expect(r.errors).toHaveLength(1);
  expect(r.errors[0]).toMatch(
    /^p0\.png: prefix-mismatch: glTF texture 'p0\.png': .*baked-p0\.ktx2: the file does not match the prefix held for it: .*; reading the file's own metadata$/,
  );
  // Nothing lost: textured at once from the prefix, then settled at the view's mips from the file.
  expect(r.settled).toBe(true);
  expect(r.firstTexturedFrame).toBeLessThanOrEqual(4);
  expect(r.textures.map((t) => [t.name, t.mip]).sort()).toEqual([
    ['j0.jpg', 1],
    ['p0.png', 2],
    ['p1.png', 2],
  ]);
  // The check cost p0 one more request (its metadata), after the first frame.
  const p0 = served.filter((x) => x.file === 'baked-p0.ktx2');
  expect(p0.filter((x) => x.phase === 'stale-load')).toEqual([]);
  expect(p0.length).toBeGreaterThanOrEqual(2);
});
