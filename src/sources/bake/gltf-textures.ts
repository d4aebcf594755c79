/**
 * `tesseraTextures()`: a glTF-Transform transform that turns every PNG, JPEG and WebP texture of a
 * document into a KTX2 (`KHR_texture_basisu`) laid out for Tessera's HTTP Range streaming
 * (`ktx2-texture-encoder.ts`). Only each texture's image and MIME type change: samplers,
 * `texCoord`, `KHR_texture_transform`, alpha modes and every other extension live on the texture
 * infos and materials, which are left as they are. Node only (sharp decodes the images).
 */

import type { Document, Texture, Transform } from '@gltf-transform/core';
import { KHRTextureBasisu } from '@gltf-transform/extensions';
import { TesseraConfigError } from '../../core/errors';
import { parseKtx2Layout } from '../mips/ktx2-layout';
import { decodeKtx2Texture } from './ktx2-texture-decoder';
import {
  encodeKtx2Texture,
  type Ktx2TextureEncodeOptions,
  type TextureContent,
} from './ktx2-texture-encoder';
import { ktx2PrefixBytesOf, TesseraTexturePrefix } from './texture-prefix-extension';

/** Codes of {@link GltfBakeError}: what was wrong with the glTF or one of its textures. */
export type GltfBakeErrorCode =
  /** The file is not a glTF or GLB glTF-Transform can read (a broken GLB, bad JSON, a missing buffer). */
  | 'invalid-gltf'
  /** A texture's image file is missing, or the image has no bytes. */
  | 'missing-image'
  /** A texture's image type is not PNG, JPEG, WebP or KTX2, or an extension the file requires is unknown. */
  | 'unsupported-image'
  /** The image bytes do not decode as their type says. */
  | 'image-decode-failed'
  /** The KTX2 encoder refused the image (for instance ETC1S over its 12 Mi texel cap). */
  | 'encode-failed'
  /** A bad option or path (unknown colour codec, an output that is not .glb or .gltf). */
  | 'invalid-option'
  /** Re-encoding a KTX2 texture needs `three` (its Basis transcoder), which is not installed. */
  | 'missing-dependency'
  /** An output file could not be written (a missing folder, no permission, a full disk); nothing was left. */
  | 'write-failed';

/** A glTF could not be made streamable; `texture` names the texture at fault, when one is. */
export class GltfBakeError extends Error {
  /** Why; stable across versions. */
  readonly code: GltfBakeErrorCode;
  /** The texture at fault (its name, else its URI, else `texture <index>`), or null for the whole file. */
  readonly texture: string | null;

  constructor(
    code: GltfBakeErrorCode,
    message: string,
    texture: string | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GltfBakeError';
    this.code = code;
    this.texture = texture;
  }
}

/** Options of {@link tesseraTextures}. */
export interface TesseraTexturesOptions {
  /**
   * Codec of colour textures (base colour, emissive, sheen and specular colour, spec-gloss
   * diffuse): `uastc` (default; UASTC + Zstandard, near-lossless) or `etc1s` (several times
   * smaller, visibly lossy). Normal maps and data textures are always UASTC + Zstandard.
   */
  color?: 'uastc' | 'etc1s';
  /**
   * Re-encode textures that are KTX2 already (rgba8, or Basis Universal UASTC or ETC1S: decoded
   * with three's Basis transcoder, so `three` must be installed). Default false: they are kept
   * byte for byte.
   */
  recompressKtx2?: boolean;
  /** UASTC Zstandard level 1..22 (default 18). */
  zstdLevel?: number;
  /** UASTC rate-distortion lambda 0..10 (default 0, off). */
  rdoLambda?: number;
  /** UASTC effort 0..4 (default 1). */
  uastcEffort?: number;
  /** ETC1S quality 1..255 (default 128). */
  etc1sQuality?: number;
  /**
   * Declare `TESSERA_texture_prefix` ({@link TesseraTexturePrefix}): when the document is written as
   * a `.gltf` with each texture a `.ktx2` file of its own (as `tessera gltf` does), the first bytes
   * of every KTX2 file (its metadata and its levels of at most 64 texels on an edge, a few KiB) also
   * go into the glTF's buffer, so Tessera's glTF plugin renders every texture's coarse levels with no
   * request of its own and reads only finer levels from the `.ktx2` files. Default true.
   */
  prefix?: boolean;
  /** Called once per texture, in document order, after it is encoded or kept. */
  onTexture?: (report: GltfTextureReport) => void;
}

