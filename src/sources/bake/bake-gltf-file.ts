/**
 * `tessera gltf`'s file side: reads a .gltf or .glb, runs {@link tesseraTextures}, and writes the
 * result with every texture as its own `.ktx2` file beside the output (`<stem>-<texture>.ktx2`),
 * named by URI from the glTF. Tessera streams a KTX2 by HTTP Range only when it has its own URL: a
 * texture inside a GLB's binary chunk arrives with the whole GLB before its first level exists.
 * Geometry stays in the GLB's binary chunk (`.glb`) or in `<stem>.bin` (`.gltf`), and so does the
 * start of every `.ktx2` file (metadata and levels of at most 64 texels: `TESSERA_texture_prefix`,
 * unless the option `prefix` is false), so the coarse levels of all textures arrive with the glTF.
 *
 * Nothing is half-written: every file goes to a temporary name in the output's folder first, and
 * is renamed into place only once all are written (the glTF itself last); a failure removes them.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { type Document, Format, type JSONDocument, NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import {
  GltfBakeError,
  type GltfTextureReport,
  type TesseraTexturesOptions,
  tesseraTextures,
} from './gltf-textures';
import { TesseraTexturePrefix } from './texture-prefix-extension';

/** Options of {@link bakeGltfFile}: those of {@link tesseraTextures}. */
export type BakeGltfFileOptions = Omit<TesseraTexturesOptions, 'onTexture'>;

/** What {@link bakeGltfFile} wrote. */
export interface BakeGltfFileResult {
  /** Each texture, in document order. */
  readonly textures: readonly GltfTextureReport[];
  /** Every file written (the glTF first, then buffers and textures), absolute or as given. */
  readonly files: readonly string[];
  /** Bytes of the glTF file, its buffers and textures before and after. */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** Extensions the input used that glTF-Transform does not know, so the output lacks them. */
  readonly droppedExtensions: readonly string[];
}

const GLB_MAGIC = 0x46546c67;
const GLB_CHUNK_JSON = 0x4e4f534a;
const GLB_CHUNK_BIN = 0x004e4942;

/**
 * Makes the glTF at `input` (.gltf or .glb) streamable by Tessera, written to `output` (.glb or
 * .gltf) with its textures as `.ktx2` files beside it.
 * @throws GltfBakeError (rejects): `invalid-option` (paths), `invalid-gltf`, `missing-image`,
 *   `unsupported-image` (also for an unknown extension the file requires), `image-decode-failed`,
 *   `encode-failed`, `missing-dependency`, `write-failed`; no output file is left behind.
 */
