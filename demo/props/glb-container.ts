import { type Accessor, type Document, NodeIO, type Primitive } from '@gltf-transform/core';
import { KHRTextureBasisu } from '@gltf-transform/extensions';
import type { BufferGeometry } from 'three';

/** glTF writing shared by the demo's and the examples' bake scripts. */

/** A GLB of a JSON chunk and one binary chunk, each padded to 4 bytes (JSON with spaces). */
export function packGlb(document: object, bin: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(document));
  const jsonLength = Math.ceil(text.length / 4) * 4;
  const binLength = Math.ceil(bin.length / 4) * 4;
  const bytes = new Uint8Array(12 + 8 + jsonLength + 8 + binLength);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x46546c67, true); // 'glTF'
  view.setUint32(4, 2, true);
  view.setUint32(8, bytes.length, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, 0x4e4f534a, true); // 'JSON'
  bytes.fill(0x20, 20, 20 + jsonLength);
  bytes.set(text, 20);
  view.setUint32(20 + jsonLength, binLength, true);
  view.setUint32(24 + jsonLength, 0x004e4942, true); // 'BIN\0'
  bytes.set(bin, 28 + jsonLength);
  return bytes;
}

/** glTF accessors of a three geometry: positions, normals, uvs (v flipped: glTF's origin is top-left), indices. */
export function geometryAccessors(
  doc: Document,
  buffer: ReturnType<Document['createBuffer']>,
  geometry: BufferGeometry,
): Record<'position' | 'normal' | 'uv' | 'index', Accessor> {
  const attribute = (name: string, type: 'VEC2' | 'VEC3', map?: (a: Float32Array) => Float32Array) => {
    const array = Float32Array.from(geometry.getAttribute(name).array as Float32Array);
    return doc
      .createAccessor()
      .setType(type)
      .setArray(map ? map(array) : array)
      .setBuffer(buffer);
  };
  const count = geometry.getAttribute('position').count;
  const index = geometry.index
    ? Uint16Array.from(geometry.index.array)
    : Uint16Array.from({ length: count }, (_, i) => i);
  return {
    position: attribute('position', 'VEC3'),
    normal: attribute('normal', 'VEC3'),
    uv: attribute('uv', 'VEC2', (uv) => uv.map((value, i) => (i % 2 === 1 ? 1 - value : value))),
    index: doc.createAccessor().setType('SCALAR').setArray(index).setBuffer(buffer),
  };
}

/**
 * A primitive of `shape` with a rough, non-metallic material `name` whose base colour is a KTX2
 * texture `name` (its file is named at packing, by {@link packGlbWithImageUris}).
 */
export function ktx2TexturedPrimitive(
  doc: Document,
  name: string,
  shape: Record<'position' | 'normal' | 'uv' | 'index', Accessor>,
): Primitive {
  const texture = doc.createTexture(name).setMimeType('image/ktx2');
  const material = doc
    .createMaterial(name)
    .setBaseColorTexture(texture)
    .setMetallicFactor(0)
    .setRoughnessFactor(0.9);
  return doc
    .createPrimitive()
    .setAttribute('POSITION', shape.position)
    .setAttribute('NORMAL', shape.normal)
    .setAttribute('TEXCOORD_0', shape.uv)
    .setIndices(shape.index)
    .setMaterial(material);
}

/**
 * `doc` (one geometry buffer) as a GLB whose images point at `uriOf(image name)`. glTF Transform
 * writes no URI for an image it holds no bytes of (and its GLB writer embeds every image), so the
 * document is written as JSON + buffer and packed here. Each KTX2 texture is declared with
 * `TESSERA_texture_ktx2` ({@link declareKtx2Payloads}).
 */
export async function packGlbWithImageUris(doc: Document, uriOf: (imageName: string) => string) {
  const io = new NodeIO().registerExtensions([KHRTextureBasisu]);
  const { json, resources } = await io.writeJSON(doc);
  const bins = Object.values(resources);
  if (bins.length !== 1 || json.buffers?.length !== 1) throw new Error('expected one geometry buffer');
  delete json.buffers[0].uri; // a GLB's first buffer is its binary chunk
  for (const image of json.images ?? []) image.uri = uriOf(image.name ?? '');
  declareKtx2Payloads(json);
  return packGlb(json, bins[0]);
}

/**
 * The glTF extension (Tessera's `TESSERA_TEXTURE_KTX2`, `@tessera-vt/tessera/three`) naming a KTX2
 * image of any payload. Spelled out here: this Node script does not load the three.js binding.
 */
const TESSERA_TEXTURE_KTX2 = 'TESSERA_texture_ktx2';

/**
 * The prop atlases are rgba8 KTX2 files, not the Basis Universal payloads `KHR_texture_basisu`
 * promises: glTF Transform writes every KTX2 texture under that extension, so each is moved to
 * `TESSERA_texture_ktx2`, which declares a KTX2 image of any payload.
 */
function declareKtx2Payloads(json: {
  textures?: { extensions?: Record<string, unknown> }[];
  extensionsUsed?: string[];
  extensionsRequired?: string[];
}): void {
  for (const texture of json.textures ?? []) {
    const basisu = texture.extensions?.KHR_texture_basisu;
    if (basisu === undefined || texture.extensions === undefined) continue;
    delete texture.extensions.KHR_texture_basisu;
    texture.extensions[TESSERA_TEXTURE_KTX2] = basisu;
  }
  const rename = (list: string[] | undefined) =>
    list?.map((name) => (name === 'KHR_texture_basisu' ? TESSERA_TEXTURE_KTX2 : name));
  json.extensionsUsed = rename(json.extensionsUsed);
  if (json.extensionsRequired) json.extensionsRequired = rename(json.extensionsRequired);
}