/** What {@link tesseraTextures} did with one texture. */
export interface GltfTextureReport {
  /** The texture's name, else its URI, else `texture <index>`. */
  readonly name: string;
  /** `encoded` to KTX2, or `kept` (already KTX2). */
  readonly action: 'encoded' | 'kept';
  /** What the texels were taken to be, from the material slots that use the texture. */
  readonly content: TextureContent;
  /** `uastc` or `etc1s` (encoded), or `ktx2` (kept). */
  readonly codec: 'uastc' | 'etc1s' | 'ktx2';
  /** MIME type of the image before. */
  readonly mimeTypeBefore: string;
  /** Image bytes before and after. */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /**
   * Bytes of the KTX2 file's start (metadata and levels of at most 64 texels on an edge) that
   * `TESSERA_texture_prefix` puts in the glTF's buffer when the texture is written as a file of its
   * own; 0 without the option {@link TesseraTexturesOptions.prefix}, or for a kept file Tessera
   * cannot stream.
   */
  readonly prefixBytes: number;
  /** Level-0 size in texels (0 when kept). */
  readonly width: number;
  readonly height: number;
  /**
   * Why Tessera cannot stream a kept KTX2 (for instance a file without mips), as its reader says;
   * null when it can, and for every encoded texture.
   */
  readonly problem: string | null;
}

/** glTF textureInfo slots that hold sRGB colour (glTF 2.0 and the KHR material extensions). */
const COLOR_SLOTS: ReadonlySet<string> = new Set([
  'baseColorTexture',
  'emissiveTexture',
  'sheenColorTexture',
  'specularColorTexture',
  'diffuseTexture',
]);
/** Slots that hold tangent-space normal maps. */
const NORMAL_SLOTS: ReadonlySet<string> = new Set(['normalTexture', 'clearcoatNormalTexture']);

const DECODABLE: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp']);

/**
 * A glTF-Transform transform that encodes every PNG, JPEG and WebP texture as KTX2 for Tessera
 * (UASTC + Zstandard; colour optionally ETC1S), with every level down to 1x1, coarsest first, and
 * declares `KHR_texture_basisu` (required) and `TESSERA_texture_prefix` (optional; register
 * {@link TesseraTexturePrefix} on the I/O that writes the document, see the option `prefix`). Textures already KTX2 are kept, unless `recompressKtx2`. Use it in
 * `document.transform(tesseraTextures())` or `tessera gltf`.
 * @throws GltfBakeError (rejects) naming the texture: `missing-image`, `unsupported-image`,
 *   `image-decode-failed`, `encode-failed`, `missing-dependency` (`recompressKtx2` without `three`);
 *   the document is then partly converted, so discard it.
 */