export async function bakeGltfFile(
  input: string,
  output: string,
  options: BakeGltfFileOptions = {},
): Promise<BakeGltfFileResult> {
  const inputKind = extname(input).toLowerCase();
  const outputKind = extname(output).toLowerCase();
  if (inputKind !== '.gltf' && inputKind !== '.glb') {
    throw new GltfBakeError('invalid-option', `${input}: not a .gltf or .glb file`, null);
  }
  if (outputKind !== '.gltf' && outputKind !== '.glb') {
    throw new GltfBakeError('invalid-option', `${output}: the output must end in .glb or .gltf`, null);
  }
  // Checked before minutes of encoding, not after.
  if (!existsSync(dirname(output))) {
    throw new GltfBakeError(
      'write-failed',
      `ENOENT: the output folder ${dirname(output)} does not exist`,
      null,
    );
  }
  let inputBytes: Uint8Array;
  try {
    inputBytes = await readFile(input);
  } catch (error) {
    throw new GltfBakeError('invalid-gltf', `${input}: ${(error as Error).message}`, null, { cause: error });
  }
  const json = parseGltfJson(input, inputBytes, inputKind === '.glb');
  const inputFolder = dirname(input);
  const bytesBefore = inputBytes.byteLength + externalBytes(json, inputFolder);
  const extensions = [...ALL_EXTENSIONS, TesseraTexturePrefix];
  const io = new NodeIO().registerExtensions(extensions);
  const known = new Set(extensions.map((extension) => extension.EXTENSION_NAME));
  const unknown = (json.extensionsUsed ?? []).filter((name) => !known.has(name));
  const unknownRequired = unknown.filter((name) => json.extensionsRequired?.includes(name));
  if (unknownRequired.length > 0) {
    throw new GltfBakeError(
      'unsupported-image',
      `${input} requires ${unknownRequired.join(', ')}, which tessera gltf cannot keep`,
      null,
    );
  }
  let document: Document;
  try {
    document = await io.read(input);
  } catch (error) {
    throw new GltfBakeError('invalid-gltf', `${input}: ${(error as Error).message}`, null, { cause: error });
  }
  const textures: GltfTextureReport[] = [];
  await document.transform(tesseraTextures({ ...options, onTexture: (report) => textures.push(report) }));

  const stem = basename(output, extname(output));
  const taken = new Set<string>();
  document
    .getRoot()
    .listTextures()
    .forEach((texture, index) => {
      const base = slug(
        texture.getName() || basename(texture.getURI(), extname(texture.getURI())) || `${index}`,
      );
      let uri = `${stem}-${base}`;
      for (let n = 2; taken.has(uri); n++) uri = `${stem}-${base}-${n}`;
      taken.add(uri);
      texture.setURI(
        `${uri}${texture.getMimeType() === 'image/ktx2' ? '.ktx2' : extensionOf(texture.getMimeType())}`,
      );
    });
  const buffers = document.getRoot().listBuffers();
  for (let index = 0; index < buffers.length; index++) {
    buffers[index].setURI(index === 0 ? `${stem}.bin` : `${stem}-${index}.bin`);
  }
  const written = await io.writeJSON(document, { format: Format.GLTF });

  const outputFolder = dirname(output);
  const files = new Map<string, Uint8Array>();
  if (outputKind === '.glb') {
    const firstBuffer = written.json.buffers?.[0];
    let binary: Uint8Array | null = null;
    if (firstBuffer?.uri !== undefined) {
      binary = written.resources[firstBuffer.uri];
      delete written.resources[firstBuffer.uri];
      delete firstBuffer.uri;
    }
    files.set(output, glbBytes(written.json, binary));
  } else {
    files.set(output, new TextEncoder().encode(JSON.stringify(written.json, null, 2)));
  }
  for (const [uri, bytes] of Object.entries(written.resources)) files.set(join(outputFolder, uri), bytes);
  await writeAllOrNothing(files);
  let bytesAfter = 0;
  for (const bytes of files.values()) bytesAfter += bytes.byteLength;
  return { textures, files: [...files.keys()], bytesBefore, bytesAfter, droppedExtensions: unknown };
}

/** The glTF JSON of a .gltf or .glb (for checks before glTF-Transform reads it). */
function parseGltfJson(path: string, bytes: Uint8Array, glb: boolean): JSONDocument['json'] {
  try {
    let text: Uint8Array = bytes;
    if (glb) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (bytes.byteLength < 20 || view.getUint32(0, true) !== GLB_MAGIC)
        throw new Error('not a GLB (bad magic)');
      if (view.getUint32(4, true) !== 2)
        throw new Error(`GLB version ${view.getUint32(4, true)} (expected 2)`);
      if (view.getUint32(8, true) > bytes.byteLength) throw new Error('GLB cut short');
      const jsonLength = view.getUint32(12, true);
      if (view.getUint32(16, true) !== GLB_CHUNK_JSON || 20 + jsonLength > bytes.byteLength) {
        throw new Error('GLB JSON chunk missing or cut short');
      }
      text = bytes.subarray(20, 20 + jsonLength);
    }
    const json = JSON.parse(new TextDecoder().decode(text)) as JSONDocument['json'];
    if (typeof json !== 'object' || json === null || typeof json.asset !== 'object') {
      throw new Error('no asset object');
    }
    return json;
  } catch (error) {
    throw new GltfBakeError('invalid-gltf', `${path}: ${(error as Error).message}`, null, { cause: error });
  }
}

