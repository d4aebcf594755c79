import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document, NodeIO, type Texture, TextureInfo } from '@gltf-transform/core';
import {
  ALL_EXTENSIONS,
  KHRMaterialsEmissiveStrength,
  KHRTextureBasisu,
  KHRTextureTransform,
} from '@gltf-transform/extensions';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bakeGltfFile } from '../../../src/sources/bake/bake-gltf-file';
import { GltfBakeError, tesseraTextures } from '../../../src/sources/bake/gltf-textures';
import { buildRgba8MipChain } from '../../../src/sources/mips/box-downsample';
import { parseKtx2Layout } from '../../../src/sources/mips/ktx2-layout';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import { type BasisTranscoderModule, basisFormatOf } from '../../../src/three/transcode/uastc-transcode';
import { normalAngleError, rgbPsnr } from '../../support/basis-transcoder';
import { wholeFileTranscode } from '../../support/in-thread-transcoding';
import { loadNodeBasisTranscoder } from '../../support/node-basis-transcoder';
import { encodeUastcKtx2 } from '../../support/uastc-encoder';

const dir = mkdtempSync(join(tmpdir(), 'tessera-gltf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const io = new NodeIO().registerExtensions(ALL_EXTENSIONS);
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['packages/baker/bin/tessera.mjs', ...args], { encoding: 'utf8' });

const SIZE = 128;

/** Photograph-like colour: smooth gradients, a soft disc, a few hard edges (content nobody tuned for). */
function colourTexels(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const u = x / size;
      const v = y / size;
      const disc = Math.max(0, 1 - Math.hypot(u - 0.4, v - 0.6) * 3);
      out[i] = Math.round(40 + 150 * u + 60 * disc);
      out[i + 1] = Math.round(30 + 120 * v * (0.5 + 0.5 * Math.sin(seed + u * 6)));
      out[i + 2] = x > size * 0.7 && y < size * 0.3 ? 220 : Math.round(90 + 80 * Math.cos(v * 5 + seed));
      out[i + 3] = 255;
    }
  }
  return out;
}

/** A tangent-space normal map of a smooth bumpy height field (xyz in rgb). */
function normalTexels(size: number): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const dx = 0.6 * Math.cos((x / size) * Math.PI * 9);
      const dy = 0.6 * Math.sin((y / size) * Math.PI * 9);
      const l = Math.hypot(dx, dy, 1);
      const i = (y * size + x) * 4;
      out[i] = Math.round((-dx / l + 1) * 127.5);
      out[i + 1] = Math.round((-dy / l + 1) * 127.5);
      out[i + 2] = Math.round((1 / l + 1) * 127.5);
      out[i + 3] = 255;
    }
  }
  return out;
}

/** Mean length of the normals an rgba8 normal map encodes (xyz in rgb). */
function meanNormalLength(rgba: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    sum += Math.hypot(rgba[i] / 127.5 - 1, rgba[i + 1] / 127.5 - 1, rgba[i + 2] / 127.5 - 1);
  }
  return sum / (rgba.length / 4);
}

const raw = (texels: Uint8Array, size: number) =>
  sharp(texels, { raw: { width: size, height: size, channels: 4 } });

/** What sharp decodes an image to (the reference the KTX2 levels are compared with). */
async function decodeRgba(bytes: Uint8Array): Promise<Uint8Array> {
  const { data } = await sharp(bytes)
    .toColourspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return new Uint8Array(data);
}

let basis: BasisTranscoderModule;
let sources: Record<string, Uint8Array>;
let keptKtx2: Uint8Array;

/**
 * A glTF with a colour PNG (KHR_texture_transform, texCoord 1, a clamped nearest sampler, alpha
 * mask), an emissive JPEG (KHR_materials_emissive_strength), a normal PNG (scale 0.5), an ORM PNG
 * used as metallic-roughness and occlusion, and a second material with a KTX2 base colour.
 */