export function tesseraTextures(options: TesseraTexturesOptions = {}): Transform {
  const color = options.color ?? 'uastc';
  if (color !== 'uastc' && color !== 'etc1s') {
    throw new GltfBakeError('invalid-option', `colour codec '${color as string}' (uastc or etc1s)`, null);
  }
  const prefix = options.prefix ?? true;
  const transform: Transform = async (document: Document) => {
    const textures = document.getRoot().listTextures();
    let encodedAny = false;
    for (let index = 0; index < textures.length; index++) {
      const texture = textures[index];
      const name = texture.getName() || texture.getURI() || `texture ${index}`;
      const image = texture.getImage();
      const mimeType = texture.getMimeType();
      const content = textureContent(document, texture);
      if (image === null || image.byteLength === 0) {
        throw new GltfBakeError('missing-image', `texture '${name}' has no image bytes`, name);
      }
      if (mimeType === 'image/ktx2' && options.recompressKtx2 !== true) {
        options.onTexture?.({
          name,
          action: 'kept',
          content,
          codec: 'ktx2',
          mimeTypeBefore: mimeType,
          bytesBefore: image.byteLength,
          bytesAfter: image.byteLength,
          prefixBytes: prefix ? ktx2PrefixBytesOf(image) : 0,
          width: 0,
          height: 0,
          problem: ktx2Problem(image),
        });
        continue;
      }
      if (!DECODABLE.has(mimeType) && mimeType !== 'image/ktx2') {
        throw new GltfBakeError(
          'unsupported-image',
          `texture '${name}' is ${mimeType || 'of no known type'}; tessera gltf reads PNG, JPEG, WebP and KTX2`,
          name,
        );
      }
      const { rgba, width, height } =
        mimeType === 'image/ktx2' ? await decodeKtx2(image, name) : await decodeImage(image, name);
      const codec = content === 'color' ? color : 'uastc';
      const encodeOptions: Ktx2TextureEncodeOptions = {
        content,
        codec,
        zstdLevel: options.zstdLevel,
        rdoLambda: options.rdoLambda,
        uastcEffort: options.uastcEffort,
        etc1sQuality: options.etc1sQuality,
      };
      let ktx2: Uint8Array;
      try {
        ktx2 = await encodeKtx2Texture(rgba, width, height, encodeOptions);
      } catch (error) {
        throw new GltfBakeError('encode-failed', `texture '${name}': ${(error as Error).message}`, name, {
          cause: error,
        });
      }
      texture.setImage(ktx2).setMimeType('image/ktx2');
      const uri = texture.getURI();
      if (uri !== '') texture.setURI(uri.replace(/\.(png|jpe?g|webp)$/i, '') + '.ktx2');
      encodedAny = true;
      options.onTexture?.({
        name,
        action: 'encoded',
        content,
        codec,
        mimeTypeBefore: mimeType,
        bytesBefore: image.byteLength,
        bytesAfter: ktx2.byteLength,
        prefixBytes: prefix ? ktx2PrefixBytesOf(ktx2) : 0,
        width,
        height,
        problem: null,
      });
    }
    if (encodedAny) document.createExtension(KHRTextureBasisu).setRequired(true);
    const root = document.getRoot();
    if (prefix && root.listTextures().some((t) => t.getMimeType() === 'image/ktx2')) {
      // Optional: three's own GLTFLoader, and any other, reads the .ktx2 files as before.
      document.createExtension(TesseraTexturePrefix).setRequired(false);
      if (root.listBuffers().length === 0) document.createBuffer();
    }
    // A WebP extension with no WebP left would still be listed (and maybe required) on write.
    if (!root.listTextures().some((t) => t.getMimeType() === 'image/webp')) {
      for (const extension of root.listExtensionsUsed()) {
        if (extension.extensionName === 'EXT_texture_webp') extension.dispose();
      }
    }
  };
  return transform;
}

/** Colour if any slot using `texture` is colour, else normal if any is a normal map, else data. */
export function textureContent(document: Document, texture: Texture): TextureContent {
  let normal = false;
  for (const edge of document.getGraph().listParentEdges(texture)) {
    const slot = edge.getName();
    if (COLOR_SLOTS.has(slot)) return 'color';
    if (NORMAL_SLOTS.has(slot)) normal = true;
  }
  return normal ? 'normal' : 'data';
}

/** Why Tessera's KTX2 reader refuses `bytes`, or null when it streams them. */
function ktx2Problem(bytes: Uint8Array): string | null {
  try {
    parseKtx2Layout(bytes, bytes.length);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

async function decodeKtx2(
  image: Uint8Array,
  name: string,
): Promise<{ rgba: Uint8Array; width: number; height: number }> {
  try {
    return await decodeKtx2Texture(image);
  } catch (error) {
    if (error instanceof TesseraConfigError && error.code === 'missing-dependency') {
      throw new GltfBakeError('missing-dependency', `texture '${name}': ${error.message}`, name, {
        cause: error,
      });
    }
    throw new GltfBakeError(
      'image-decode-failed',
      `texture '${name}': the KTX2 file does not decode (${(error as Error).message})`,
      name,
      { cause: error },
    );
  }
}

async function decodeImage(
  image: Uint8Array,
  name: string,
): Promise<{ rgba: Uint8Array; width: number; height: number }> {
  const { default: sharp } = await import('sharp');
  try {
    // 8 bits a channel, four channels, no colour management beyond an embedded profile to sRGB.
    const { data, info } = await sharp(image, { failOn: 'error', limitInputPixels: 16384 * 16384 })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new Error(`decoded to ${info.channels} channels`);
    return {
      rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
    };
  } catch (error) {
    throw new GltfBakeError(
      'image-decode-failed',
      `texture '${name}': the image does not decode (${(error as Error).message})`,
      name,
      { cause: error },
    );
  }
}
