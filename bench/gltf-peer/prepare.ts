/**
 * The scenes of the side-by-side glTF benchmark (gltf-peer.bench.ts), each prepared by each
 * tool's own pipeline once and cached in `.tmp/gltf-peer/<scene>/`:
 * - `original/`: the glTF as people have it, PNG and JPEG textures (what three's plain
 *   `GLTFLoader` loads, and what the two other tools start from);
 * - `tessera/`: `bakeGltfFile` (`tessera gltf`) of the original, default options (colour as UASTC +
 *   Zstandard, normals UASTC + Zstandard; see {@link TESSERA_COLOR});
 * - `needle/`: the original run through needle's own offline pipeline,
 *   `@needle-tools/gltf-build-pipeline` 1.4.11 (`make-progressive.mjs`, then `pack-gltf.mjs`, the two
 *   steps its `index.mjs` runs), installed on demand into `.tmp/needle-pipeline/` with its
 *   `sharp ^0.32.6` overridden to the repository's sharp 0.35.5: sharp 0.32's install script
 *   downloads libvips from github.com, which is not reachable here (`getaddrinfo ENOTFOUND
 *   github.com`); sharp 0.33+ takes its binaries from npm, and the pipeline calls only
 *   `sharp(buffer).resize(...).toBuffer()` (and `.toFormat("webp")` in a step not run here), unchanged since. No `toktx`
 *   (KTX-Software) exists here (neither npm nor Debian ship it), so `pack-gltf` keeps PNG and JPEG,
 *   as it does on any machine without toktx.
 *
 * - `needle-lods/`: needle's pipeline output rewritten into the texture layout the NEEDLE_progressive
 *   schema documents (`NEEDLE_progressive/README.md` in gltf-progressive: several LODs with sizes),
 *   which the offline pipeline 1.4.11 does not write: each texture's `lods` lists its full-size
 *   LOD and three more at 1/2, 1/4 and 1/8 of the edge (resized by sharp's lanczos3 as needle's
 *   pipeline resizes, same image type, each in a `.glb` laid out as the pipeline lays out its LOD
 *   0), each with `width` and `height`, so that gltf-progressive can choose a level by screen
 *   size. Made by this file, not by needle: labelled so wherever it is reported.
 *
 * Scenes: `showcase`, the showcase scene (test/support/gltf-showcase-scene.ts) at 2048² with every
 * texture PNG or JPEG; `large`, 48 photograph-like 2048² textures (24 PNG, 24 JPEG quality 90;
 * 805 MB as rgba8) on quads of a wall.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { bakeGltfFile } from '../../src/sources/bake/bake-gltf-file';
import { type GltfFixtureTexture, photoLikeImage, writeGltfScene } from '../../test/support/gltf-fixtures';
import { writeShowcaseScene } from '../../test/support/gltf-showcase-scene';

/** The scenes the benchmark runs. */
export const PEER_SCENES = ['showcase', 'large'] as const;
export type PeerScene = (typeof PEER_SCENES)[number];

/** Colour codec the Tessera side is baked with (`tessera gltf`'s default). */
export const TESSERA_COLOR = 'uastc' as const;

/** Textures of the large scene, and its columns (the wall is 8 x 6 quads). */
export const LARGE_TEXTURES = 48;
export const LARGE_COLUMNS = 8;

const EDGE = 2048;
const ROOT = new URL('../../.tmp/gltf-peer/', import.meta.url).pathname;
const NEEDLE_PIPELINE = new URL('../../.tmp/needle-pipeline/', import.meta.url).pathname;
const NEEDLE_PIPELINE_VERSION = '1.4.11';
/** The repository's sharp, which replaces the pipeline's sharp 0.32 (see the file's comment). */
const SHARP_OVERRIDE = '0.35.5';
/** Bump when a scene or a preparation changes: cached outputs are then made again. */
const PREPARED_VERSION = 1;

/** Every file of each tool's version of a scene, by name (what the page is served). */
export interface PreparedScene {
  original: Record<string, Uint8Array>;
  tessera: Record<string, Uint8Array>;
  needle: Record<string, Uint8Array>;
  'needle-lods': Record<string, Uint8Array>;
  /** Entry files: `<scene>.gltf` (original), `<scene>.glb` (Tessera), the needle glTF. */
  entries: { original: string; tessera: string; needle: string };
}

function readFolder(dir: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isFile()) out[name] = new Uint8Array(readFileSync(join(dir, name)));
  }
  return out;
}

function writeFolder(dir: string, files: Record<string, Uint8Array>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
}