async function makeDocument(): Promise<Document> {
  const document = new Document();
  const buffer = document.createBuffer();
  const transformExtension = document.createExtension(KHRTextureTransform).setRequired(true);
  const strength = document.createExtension(KHRMaterialsEmissiveStrength);
  document.createExtension(KHRTextureBasisu).setRequired(true);
  const texture = (name: string, uri: string, mimeType: string, bytes: Uint8Array): Texture =>
    document.createTexture(name).setURI(uri).setMimeType(mimeType).setImage(bytes);
  const base = texture('albedo', 'albedo.png', 'image/png', sources.albedo);
  const emissive = texture('glow', 'glow.jpg', 'image/jpeg', sources.glow);
  const normal = texture('bumps', 'bumps.png', 'image/png', sources.bumps);
  const orm = texture('orm', 'orm.png', 'image/png', sources.orm);
  const kept = texture('already', 'already.ktx2', 'image/ktx2', keptKtx2);
  const material = document
    .createMaterial('painted')
    .setBaseColorTexture(base)
    .setAlphaMode('MASK')
    .setAlphaCutoff(0.3)
    .setEmissiveTexture(emissive)
    .setEmissiveFactor([1, 0.5, 0.25])
    .setNormalTexture(normal)
    .setNormalScale(0.5)
    .setMetallicRoughnessTexture(orm)
    .setOcclusionTexture(orm)
    .setOcclusionStrength(0.7)
    .setExtension(
      'KHR_materials_emissive_strength',
      strength.createEmissiveStrength().setEmissiveStrength(3),
    );
  const info = material.getBaseColorTextureInfo() as TextureInfo;
  info
    .setTexCoord(1)
    .setWrapS(TextureInfo.WrapMode.CLAMP_TO_EDGE)
    .setWrapT(TextureInfo.WrapMode.MIRRORED_REPEAT)
    .setMagFilter(TextureInfo.MagFilter.NEAREST)
    .setMinFilter(TextureInfo.MinFilter.NEAREST_MIPMAP_LINEAR)
    .setExtension(
      'KHR_texture_transform',
      transformExtension
        .createTransform()
        .setOffset([0.25, 0.5])
        .setScale([2, 3])
        .setRotation(0.3)
        .setTexCoord(1),
    );
  const second = document.createMaterial('kept').setBaseColorTexture(kept);
  const positions = document
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer);
  const uvs = document
    .createAccessor()
    .setType('VEC2')
    .setArray(new Float32Array([0, 0, 1, 0, 0, 1]))
    .setBuffer(buffer);
  const mesh = document.createMesh('triangle');
  for (const m of [material, second]) {
    mesh.addPrimitive(
      document
        .createPrimitive()
        .setAttribute('POSITION', positions)
        .setAttribute('TEXCOORD_0', uvs)
        .setAttribute('TEXCOORD_1', uvs)
        .setMaterial(m),
    );
  }
  document.createScene().addChild(document.createNode('node').setMesh(mesh));
  return document;
}

/** The glTF JSON of a .gltf or .glb file. */
function gltfJson(path: string): Record<string, unknown> & {
  textures: { source?: number; extensions?: Record<string, { source: number }>; name?: string }[];
  images: { uri?: string; mimeType?: string; name?: string }[];
  materials: Record<string, unknown>[];
  samplers?: unknown[];
  extensionsUsed?: string[];
  extensionsRequired?: string[];
} {
  const bytes = readFileSync(path);
  if (path.endsWith('.gltf')) return JSON.parse(bytes.toString('utf8'));
  const length = bytes.readUInt32LE(12);
  return JSON.parse(bytes.subarray(20, 20 + length).toString('utf8'));
}

/** A material's texture infos with their `index` left out (indices may be renumbered). */
function materialWithoutIndices(material: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(material, (key, value) => (key === 'index' ? undefined : value)));
}

beforeAll(async () => {
  basis = await loadNodeBasisTranscoder();
  sources = {
    albedo: new Uint8Array(await raw(colourTexels(SIZE, 1), SIZE).png().toBuffer()),
    glow: new Uint8Array(await raw(colourTexels(SIZE, 4), SIZE).jpeg({ quality: 92 }).toBuffer()),
    bumps: new Uint8Array(await raw(normalTexels(SIZE), SIZE).png().toBuffer()),
    orm: new Uint8Array(
      await raw(colourTexels(SIZE / 2, 7), SIZE / 2)
        .png()
        .toBuffer(),
    ),
  };
  keptKtx2 = await encodeUastcKtx2(colourTexels(32, 9), 32, 32, { srgb: true, mipmaps: true });
  await io.write(join(dir, 'in.gltf'), await makeDocument());
  await io.write(join(dir, 'in.glb'), await makeDocument());
});

