/**
 * `TESSERA_texture_prefix`: the baker puts the start of every `.ktx2` file (metadata and levels of at
 * most 64 texels) into the glTF's buffer, and `Ktx2Source.open(url, { prefix })` reads nothing
 * for those bytes, only finer levels by Range, falling back to the file's own metadata when the
 * file does not match.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TileSourceError } from '../../../src/core/errors';
import { PINNED_MAX_EDGE } from '../../../src/core/streaming/streamed-texture-table';
import { bakeGltfFile } from '../../../src/sources/bake/bake-gltf-file';
import { tesseraTextures } from '../../../src/sources/bake/gltf-textures';
import { TesseraTexturePrefix } from '../../../src/sources/bake/texture-prefix-extension';
import { HttpClient } from '../../../src/sources/io/http/http-client';
import { PREFIX_CHECK_BYTES } from '../../../src/sources/io/range-reader';
import { ktx2CoarsePrefixBytes, TESSERA_TEXTURE_PREFIX } from '../../../src/sources/mips/ktx2-coarse-prefix';
import { parseKtx2Layout } from '../../../src/sources/mips/ktx2-layout';
import { Ktx2Source } from '../../../src/sources/mips/ktx2-source';
import { fixtureTexture, writeGltfScene } from '../../support/gltf-fixtures';
import { startServer } from '../sources/misbehaving-server';

interface GltfJsonWithPrefixes {
  images: {
    uri?: string;
    extensions?: Record<string, { bufferView: number; byteLength: number; fileByteLength: number }>;
  }[];
  bufferViews: { buffer: number; byteOffset?: number; byteLength: number }[];
  buffers: { uri?: string; byteLength: number }[];
  extensionsUsed?: string[];
  extensionsRequired?: string[];
}

const dir = mkdtempSync(join(tmpdir(), 'tessera-gltf-prefix-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fast = { retries: 1, baseDelayMs: 1, maxDelayMs: 2, timeoutMs: 2000, random: () => 0.5 };
const live = () => new AbortController().signal;

/** A GLB's JSON and BIN chunk. */
function readGlb(bytes: Uint8Array): { json: GltfJsonWithPrefixes; bin: Uint8Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  const at = 20 + jsonLength;
  return { json, bin: bytes.subarray(at + 8, at + 8 + view.getUint32(at, true)) };
}

/** Every prefix of `json` checked against its `.ktx2` in `folder`; returns their bytes by uri. */
function checkPrefixes(json: GltfJsonWithPrefixes, bin: Uint8Array, folder: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const image of json.images) {
    const prefix = image.extensions?.[TESSERA_TEXTURE_PREFIX];
    expect(prefix, image.uri).toBeDefined();
    if (prefix === undefined || image.uri === undefined) continue;
    const file = new Uint8Array(readFileSync(join(folder, image.uri)));
    const view = json.bufferViews[prefix.bufferView];
    expect(view.buffer).toBe(0);
    // Aligned to 4 bytes, padded to 4 bytes, the file's first bytes, its length stated.
    expect((view.byteOffset ?? 0) % 4).toBe(0);
    expect(view.byteLength % 4).toBe(0);
    expect(view.byteLength - prefix.byteLength).toBeGreaterThanOrEqual(0);
    expect(view.byteLength - prefix.byteLength).toBeLessThan(4);
    const offset = view.byteOffset ?? 0;
    expect(bin.subarray(offset, offset + prefix.byteLength)).toEqual(file.subarray(0, prefix.byteLength));
    expect(
      [...bin.subarray(offset + prefix.byteLength, offset + view.byteLength)].every((b) => b === 0),
    ).toBe(true);
    expect(prefix.fileByteLength).toBe(file.length);
    // The prefix is the metadata and exactly the levels of at most 64 texels (stored right after it).
    const layout = parseKtx2Layout(file, file.length);
    expect(prefix.byteLength).toBe(ktx2CoarsePrefixBytes(layout));
    for (let level = 0; level < layout.levelCount; level++) {
      const edge = Math.max(layout.width >> level, layout.height >> level, 1);
      const end = layout.levelOffsets[level] + layout.levelLengths[level];
      if (edge <= PINNED_MAX_EDGE) expect(end, `level ${level}`).toBeLessThanOrEqual(prefix.byteLength);
      else expect(layout.levelOffsets[level], `level ${level}`).toBeGreaterThanOrEqual(prefix.byteLength);
    }
    found.set(image.uri, prefix.byteLength);
  }
  return found;
}