async function largeOriginals(): Promise<Record<string, Uint8Array>> {
  const textures: GltfFixtureTexture[] = [];
  for (let i = 0; i < LARGE_TEXTURES; i++) {
    const colour: [number, number, number] = [
      70 + ((i * 37) % 130),
      70 + ((i * 59) % 130),
      70 + ((i * 83) % 130),
    ];
    const image = sharp(Buffer.from(photoLikeImage(EDGE, colour, 100 + i)), {
      raw: { width: EDGE, height: EDGE, channels: 4 },
    });
    const jpeg = i % 2 === 1;
    const bytes = new Uint8Array(await (jpeg ? image.jpeg({ quality: 90 }) : image.png()).toBuffer());
    textures.push({
      uri: `t${i}.${jpeg ? 'jpg' : 'png'}`,
      bytes,
      mimeType: jpeg ? 'image/jpeg' : 'image/png',
    });
  }
  return writeGltfScene('large', textures, LARGE_COLUMNS);
}

/** Installs needle's pipeline into `.tmp/needle-pipeline/` once (npm registry only). */
function needlePipeline(): string {
  const main = join(NEEDLE_PIPELINE, 'node_modules/@needle-tools/gltf-build-pipeline');
  if (existsSync(join(main, 'make-progressive.mjs'))) return main;
  mkdirSync(NEEDLE_PIPELINE, { recursive: true });
  writeFileSync(
    join(NEEDLE_PIPELINE, 'package.json'),
    JSON.stringify({
      name: 'needle-pipeline-bench',
      private: true,
      type: 'module',
      dependencies: { '@needle-tools/gltf-build-pipeline': NEEDLE_PIPELINE_VERSION },
      overrides: { sharp: SHARP_OVERRIDE },
    }),
  );
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: NEEDLE_PIPELINE,
    encoding: 'utf8',
  });
  if (install.status !== 0) {
    throw new Error(`npm install of the needle pipeline failed: ${install.stderr}`);
  }
  return main;
}

/** Runs needle's pipeline over the glTF in `dir` in place, as its `index.mjs` does. */
function runNeedlePipeline(dir: string, entry: string): void {
  const main = needlePipeline();
  for (const script of ['make-progressive.mjs', 'pack-gltf.mjs']) {
    // --no-caching: the pipeline's cache lives in the user's temp folder, outside this checkout.
    const run = spawnSync('node', [script, join(dir, entry), '--no-caching'], {
      cwd: main,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const log = `${run.stdout}\n${run.stderr}`;
    writeFileSync(join(dir, `../needle-${script}.log`), log);
    if (run.status !== 0 || /\bERR:/.test(log)) {
      throw new Error(`needle's ${script} failed on ${entry} (status ${run.status}): ${log.slice(-2000)}`);
    }
  }
}

const GLB_JSON = 0x4e4f534a;

/** A GLB's JSON and binary chunk. */
function readGlb(glb: Uint8Array): { json: Record<string, unknown>; bin: Uint8Array } {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== GLB_JSON) throw new Error('not a GLB with a JSON chunk first');
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength)));
  const binStart = 20 + jsonLength;
  const bin = glb.subarray(binStart + 8, binStart + 8 + view.getUint32(binStart, true));
  return { json, bin };
}

/** A GLB of `json` and `bin` (both padded to 4 bytes, as the format requires). */
function writeGlb(json: Record<string, unknown>, bin: Uint8Array): Uint8Array {
  const pad = (n: number) => (4 - (n % 4)) % 4;
  const jsonBytes = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = jsonBytes.length + pad(jsonBytes.length);
  const binLength = bin.length + pad(bin.length);
  const out = new Uint8Array(12 + 8 + jsonLength + 8 + binLength);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, out.length, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, GLB_JSON, true);
  out.set(jsonBytes, 20);
  out.fill(0x20, 20 + jsonBytes.length, 20 + jsonLength);
  view.setUint32(20 + jsonLength, binLength, true);
  view.setUint32(24 + jsonLength, 0x004e4942, true);
  out.set(bin, 28 + jsonLength);
  return out;
}

/**
 * needle's LOD 0 `.glb` of one texture (one image in one buffer view) with the image resized to
 * `edge` (lanczos3, same type): the layout of the pipeline's LOD files at a smaller size.
 */
async function smallerLod(lod0: Uint8Array, edge: number): Promise<Uint8Array> {
  const { json } = readGlb(lod0);
  const images = json.images as { mimeType: string; bufferView: number }[];
  const views = json.bufferViews as { byteOffset?: number; byteLength: number }[];
  if (images.length !== 1 || views.length !== 1) throw new Error('unexpected needle LOD layout');
  const { bin } = readGlb(lod0);
  const view = views[0];
  const image = bin.subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength);
  const resized = sharp(image).resize(edge, edge, { fit: 'inside', kernel: 'lanczos3' });
  const bytes = new Uint8Array(
    await (images[0].mimeType === 'image/jpeg' ? resized.jpeg({ quality: 90 }) : resized.png()).toBuffer(),
  );
  views[0] = { ...views[0], byteOffset: 0, byteLength: bytes.length };
  (json.buffers as { byteLength: number }[])[0].byteLength = bytes.length;
  return writeGlb(json, bytes);
}

