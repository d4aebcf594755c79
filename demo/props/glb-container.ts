import type { Accessor, Document } from '@gltf-transform/core';
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