let input: string;

beforeAll(async () => {
  // Two 256² PNGs (levels past 64 texels stay in the file) and a 64² one (the whole file is its prefix).
  const files = await writeGltfScene('in', [
    await fixtureTexture('png', 'a', 256, [200, 90, 60], 1),
    await fixtureTexture('png', 'b', 256, [60, 180, 90], 2),
    await fixtureTexture('png', 'small', 64, [90, 90, 200], 3),
  ]);
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  input = join(dir, 'in.gltf');
});

describe('TESSERA_texture_prefix: the baker', { timeout: 120_000 }, () => {
  it('puts each .ktx2 file’s metadata and coarse levels in the GLB’s BIN chunk, aligned, optional', async () => {
    const out = join(dir, 'glb');
    mkdirSync(out);
    const result = await bakeGltfFile(input, join(out, 'scene.glb'));
    const { json, bin } = readGlb(new Uint8Array(readFileSync(join(out, 'scene.glb'))));
    expect(json.extensionsUsed).toContain(TESSERA_TEXTURE_PREFIX);
    expect(json.extensionsRequired ?? []).not.toContain(TESSERA_TEXTURE_PREFIX);
    expect(json.buffers).toHaveLength(1);
    expect(json.buffers[0].uri).toBeUndefined();
    const prefixes = checkPrefixes(json, bin, out);
    expect(prefixes.size).toBe(3);
    // The report says the same bytes; the 64² texture's whole file is its prefix.
    expect(result.textures.map((t) => t.prefixBytes)).toEqual(
      json.images.map((i) => prefixes.get(i.uri as string)),
    );
    const small = json.images.find((i) => i.uri?.includes('small'))?.extensions?.[TESSERA_TEXTURE_PREFIX];
    expect(small?.byteLength).toBe(small?.fileByteLength);
    // A few KiB a texture: what the streamer's pinned chain needs, not the file.
    for (const t of result.textures) {
      if (t.width > PINNED_MAX_EDGE) expect(t.prefixBytes).toBeLessThan(t.bytesAfter / 8);
    }
    // glTF-Transform reads it back and writes the prefixes again from the images.
    const io = new NodeIO().registerExtensions([...ALL_EXTENSIONS, TesseraTexturePrefix]);
    const document = await io.read(join(out, 'scene.glb'));
    for (const texture of document.getRoot().listTextures()) texture.setURI(`again-${texture.getURI()}`);
    const again = await io.writeJSON(document);
    expect(again.json.extensionsUsed).toContain(TESSERA_TEXTURE_PREFIX);
    for (const [uri, bytes] of Object.entries(again.resources)) writeFileSync(join(out, uri), bytes);
    checkPrefixes(again.json as never, again.resources[again.json.buffers?.[0].uri as string], out);
  });

  it('puts them in the .bin of a .gltf, and nowhere with prefix: false or --no-prefix', async () => {
    const out = join(dir, 'gltf');
    mkdirSync(out);
    await bakeGltfFile(input, join(out, 'scene.gltf'));
    const json = JSON.parse(readFileSync(join(out, 'scene.gltf'), 'utf8')) as GltfJsonWithPrefixes;
    expect(json.buffers[0].uri).toBe('scene.bin');
    expect(checkPrefixes(json, new Uint8Array(readFileSync(join(out, 'scene.bin'))), out).size).toBe(3);

    const plain = await bakeGltfFile(input, join(out, 'plain.gltf'), { prefix: false });
    const plainJson = JSON.parse(readFileSync(join(out, 'plain.gltf'), 'utf8')) as GltfJsonWithPrefixes;
    expect(plainJson.extensionsUsed).not.toContain(TESSERA_TEXTURE_PREFIX);
    expect(plainJson.images.every((i) => i.extensions === undefined)).toBe(true);
    expect(plain.textures.every((t) => t.prefixBytes === 0)).toBe(true);

    const cli = spawnSync(
      process.execPath,
      ['packages/baker/bin/tessera.mjs', 'gltf', input, '-o', join(out, 'cli.glb'), '--no-prefix'],
      { encoding: 'utf8' },
    );
    expect(cli.status, cli.stderr).toBe(0);
    expect(readGlb(new Uint8Array(readFileSync(join(out, 'cli.glb')))).json.extensionsUsed).not.toContain(
      TESSERA_TEXTURE_PREFIX,
    );
  });

  it('writes nothing, and declares nothing, when the images are embedded (a .glb from glTF-Transform)', async () => {
    const io = new NodeIO().registerExtensions([...ALL_EXTENSIONS, TesseraTexturePrefix]);
    const document = await io.read(input);
    await document.transform(tesseraTextures());
    const glb = await io.writeBinary(document);
    const { json } = readGlb(glb);
    expect(json.extensionsUsed).not.toContain(TESSERA_TEXTURE_PREFIX);
    expect(json.images.every((i) => i.extensions === undefined)).toBe(true);
  });

  it('tessera gltf reports the bytes in the glTF per texture and in all', () => {
    const out = join(dir, 'report');
    mkdirSync(out);
    const cli = spawnSync(
      process.execPath,
      ['packages/baker/bin/tessera.mjs', 'gltf', input, '-o', join(out, 'scene.glb')],
      { encoding: 'utf8' },
    );
    expect(cli.status, cli.stderr).toBe(0);
    const { json } = readGlb(new Uint8Array(readFileSync(join(out, 'scene.glb'))));
    const header = cli.stdout.split('\n')[0];
    expect(header).toMatch(/in glTF$/);
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    const lines = cli.stdout.split('\n');
    let total = 0;
    for (const image of json.images) {
      const prefix = image.extensions?.[TESSERA_TEXTURE_PREFIX]?.byteLength as number;
      total += prefix;
      const name = (image.uri as string).replace(/^scene-/, '').replace(/\.ktx2$/, '');
      const line = lines.find((l) => l.startsWith(name)) as string;
      expect(line.endsWith(kib(prefix)), line).toBe(true);
    }
    expect(lines.find((l) => l.startsWith('3 textures'))?.endsWith(kib(total))).toBe(true);
  });
});