/**
 * Bytes of the external images and buffers of `json`, relative to `folder`.
 * @throws GltfBakeError('missing-image') naming the texture whose image file is missing.
 */
function externalBytes(json: JSONDocument['json'], folder: string): number {
  let total = 0;
  const images = json.images ?? [];
  for (let i = 0; i < images.length; i++) {
    const uri = images[i].uri;
    if (uri === undefined || uri.startsWith('data:')) continue;
    const path = join(folder, decodeURIComponent(uri));
    if (!existsSync(path)) {
      const index = (json.textures ?? []).findIndex(
        (t) =>
          t.source === i ||
          Object.values((t.extensions ?? {}) as Record<string, { source?: number }>).some(
            (e) => e.source === i,
          ),
      );
      // glTF-Transform, like most writers, names the image rather than the texture.
      const texture = (index < 0 ? undefined : json.textures?.[index].name) ?? images[i].name ?? uri;
      throw new GltfBakeError('missing-image', `texture '${texture}': image file ${path} not found`, texture);
    }
    total += statSync(path).size;
  }
  for (const buffer of json.buffers ?? []) {
    if (buffer.uri === undefined || buffer.uri.startsWith('data:')) continue;
    const path = join(folder, decodeURIComponent(buffer.uri));
    if (!existsSync(path)) throw new GltfBakeError('invalid-gltf', `buffer file ${path} not found`, null);
    total += statSync(path).size;
  }
  return total;
}

/** A GLB of `json` and, when given, `binary` as its BIN chunk (buffer 0). */
function glbBytes(json: JSONDocument['json'], binary: Uint8Array | null): Uint8Array {
  const jsonText = new TextEncoder().encode(JSON.stringify(json));
  const jsonPadded = (jsonText.byteLength + 3) & ~3;
  const binPadded = binary === null ? 0 : (binary.byteLength + 3) & ~3;
  const total = 12 + 8 + jsonPadded + (binary === null ? 0 : 8 + binPadded);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonPadded, true);
  view.setUint32(16, GLB_CHUNK_JSON, true);
  out.set(jsonText, 20);
  // The JSON chunk is padded with spaces, the BIN chunk with zeros (glTF 2.0, GLB).
  out.fill(0x20, 20 + jsonText.byteLength, 20 + jsonPadded);
  if (binary !== null) {
    const at = 20 + jsonPadded;
    view.setUint32(at, binPadded, true);
    view.setUint32(at + 4, GLB_CHUNK_BIN, true);
    out.set(binary, at + 8);
  }
  return out;
}

/**
 * Writes every file under a temporary name, then renames them into place, the first (the glTF)
 * last, so a reader never finds a glTF whose textures are missing; on failure, removes them all.
 */
async function writeAllOrNothing(files: Map<string, Uint8Array>): Promise<void> {
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const temporary: string[] = [];
  try {
    for (const [path, bytes] of files) {
      temporary.push(path + suffix);
      await writeFile(path + suffix, bytes);
    }
    const paths = [...files.keys()];
    for (const path of [...paths.slice(1), paths[0]]) await rename(path + suffix, path);
  } catch (error) {
    await Promise.all(temporary.map((path) => rm(path, { force: true })));
    throw new GltfBakeError('write-failed', (error as Error).message, null, { cause: error });
  }
}

function slug(name: string): string {
  return (
    name
      .replace(/\.[a-z0-9]+$/i, '')
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 64) || 'texture'
  );
}

function extensionOf(mimeType: string): string {
  return mimeType === 'image/jpeg' ? '.jpg' : mimeType === 'image/webp' ? '.webp' : '.png';
}
