/**
 * `TESSERA_texture_prefix` for glTF-Transform: on write, every KTX2 image written as a file of its
 * own gets the first bytes of that file (its metadata and its pinned levels, see
 * `ktx2CoarsePrefixBytes`) in a bufferView of the document's first buffer, declared on the image.
 * The bytes are taken from the image when the document is written, so they always match the
 * `.ktx2` files written beside it; on read they are dropped (the images hold them) and the
 * extension stays declared, so writing the document again writes them again. Node only.
 */

import {
  Extension,
  Format,
  PropertyType,
  type ReaderContext,
  type Texture,
  type WriterContext,
} from '@gltf-transform/core';
import {
  ktx2CoarsePrefixBytes,
  TESSERA_TEXTURE_PREFIX,
  type TexturePrefixJson,
} from '../mips/ktx2-coarse-prefix';
import { parseKtx2Layout } from '../mips/ktx2-layout';

/**
 * Bytes of a KTX2 file's start that `TESSERA_texture_prefix` carries for it (metadata and pinned
 * levels), or 0 when Tessera cannot stream the file (so it carries nothing).
 */
export function ktx2PrefixBytesOf(file: Uint8Array): number {
  try {
    return ktx2CoarsePrefixBytes(parseKtx2Layout(file, file.length));
  } catch {
    return 0;
  }
}

/**
 * The glTF-Transform extension `TESSERA_texture_prefix` (optional, never required: a loader that
 * does not know it reads each `.ktx2` file as usual). Declare it with
 * `document.createExtension(TesseraTexturePrefix)` (`tesseraTextures()` does) and register it on
 * the I/O (`new NodeIO().registerExtensions([...ALL_EXTENSIONS, TesseraTexturePrefix])`), or the
 * writer leaves it out. It carries prefixes only for a `.gltf` write (`io.write('x.gltf')`,
 * `writeJSON`), where images with a URI are files of their own; a `.glb` write embeds the images
 * whole, and the extension writes nothing.
 */
export class TesseraTexturePrefix extends Extension {
  static override EXTENSION_NAME = TESSERA_TEXTURE_PREFIX;
  override readonly extensionName = TESSERA_TEXTURE_PREFIX;
  /** @hidden */
  override readonly prewriteTypes = [PropertyType.BUFFER];
  /** Prefix bytes (padded to 4 bytes) and the file's length, by image, for the current write. */
  private written = new Map<Texture, { data: Uint8Array; byteLength: number; fileByteLength: number }>();

  /** @hidden */
  read(_context: ReaderContext): this {
    return this;
  }

  /** @hidden Queues each prefix as a bufferView of the first buffer. */
  override prewrite(context: WriterContext, _propertyType: PropertyType): this {
    this.written = new Map();
    const buffer = this.document.getRoot().listBuffers()[0];
    if (buffer === undefined || context.options.format === Format.GLB) return this;
    const views = context.otherBufferViews.get(buffer) ?? [];
    this.document
      .getRoot()
      .listTextures()
      .forEach((texture) => {
        const uri = texture.getURI();
        const image = texture.getImage();
        if (
          texture.getMimeType() !== 'image/ktx2' ||
          uri === '' ||
          uri.startsWith('data:') ||
          image === null
        ) {
          return;
        }
        const byteLength = ktx2PrefixBytesOf(image);
        if (byteLength === 0) return;
        // Zeros up to a multiple of 4, so the next bufferView starts aligned (glTF-Transform packs
        // these views back to back); the JSON's byteLength says where the file's bytes end.
        const data = new Uint8Array((byteLength + 3) & ~3);
        data.set(image.subarray(0, byteLength));
        views.push(data);
        this.written.set(texture, { data, byteLength, fileByteLength: image.byteLength });
      });
    if (views.length > 0) context.otherBufferViews.set(buffer, views);
    return this;
  }

  /** @hidden Declares each prefix on its image; drops the extension when none was written. */
  write(context: WriterContext): this {
    const json = context.jsonDoc.json;
    if (this.written.size === 0) {
      json.extensionsUsed = json.extensionsUsed?.filter((name) => name !== TESSERA_TEXTURE_PREFIX);
      return this;
    }
    for (const [texture, imageIndex] of context.imageIndexMap) {
      const written = this.written.get(texture);
      const imageDef = json.images?.[imageIndex];
      if (written === undefined || imageDef === undefined) continue;
      const prefix: TexturePrefixJson = {
        bufferView: context.otherBufferViewsIndexMap.get(written.data) as number,
        byteLength: written.byteLength,
        fileByteLength: written.fileByteLength,
      };
      imageDef.extensions = { ...imageDef.extensions, [TESSERA_TEXTURE_PREFIX]: prefix };
    }
    this.written = new Map();
    return this;
  }
}