describe('tessera gltf', { timeout: 120_000 }, () => {
  it('turns every PNG/JPEG texture into a streamable KTX2 and keeps everything else', async () => {
    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    const result = run('gltf', join(dir, 'in.gltf'), '-o', join(outDir, 'scene.glb'));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    for (const name of ['albedo', 'glow', 'bumps', 'orm', 'already', '5 textures']) {
      expect(result.stdout).toContain(name);
    }
    expect(result.stdout).toMatch(/kept \(ktx2\)/);

    const before = gltfJson(join(dir, 'in.gltf'));
    const after = gltfJson(join(outDir, 'scene.glb'));
    expect(after.extensionsRequired).toEqual(
      expect.arrayContaining(['KHR_texture_basisu', 'KHR_texture_transform']),
    );
    expect(after.extensionsUsed).toEqual(expect.arrayContaining(['KHR_materials_emissive_strength']));
    // Materials (alpha mode, factors, texCoord, transforms, extensions) and samplers are unchanged.
    expect(after.materials.map(materialWithoutIndices)).toEqual(before.materials.map(materialWithoutIndices));
    expect(after.samplers).toEqual(before.samplers);
    expect(after.images.map((i) => i.name)).toEqual(before.images.map((i) => i.name));

    // Every texture is a KTX2 file of its own beside the GLB, named by KHR_texture_basisu.
    const expected: Record<string, { format: string; reference?: Uint8Array; levels: number }> = {
      albedo: { format: 'uastc-4x4-srgb', reference: await decodeRgba(sources.albedo), levels: 8 },
      glow: { format: 'uastc-4x4-srgb', reference: await decodeRgba(sources.glow), levels: 8 },
      bumps: { format: 'uastc-4x4', reference: await decodeRgba(sources.bumps), levels: 8 },
      orm: { format: 'uastc-4x4', reference: await decodeRgba(sources.orm), levels: 7 },
      already: { format: 'uastc-4x4-srgb', levels: 6 },
    };
    const rgba8 = basisFormatOf(basis, 'rgba8');
    for (const texture of after.textures) {
      expect(texture.source).toBeUndefined();
      const image = after.images[texture.extensions?.KHR_texture_basisu.source as number];
      const name = image.name as string;
      expect(image.mimeType).toBe('image/ktx2');
      expect(image.uri).toMatch(/^scene-.*\.ktx2$/);
      const file = new Uint8Array(readFileSync(join(outDir, image.uri as string)));
      const want = expected[name];
      const layout = parseKtx2Layout(file, file.length);
      expect(layout.format).toBe(want.format);
      expect(layout.levelCount).toBe(want.levels);
      if (want.reference === undefined) {
        expect(file).toEqual(keptKtx2);
        continue;
      }
      expect(layout.supercompression).toBe('zstd');
      // Coarsest level first in the file, every level adjacent: any chain from the coarsest is one Range read.
      for (let level = 0; level + 1 < layout.levelCount; level++) {
        expect(layout.levelOffsets[level + 1] + layout.levelLengths[level + 1]).toBe(
          layout.levelOffsets[level],
        );
      }
      // Tessera's reader inflates every level to its exact UASTC size.
      const source = new Ktx2Source(file);
      for (let level = 0; level < layout.levelCount; level++) {
        const blocks = await source.loadLevel(level, new AbortController().signal);
        expect(blocks.length).toBe(layout.levelBytes[level]);
      }
      // three's KTX2Loader path (the whole file through the transcoder) decodes each level close to
      // the source and to the source's mips (sRGB colour averaged in linear light).
      const srgb = want.format.endsWith('-srgb');
      const edge = name === 'orm' ? SIZE / 2 : SIZE;
      const chain = buildRgba8MipChain(want.reference, edge, edge, srgb);
      // Levels 0 and 1 (coarser levels of a 128² image hold more detail a texel than UASTC keeps at
      // 40 dB); the normal map's level 3, where a plain average would shorten the normals by 3%.
      for (const level of name === 'bumps' ? [0, 3] : [0, 1]) {
        const decoded = wholeFileTranscode(basis, file, level, rgba8, 'uastc');
        if (name === 'bumps') {
          // Normal maps: close in angle, and coarse levels renormalised (a plain average shortens them).
          // (16² texels of 9 bumps across at level 3: a few degrees of UASTC error; a wrong channel layout is tens.)
          expect(normalAngleError(decoded, chain[level]).mean, `bumps level ${level}`).toBeLessThan(
            level === 0 ? 1 : 5,
          );
          expect(Math.abs(meanNormalLength(decoded) - 1)).toBeLessThan(0.01);
          if (level === 0) expect(rgbPsnr(decoded, chain[0])).toBeGreaterThanOrEqual(40);
          continue;
        }
        expect(rgbPsnr(decoded, chain[level]), `${name} level ${level}`).toBeGreaterThanOrEqual(40);
        if (srgb && level === 1) {
          // Closer to the mips averaged in linear light than to those averaged as stored.
          const asStored = buildRgba8MipChain(want.reference, edge, edge, false)[1];
          expect(rgbPsnr(decoded, chain[1])).toBeGreaterThan(rgbPsnr(decoded, asStored));
        }
      }
    }
    // Nothing but the output and its textures in the folder (no temporary files left).
    expect(readdirSync(outDir).sort()).toEqual(
      ['scene.glb', ...after.images.map((i) => i.uri as string)].sort(),
    );
    // glTF-Transform reads the output back whole.
    const document = await io.read(join(outDir, 'scene.glb'));
    expect(
      document
        .getRoot()
        .listTextures()
        .every((t) => t.getMimeType() === 'image/ktx2'),
    ).toBe(true);
  });

  it('encodes colour as ETC1S with --color etc1s, data and normals as UASTC, from a .glb to a .gltf', async () => {
    const outDir = join(dir, 'etc1s');
    mkdirSync(outDir);
    const result = run('gltf', join(dir, 'in.glb'), '-o', join(outDir, 'scene.gltf'), '--color', 'etc1s');
    expect(result.status, result.stderr).toBe(0);
    const json = gltfJson(join(outDir, 'scene.gltf'));
    const formats: Record<string, string> = {};
    for (const texture of json.textures) {
      const image = json.images[texture.extensions?.KHR_texture_basisu.source as number];
      const name = image.name as string;
      const file = new Uint8Array(readFileSync(join(outDir, image.uri as string)));
      const layout = parseKtx2Layout(file, file.length);
      formats[name] = layout.format;
      expect(layout.levelCount).toBe(
        Math.log2(name === 'orm' ? SIZE / 2 : name === 'already' ? 32 : SIZE) + 1,
      );
      // Every level transcodes through three's KTX2Loader path.
      for (let level = 0; level < layout.levelCount; level++) {
        const payload = layout.format.startsWith('etc1s') ? 'etc1s' : 'uastc';
        expect(
          wholeFileTranscode(basis, file, level, basisFormatOf(basis, 'rgba8'), payload).length,
        ).toBeGreaterThan(0);
      }
    }
    expect(formats).toEqual({
      albedo: 'etc1s-srgb',
      glow: 'etc1s-srgb',
      bumps: 'uastc-4x4',
      orm: 'uastc-4x4',
      already: 'uastc-4x4-srgb',
    });
    expect(readdirSync(outDir)).toContain('scene.bin');
  });

  it('keeps KTX2 textures and warns about one Tessera cannot stream; --recompress-ktx2 re-encodes them', async () => {
    const folder = join(dir, 'recompress');
    mkdirSync(folder);
    const document = new Document();
    document.createBuffer();
    document.createExtension(KHRTextureBasisu).setRequired(true);
    // One level of 128² (no mips): valid KTX2, but Tessera streams only chains reaching 64 texels.
    const single = await encodeUastcKtx2(colourTexels(SIZE, 3), SIZE, SIZE, { srgb: true });
    const flat = document
      .createTexture('flat')
      .setURI('flat.ktx2')
      .setMimeType('image/ktx2')
      .setImage(single);
    const chain = document
      .createTexture('chain')
      .setURI('chain.ktx2')
      .setMimeType('image/ktx2')
      .setImage(keptKtx2);
    document.createMaterial('a').setBaseColorTexture(flat).setEmissiveTexture(chain);
    await io.write(join(folder, 'in.gltf'), document);

    const kept = run('gltf', join(folder, 'in.gltf'), '-o', join(folder, 'kept.glb'));
    expect(kept.status, kept.stderr).toBe(0);
    expect(kept.stderr).toMatch(
      /texture 'flat' was kept as it is, but Tessera cannot stream it \(KTX2 pyramid:/,
    );
    expect(kept.stderr).not.toMatch(/'chain'/);
    expect(new Uint8Array(readFileSync(join(folder, 'kept-flat.ktx2')))).toEqual(single);

    const redone = run(
      'gltf',
      join(folder, 'in.gltf'),
      '-o',
      join(folder, 'redone.glb'),
      '--recompress-ktx2',
    );
    expect(redone.status, redone.stderr).toBe(0);
    expect(redone.stderr).toBe('');
    const rgba8 = basisFormatOf(basis, 'rgba8');
    for (const [name, original, levels] of [
      ['flat', single, 8],
      ['chain', keptKtx2, 6],
    ] as const) {
      const file = new Uint8Array(readFileSync(join(folder, `redone-${name}.ktx2`)));
      const layout = parseKtx2Layout(file, file.length);
      expect([layout.format, layout.levelCount, layout.supercompression]).toEqual([
        'uastc-4x4-srgb',
        levels,
        'zstd',
      ]);
      // Level 0 re-encoded from what the old file decoded to.
      const before = wholeFileTranscode(basis, original, 0, rgba8, 'uastc');
      expect(rgbPsnr(wholeFileTranscode(basis, file, 0, rgba8, 'uastc'), before)).toBeGreaterThanOrEqual(40);
    }
    expect(
      run('gltf', join(folder, 'in.gltf'), '-o', join(folder, 'x.glb'), '--keep-ktx2', '--recompress-ktx2')
        .status,
    ).toBe(2);
  });

  it('works as a glTF-Transform transform in a pipeline', async () => {
    const document = await makeDocument();
    const reports: string[] = [];
    await document.transform(
      tesseraTextures({ onTexture: (r) => reports.push(`${r.name}:${r.content}:${r.action}`) }),
    );
    expect(reports).toEqual([
      'albedo:color:encoded',
      'glow:color:encoded',
      'bumps:normal:encoded',
      'orm:data:encoded',
      'already:color:kept',
    ]);
    expect(
      document
        .getRoot()
        .listTextures()
        .map((t) => t.getMimeType()),
    ).toEqual(Array(5).fill('image/ktx2'));
    const written = await io.writeJSON(document);
    expect(written.json.extensionsRequired).toContain('KHR_texture_basisu');
  });

  describe('bad input: a typed error naming the texture, exit 1, no output', () => {
    const expectNoOutput = (folder: string, inputs: string[]) =>
      expect(readdirSync(folder).filter((f) => !inputs.includes(f))).toEqual([]);

    it('a broken glb', async () => {
      const folder = join(dir, 'broken');
      mkdirSync(folder);
      const glb = readFileSync(join(dir, 'in.glb'));
      writeFileSync(join(folder, 'cut.glb'), glb.subarray(0, 40));
      const result = run('gltf', join(folder, 'cut.glb'), '-o', join(folder, 'out.glb'));
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/invalid-gltf/);
      expectNoOutput(folder, ['cut.glb']);
      const error = await bakeGltfFile(join(folder, 'cut.glb'), join(folder, 'out.glb')).catch((e) => e);
      expect(error).toBeInstanceOf(GltfBakeError);
      expect(error.code).toBe('invalid-gltf');
    });

    it('an output folder that does not exist', async () => {
      const result = run('gltf', join(dir, 'in.gltf'), '-o', join(dir, 'no-such-folder', 'out.glb'));
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/write-failed: .*ENOENT/);
      expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    });

    it('a missing image file', async () => {
      const folder = join(dir, 'missing');
      mkdirSync(folder);
      for (const file of ['in.gltf', 'in.bin', 'albedo.png', 'bumps.png', 'orm.png', 'already.ktx2']) {
        copyFileSync(join(dir, file), join(folder, file));
      }
      const result = run('gltf', join(folder, 'in.gltf'), '-o', join(folder, 'out.glb'));
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/missing-image: texture 'glow'/);
      const error = await bakeGltfFile(join(folder, 'in.gltf'), join(folder, 'out.glb')).catch((e) => e);
      expect(error).toMatchObject({ code: 'missing-image', texture: 'glow' });
      expectNoOutput(folder, ['in.gltf', 'in.bin', 'albedo.png', 'bumps.png', 'orm.png', 'already.ktx2']);
    });

    it('an unsupported image type and an image that does not decode', async () => {
      const folder = join(dir, 'unsupported');
      mkdirSync(folder);
      const document = await makeDocument();
      const [albedo, glow] = document.getRoot().listTextures();
      albedo.setMimeType('image/gif').setURI('albedo.gif');
      await io.write(join(folder, 'gif.gltf'), document);
      glow.setImage(new Uint8Array(100).fill(7));
      albedo.setMimeType('image/png').setURI('albedo.png');
      await io.write(join(folder, 'garbage.gltf'), document);
      const inputs = readdirSync(folder);
      const gif = run('gltf', join(folder, 'gif.gltf'), '-o', join(folder, 'out.glb'));
      expect(gif.status).toBe(1);
      expect(gif.stderr).toMatch(/unsupported-image: texture 'albedo' is image\/gif/);
      const garbage = await bakeGltfFile(join(folder, 'garbage.gltf'), join(folder, 'out.glb')).catch(
        (e) => e,
      );
      expect(garbage).toMatchObject({ code: 'image-decode-failed', texture: 'glow' });
      expectNoOutput(folder, inputs);
    });
  });
});
