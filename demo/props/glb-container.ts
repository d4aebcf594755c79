/** The binary glTF container (glTF 2.0, "GLB File Format"), for the demo's and the examples' bake scripts. */

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
