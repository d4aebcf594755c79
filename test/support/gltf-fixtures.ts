import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Document, NodeIO } from '@gltf-transform/core';
import { KHRTextureBasisu } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { encodeEtc1sKtx2 } from './etc1s-encoder';
import { encodeUastcKtx2 } from './uastc-encoder';

/** One texture of a test scene: its file and how it is stored. */
export interface GltfFixtureTexture {
  /** File name (the image's uri, beside the .gltf). */
  uri: string;
  bytes: Uint8Array;
  mimeType: 'image/ktx2' | 'image/png' | 'image/jpeg';
}

/**
 * A photograph-like image around one colour: detail at every scale (sinusoids from the image's
 * size down to 2 texels, amplitude falling as the square root of the wavelength, as natural
 * images roughly do) plus a little grain, so each level carries detail (a file's bytes lie mostly
 * in its fine levels, as with photographs, rather than in what compresses to nothing).
 */
export function photoLikeImage(
  edge: number,
  colour: readonly [number, number, number],
  seed: number,
): Uint8Array {
  // Clamped: values past 0..255 saturate as a camera's would.
  const rgba = new Uint8ClampedArray(edge * edge * 4);
  const octaves: { f: number; a: number; px: number; py: number }[] = [];
  for (let wavelength = edge, o = 0; wavelength >= 2; wavelength /= 2, o++) {
    octaves.push({
      f: (2 * Math.PI) / wavelength,
      a: 40 * Math.sqrt(wavelength / edge) + 6,
      px: seed * 1.7 + o * 2.3,
      py: seed * 0.9 + o * 1.1,
    });
  }
  let s = seed >>> 0;
  for (let y = 0; y < edge; y++)
    for (let x = 0; x < edge; x++) {
      let v = 0;
      for (const o of octaves) v += o.a * Math.sin(x * o.f + o.px) * Math.sin(y * o.f * 0.93 + o.py);
      s = (s * 1103515245 + 12345) >>> 0;
      v += ((s >>> 24) % 9) - 4;
      const i = (y * edge + x) * 4;
      rgba[i] = colour[0] + v;
      rgba[i + 1] = colour[1] + v * 0.8;
      rgba[i + 2] = colour[2] - v * 0.6;
      rgba[i + 3] = 255;
    }
  return new Uint8Array(rgba.buffer);
}

/** A texture of a test scene: UASTC + zstd, ETC1S (BasisLZ) or PNG, of a photograph-like image. */
export async function fixtureTexture(
  kind: 'uastc' | 'etc1s' | 'png',
  name: string,
  edge: number,
  colour: readonly [number, number, number],
  seed: number,
): Promise<GltfFixtureTexture> {
  const rgba = photoLikeImage(edge, colour, seed);
  if (kind === 'png') {
    const bytes = await sharp(Buffer.from(rgba), { raw: { width: edge, height: edge, channels: 4 } })
      .png()
      .toBuffer();
    return { uri: `${name}.png`, bytes: new Uint8Array(bytes), mimeType: 'image/png' };
  }
  const bytes =
    kind === 'uastc'
      ? await encodeUastcKtx2(rgba, edge, edge, { srgb: true, quality: 0, mipmaps: true, zstd: true })
      : await encodeEtc1sKtx2(rgba, edge, edge, { srgb: true, quality: 128 });
  return { uri: `${name}.ktx2`, bytes, mimeType: 'image/ktx2' };
}

/** Bump when the images or the encoder settings change: cached fixtures then re-encode. */
const FIXTURE_VERSION = 1;

/**
 * {@link fixtureTexture}, encoded once and kept in the repository's `.tmp/gltf-fixtures/`
 * (ignored by git): the browser tests' two projects and the benchmark share the encodings, which
 * take seconds (512²) to minutes (2048² UASTC). The content is deterministic, so the cache key is
 * the arguments.
 */
export async function cachedFixtureTexture(
  kind: 'uastc' | 'etc1s' | 'png',
  name: string,
  edge: number,
  colour: readonly [number, number, number],
  seed: number,
): Promise<GltfFixtureTexture> {
  const dir = new URL('../../.tmp/gltf-fixtures/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const path = new URL(`v${FIXTURE_VERSION}-${kind}-${edge}-${seed}-${colour.join('.')}`, dir);
  const uri = `${name}.${kind === 'png' ? 'png' : 'ktx2'}`;
  const mimeType = kind === 'png' ? 'image/png' : 'image/ktx2';
  if (existsSync(path)) return { uri, bytes: new Uint8Array(readFileSync(path)), mimeType };
  const texture = await fixtureTexture(kind, name, edge, colour, seed);
  // Written aside, then renamed: a concurrent reader never sees half a file.
  const partial = new URL(`${path.pathname}.${process.pid}.part`, 'file:');
  writeFileSync(partial, texture.bytes);
  renameSync(partial, path);
  return texture;
}

/**
 * A glTF 2.0 scene written with glTF Transform: one unit quad (in x/y, facing +z, uv (0,0) at the
 * top-left as glTF has it) per texture at 1.1-unit spacing, each with its own
 * material whose base colour texture it is, in rows of `columns` (top row first), (KTX2 through `KHR_texture_basisu`, required). Returns
 * the files to serve: `<name>.gltf`, its `.bin` and the textures.
 */
export async function writeGltfScene(
  name: string,
  textures: readonly GltfFixtureTexture[],
  columns = textures.length,
): Promise<Record<string, Uint8Array>> {
  const doc = new Document();
  doc.createExtension(KHRTextureBasisu).setRequired(true);
  const buffer = doc.createBuffer().setURI(`${name}.bin`);
  const position = doc
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0]))
    .setBuffer(buffer);
  const uv = doc
    .createAccessor()
    .setType('VEC2')
    .setArray(new Float32Array([0, 1, 1, 1, 1, 0, 0, 0]))
    .setBuffer(buffer);
  const indices = doc
    .createAccessor()
    .setType('SCALAR')
    .setArray(new Uint16Array([0, 1, 2, 0, 2, 3]))
    .setBuffer(buffer);
  const scene = doc.createScene(name);
  textures.forEach((t, i) => {
    const texture = doc.createTexture(t.uri).setImage(t.bytes).setMimeType(t.mimeType).setURI(t.uri);
    const material = doc
      .createMaterial(`m${i}`)
      .setBaseColorTexture(texture)
      .setMetallicFactor(0)
      .setRoughnessFactor(1);
    const primitive = doc
      .createPrimitive()
      .setAttribute('POSITION', position)
      .setAttribute('TEXCOORD_0', uv)
      .setIndices(indices)
      .setMaterial(material);
    const mesh = doc.createMesh(`quad${i}`).addPrimitive(primitive);
    const rows = Math.ceil(textures.length / columns);
    const x = ((i % columns) - (columns - 1) / 2) * 1.1;
    const y = ((rows - 1) / 2 - Math.floor(i / columns)) * 1.1;
    scene.addChild(doc.createNode(`quad${i}`).setMesh(mesh).setTranslation([x, y, 0]));
  });
  const io = new NodeIO().registerExtensions([KHRTextureBasisu]);
  const { json, resources } = await io.writeJSON(doc);
  const files: Record<string, Uint8Array> = {
    [`${name}.gltf`]: new TextEncoder().encode(JSON.stringify(json)),
  };
  for (const [uri, bytes] of Object.entries(resources)) files[uri] = bytes;
  return files;
}