/** needle's output with every texture's LODs at 1, 1/2, 1/4 and 1/8 of its edge (see the file's comment). */
async function writeNeedleLods(needleDir: string, outDir: string, entry: string): Promise<void> {
  cpSync(needleDir, outDir, { recursive: true });
  const gltfPath = join(outDir, entry);
  const json = JSON.parse(readFileSync(gltfPath, 'utf8')) as {
    textures: { extensions?: Record<string, { guid: string; lods: Record<string, unknown>[] }> }[];
  };
  for (const texture of json.textures) {
    const ext = texture.extensions?.NEEDLE_progressive;
    if (ext === undefined) continue;
    const lod0Name = ext.lods[0].path as string;
    const lod0 = new Uint8Array(readFileSync(join(outDir, lod0Name)));
    const { json: lodJson, bin } = readGlb(lod0);
    const view = (lodJson.bufferViews as { byteOffset?: number; byteLength: number }[])[0];
    const meta = await sharp(
      bin.subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength),
    ).metadata();
    const edge = Math.max(meta.width ?? 0, meta.height ?? 0);
    const lods: Record<string, unknown>[] = [{ ...ext.lods[0], width: meta.width, height: meta.height }];
    for (let level = 1; level <= 3; level++) {
      const name = lod0Name.replace(/^image_0_/, `image_${level}_`);
      const glb = await smallerLod(lod0, edge >> level);
      writeFileSync(join(outDir, name), glb);
      lods.push({ path: name, width: (meta.width ?? 0) >> level, height: (meta.height ?? 0) >> level });
    }
    ext.lods = lods;
  }
  writeFileSync(gltfPath, JSON.stringify(json));
}

/**
 * A digest of the baker's sources (`src/sources/bake/`): Tessera's output is cached under it, so a
 * change of the baker is measured, not a stale bake.
 */
function bakerDigest(): string {
  const hash = createHash('sha256');
  const dir = new URL('../../src/sources/bake/', import.meta.url).pathname;
  for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  return hash.digest('hex').slice(0, 12);
}

/** Runs `make` into `folder` unless `folder` was completed before (a marker beside it says so). */
async function once(folder: string, make: () => Promise<void>): Promise<void> {
  const done = `${folder}.done`;
  if (existsSync(done)) return;
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  await make();
  writeFileSync(done, '');
}

/**
 * The scene as each tool prepares it, made once and read from `.tmp/gltf-peer/<scene>/`
 * afterwards (the large scene's bake takes ten to thirty minutes on two shared cores); Tessera's
 * bake again whenever the baker's sources change.
 */
export async function preparedScene(scene: PeerScene): Promise<PreparedScene> {
  const dir = join(ROOT, `v${PREPARED_VERSION}-${scene}`);
  const entries = { original: `${scene}.gltf`, tessera: `${scene}.glb`, needle: `${scene}.gltf` };
  const original = join(dir, 'original');
  await once(original, async () => {
    const files =
      scene === 'showcase'
        ? await writeShowcaseScene('showcase', EDGE, { images: 'png-jpeg' })
        : await largeOriginals();
    writeFolder(original, files);
  });
  // GLTF_PEER_TESSERA_BAKE=<folder> measures a kept bake (`.tmp/gltf-peer/<scene>/<folder>`) instead.
  const tessera = join(dir, process.env.GLTF_PEER_TESSERA_BAKE ?? `tessera-${bakerDigest()}`);
  await once(tessera, async () => {
    const baked = await bakeGltfFile(join(original, entries.original), join(tessera, entries.tessera), {
      color: TESSERA_COLOR,
    });
    console.error(`[gltf-peer] ${scene}: tessera gltf ${baked.bytesBefore} -> ${baked.bytesAfter} bytes`);
  });
  const needle = join(dir, 'needle');
  await once(needle, async () => {
    cpSync(original, needle, { recursive: true });
    runNeedlePipeline(needle, entries.needle);
  });
  const needleLods = join(dir, 'needle-lods');
  await once(needleLods, () => writeNeedleLods(needle, needleLods, entries.needle));
  return {
    original: readFolder(original),
    tessera: readFolder(tessera),
    needle: readFolder(needle),
    'needle-lods': readFolder(needleLods),
    entries,
  };
}