describe('TESSERA_texture_prefix: Ktx2Source.open with a held prefix', { timeout: 120_000 }, () => {
  let files: Record<string, Uint8Array>;
  let prefixes: Record<string, number>;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  beforeAll(async () => {
    const out = join(dir, 'http');
    mkdirSync(out);
    const result = await bakeGltfFile(input, join(out, 'scene.glb'));
    files = {};
    prefixes = {};
    for (const [i, name] of ['a', 'b', 'small'].entries()) {
      files[name] = new Uint8Array(readFileSync(join(out, `scene-${name}.ktx2`)));
      prefixes[name] = result.textures[i].prefixBytes;
    }
  });

  /** Every level of `source` equals the same level of `file` read whole. */
  async function expectLevelsOf(source: Ktx2Source, file: Uint8Array): Promise<void> {
    const whole = new Ktx2Source(file);
    for (let level = source.mipLevelCount - 1; level >= 0; level--) {
      expect(await source.loadLevel(level, live()), `level ${level}`).toEqual(
        await whole.loadLevel(level, live()),
      );
    }
  }

  it('opens and renders the coarse levels with no request, then reads only finer levels by Range', async () => {
    const file = files.a;
    server = await startServer(file);
    const held = { bytes: file.slice(0, prefixes.a), fileBytes: file.length };
    const mismatches: TileSourceError[] = [];
    const source = await Ktx2Source.open(server.url('/a.ktx2'), {
      http: new HttpClient(fast),
      prefix: held,
      onPrefixMismatch: (e) => mismatches.push(e),
    });
    expect(server.count('/a.ktx2')).toBe(0);
    expect([source.width, source.height, source.mipLevelCount, source.fileBytes, source.openBytes]).toEqual([
      256,
      256,
      9,
      file.length,
      0,
    ]);
    // The pinned chain (levels 2..8: 64² down to 1²) from the held bytes.
    const whole = new Ktx2Source(file);
    for (let level = 2; level < 9; level++) {
      expect(await source.loadLevel(level, live())).toEqual(await whole.loadLevel(level, live()));
    }
    expect(server.count('/a.ktx2')).toBe(0);
    // Levels 1 and 0 in one Range read that starts a little before the held bytes end (the check).
    const [level1, level0] = await Promise.all([source.loadLevel(1, live()), source.loadLevel(0, live())]);
    expect(level1).toEqual(await whole.loadLevel(1, live()));
    expect(level0).toEqual(await whole.loadLevel(0, live()));
    expect(server.ranges).toEqual([`bytes=${prefixes.a - PREFIX_CHECK_BYTES}-${file.length - 1}`]);
    expect(mismatches).toEqual([]);
  });

  it('a 64² texture is read from the glTF alone', async () => {
    const file = files.small;
    expect(prefixes.small).toBe(file.length);
    server = await startServer(file);
    const source = await Ktx2Source.open(server.url('/small.ktx2'), {
      http: new HttpClient(fast),
      prefix: { bytes: file.slice(), fileBytes: file.length },
    });
    await expectLevelsOf(source, file);
    expect(server.count('/small.ktx2')).toBe(0);
  });

  describe('a prefix that does not match its file: prefix-mismatch, then the file’s own metadata', () => {
    const open = async (served: Uint8Array, held: { bytes: Uint8Array; fileBytes: number }) => {
      server = await startServer(served);
      const mismatches: TileSourceError[] = [];
      const source = await Ktx2Source.open(server.url('/t.ktx2'), {
        http: new HttpClient(fast),
        prefix: held,
        onPrefixMismatch: (e) => mismatches.push(e),
      });
      return { source, mismatches };
    };
    const expectOneMismatch = (mismatches: TileSourceError[], why: RegExp) => {
      expect(mismatches).toHaveLength(1);
      expect(mismatches[0]).toBeInstanceOf(TileSourceError);
      expect(mismatches[0].code).toBe('prefix-mismatch');
      expect(mismatches[0].message).toMatch(why);
      expect(mismatches[0].message).toContain('/t.ktx2');
    };

    it('another file of another length (re-baked without its glTF): finer levels from the file, nothing lost', async () => {
      expect(files.b.length).not.toBe(files.a.length);
      const { source, mismatches } = await open(files.b, {
        bytes: files.a.slice(0, prefixes.a),
        fileBytes: files.a.length,
      });
      expect(mismatches).toEqual([]);
      expect(await source.loadLevel(0, live())).toEqual(await new Ktx2Source(files.b).loadLevel(0, live()));
      // (A shorter file ends before the first read does; a longer one says its length.)
      expectOneMismatch(
        mismatches,
        new RegExp(
          `the file is ${files.b.length} bytes, the prefix says ${files.a.length}|the file ends before byte ${files.a.length}`,
        ),
      );
      expect(source.fileBytes).toBe(files.b.length);
      expect(source.layout).toEqual(parseKtx2Layout(files.b, files.b.length));
      for (let level = 1; level < source.mipLevelCount; level++) {
        expect(await source.loadLevel(level, live())).toEqual(
          await new Ktx2Source(files.b).loadLevel(level, live()),
        );
      }
      expect(mismatches).toHaveLength(1);
    });

    it('the same length, other bytes just before the held ones end', async () => {
      const changed = files.a.slice();
      changed[prefixes.a - 3] ^= 0xff;
      const { source, mismatches } = await open(changed, {
        bytes: files.a.slice(0, prefixes.a),
        fileBytes: files.a.length,
      });
      expect(await source.loadLevel(0, live())).toEqual(await new Ktx2Source(changed).loadLevel(0, live()));
      expectOneMismatch(mismatches, new RegExp(`byte ${prefixes.a - 3} of the file differs`));
    });

    it('bytes that are not a KTX2 file’s whole metadata: told at opening, opened as without them', async () => {
      const { source, mismatches } = await open(files.a, {
        bytes: files.a.slice(0, 60),
        fileBytes: files.a.length,
      });
      expectOneMismatch(mismatches, /not this KTX2 file's start \(KTX2 header cut short/);
      expect(server?.count('/t.ktx2')).toBe(1);
      await expectLevelsOf(source, files.a);
    });

    it('ETC1S: a server ignoring Range gives the same file whole (same codebooks, nothing lost); another file’s codebooks fail', async () => {
      const out = join(dir, 'etc1s');
      mkdirSync(out);
      const result = await bakeGltfFile(input, join(out, 'scene.glb'), { color: 'etc1s' });
      const a = new Uint8Array(readFileSync(join(out, 'scene-a.ktx2')));
      const b = new Uint8Array(readFileSync(join(out, 'scene-b.ktx2')));
      expect(parseKtx2Layout(a, a.length).supercompression).toBe('basislz');
      const held = { bytes: a.slice(0, result.textures[0].prefixBytes), fileBytes: a.length };
      const warnings: string[] = [];
      server = await startServer(a, {
        '/t.ktx2': (_req, res) => {
          res.writeHead(200, { 'content-length': a.length });
          res.end(a);
          return true;
        },
      });
      const mismatches: TileSourceError[] = [];
      const whole = await Ktx2Source.open(server.url('/t.ktx2'), {
        http: new HttpClient(fast),
        prefix: held,
        onPrefixMismatch: (e) => mismatches.push(e),
        warn: (message) => warnings.push(message),
      });
      await expectLevelsOf(whole, a);
      expect(mismatches).toEqual([]);
      expect(warnings.join()).toMatch(/ignores HTTP Range/);
      await server.close();

      server = await startServer(b);
      const other = await Ktx2Source.open(server.url('/t.ktx2'), {
        http: new HttpClient(fast),
        prefix: held,
        onPrefixMismatch: (e) => mismatches.push(e),
      });
      const error = await other.loadLevel(0, live()).catch((e: unknown) => e);
      expect((error as TileSourceError).code).toBe('prefix-mismatch');
      expect((error as TileSourceError).message).toMatch(/other ETC1S codebooks than the prefix/);
      expect(mismatches.map((m) => m.code)).toEqual(['prefix-mismatch']);
    });

    it('a file shorter than the prefix says', async () => {
      const { source, mismatches } = await open(files.small, {
        bytes: files.a.slice(0, prefixes.a),
        fileBytes: files.a.length,
      });
      const error = await source.loadLevel(0, live()).catch((e: unknown) => e);
      // Another shape: nothing to fall back to, every finer level fails with the mismatch.
      expect(error).toBeInstanceOf(TileSourceError);
      expect((error as TileSourceError).code).toBe('prefix-mismatch');
      expect((error as TileSourceError).message).toMatch(/the file has a 64x64 .*, the prefix said 256x256/);
      expectOneMismatch(mismatches, /the file (ends before|is \d+ bytes)/);
      // The held coarse levels still load.
      expect(await source.loadLevel(8, live())).toEqual(await new Ktx2Source(files.a).loadLevel(8, live()));
    });
  });
});
