import {
  ClampToEdgeWrapping,
  LinearFilter,
  LinearMipmapLinearFilter,
  LinearMipmapNearestFilter,
  LoaderUtils,
  type MagnificationTextureFilter,
  type MinificationTextureFilter,
  MirroredRepeatWrapping,
  NearestFilter,
  NearestMipmapLinearFilter,
  NearestMipmapNearestFilter,
  RepeatWrapping,
  type Wrapping,
} from 'three';
import type { GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { TileSourceError } from '../../core/errors';
import type { EncodedPyramidSource } from '../../core/streaming/mip-pyramid-source';
import type { HttpClient } from '../../sources/io/http/http-client';
import type { ImagePyramidGenerator } from '../../sources/mips/image-pyramid-generator';
import { TESSERA_TEXTURE_PREFIX, type TexturePrefixJson } from '../../sources/mips/ktx2-coarse-prefix';
import { Ktx2Source } from '../../sources/mips/ktx2-source';

/** The glTF JSON fields read here (glTF 2.0 `textures`, `images`, `materials`). */
interface GltfJson {
  textures?: {
    source?: number;
    name?: string;
    sampler?: number;
    extensions?: Record<string, { source?: number }>;
  }[];
  images?: {
    uri?: string;
    bufferView?: number;
    mimeType?: string;
    name?: string;
    extensions?: Record<string, unknown>;
  }[];
  materials?: Record<string, unknown>[];
  samplers?: { wrapS?: number; wrapT?: number; magFilter?: number; minFilter?: number }[];
  extensionsUsed?: string[];
}

/** glTF's (WebGL's) filter enums to three's, as three's GLTFLoader maps them. */
const FILTERS: Record<number, MinificationTextureFilter> = {
  9728: NearestFilter,
  9729: LinearFilter,
  9984: NearestMipmapNearestFilter,
  9985: LinearMipmapNearestFilter,
  9986: NearestMipmapLinearFilter,
  9987: LinearMipmapLinearFilter,
};

/** glTF's (WebGL's) wrap enums to three's; glTF's default is repeat. */
function wrappingOf(gl: number | undefined): Wrapping {
  return gl === 33071 ? ClampToEdgeWrapping : gl === 33648 ? MirroredRepeatWrapping : RepeatWrapping;
}

/** Where a glTF texture's pixels come from, resolved against the glTF file. */
export interface GltfTextureImage {
  /** The image's URL (absolute or relative to the page), or null when it lies in a bufferView. */
  readonly url: string | null;
  readonly bufferView: number | null;
  /**
   * `image/ktx2` for `KHR_texture_basisu` and {@link TESSERA_TEXTURE_KTX2}, else the image's MIME
   * type (PNG, JPEG, WebP).
   */
  readonly mimeType: string;
  /** True when the texture names the image through `KHR_texture_basisu`, which promises a Basis Universal payload. */
  readonly basisu: boolean;
  /**
   * The image's `TESSERA_texture_prefix` (its file's first bytes in a bufferView), or null: only
   * for a KTX2 image with a URL of its own.
   */
  readonly prefix: TexturePrefixJson | null;
  /** Texture, image or URI name (labels the GPU textures). */
  readonly name: string;
  /** The glTF sampler's wrap modes and filters, as three's GLTFLoader maps them (repeat and trilinear by default). */
  readonly wrapS: Wrapping;
  readonly wrapT: Wrapping;
  readonly magFilter: MagnificationTextureFilter;
  readonly minFilter: MinificationTextureFilter;
}

/**
 * The glTF extension by which a texture names a KTX2 image of any payload (rgba8, BC, ETC2, ASTC,
 * ...): `"extensions": { "TESSERA_texture_ktx2": { "source": <image> } }`, listed in
 * `extensionsRequired`. `KHR_texture_basisu` promises Basis Universal (UASTC or ETC1S) payloads;
 * a KTX2 file of another payload is declared with this one, which Tessera's glTF plugin reads
 * ({@link registerGltfTextureStreaming}).
 */
export const TESSERA_TEXTURE_KTX2 = 'TESSERA_texture_ktx2';

/**
 * `KHR_texture_basisu` or {@link TESSERA_TEXTURE_KTX2} source of texture `index`, else its
 * `EXT_texture_webp` source, else its `source`.
 */
export function gltfTextureImage(parser: GLTFParser, index: number): GltfTextureImage | null {
  const json = parser.json as GltfJson;
  const texture = json.textures?.[index];
  if (texture === undefined) return null;
  const basisuSource = texture.extensions?.KHR_texture_basisu?.source;
  const ktx2Source = texture.extensions?.[TESSERA_TEXTURE_KTX2]?.source;
  const basisu = basisuSource ?? ktx2Source;
  const webp = texture.extensions?.EXT_texture_webp?.source;
  const sourceIndex = basisu ?? webp ?? texture.source;
  const image = sourceIndex === undefined ? undefined : json.images?.[sourceIndex];
  if (image === undefined) return null;
  const uri = image.uri;
  const mimeType = basisu !== undefined ? 'image/ktx2' : (image.mimeType ?? mimeOfUri(uri ?? ''));
  const sampler = texture.sampler === undefined ? undefined : json.samplers?.[texture.sampler];
  const prefix = image.extensions?.[TESSERA_TEXTURE_PREFIX] as TexturePrefixJson | undefined;
  const ownFile = uri !== undefined && !uri.startsWith('data:');
  return {
    url: uri === undefined ? null : LoaderUtils.resolveURL(uri, parser.options.path),
    bufferView: image.bufferView ?? null,
    mimeType,
    basisu: basisuSource !== undefined,
    prefix: mimeType === 'image/ktx2' && ownFile && prefix !== undefined ? prefix : null,
    name:
      texture.name ?? image.name ?? (uri !== undefined && !uri.startsWith('data:') ? uri : `texture${index}`),
    wrapS: wrappingOf(sampler?.wrapS),
    wrapT: wrappingOf(sampler?.wrapT),
    magFilter: (FILTERS[sampler?.magFilter ?? 0] ?? LinearFilter) as MagnificationTextureFilter,
    minFilter: FILTERS[sampler?.minFilter ?? 0] ?? LinearMipmapLinearFilter,
  };
}

/**
 * One way a material reads a glTF texture (a `textureInfo`): as colour or data, through which uv
 * set and uv transform. three's GLTFLoader gives each distinct use its own texture object.
 */
export interface GltfTextureUse {
  /**
   * Colour (sRGB-encoded, as glTF says of base colour, emissive, sheen colour, specular colour and
   * the spec-gloss diffuse) or linear data (normal, occlusion, metallic-roughness, ...).
   */
  readonly srgb: boolean;
  /** UV set: `KHR_texture_transform`'s `texCoord`, else the textureInfo's, else 0. */
  readonly channel: number;
  /** `KHR_texture_transform` offset, scale and rotation (radians); identity without it. */
  readonly offset: readonly [number, number];
  readonly repeat: readonly [number, number];
  readonly rotation: number;
}

/** Names of the textureInfo fields glTF defines as sRGB colour. */
const SRGB_SLOTS: ReadonlySet<string> = new Set([
  'baseColorTexture',
  'emissiveTexture',
  'sheenColorTexture',
  'specularColorTexture',
  'diffuseTexture',
]);

/**
 * A key equal for equal uses: a use read from the glTF JSON and the same use read back from the
 * fields GLTFLoader set on the texture it assigned give the same key (the same numbers).
 */
export function gltfUseKey(use: GltfTextureUse): string {
  return `${use.srgb ? 1 : 0}|${use.channel}|${use.offset[0]},${use.offset[1]}|${use.repeat[0]},${use.repeat[1]}|${use.rotation}`;
}

/**
 * Every distinct use of each texture by the glTF's materials, by texture index: each
 * `textureInfo` in a material (core fields and extensions alike: any `...Texture` object with an
 * `index`), with the uv transform GLTFLoader applies (only when the file declares
 * `KHR_texture_transform` in `extensionsUsed`, as GLTFLoader does).
 */
export function gltfTextureUses(parser: GLTFParser): Map<number, GltfTextureUse[]> {
  const json = parser.json as GltfJson;
  const transforms = json.extensionsUsed?.includes('KHR_texture_transform') === true;
  const uses = new Map<number, GltfTextureUse[]>();
  const add = (slot: string, info: Record<string, unknown>) => {
    const index = info.index as number;
    const transform = transforms
      ? ((info.extensions as Record<string, Record<string, unknown>> | undefined)?.KHR_texture_transform ??
        {})
      : {};
    const use: GltfTextureUse = {
      srgb: SRGB_SLOTS.has(slot),
      channel: (transform.texCoord as number | undefined) ?? (info.texCoord as number | undefined) ?? 0,
      offset: (transform.offset as [number, number] | undefined) ?? [0, 0],
      repeat: (transform.scale as [number, number] | undefined) ?? [1, 1],
      rotation: (transform.rotation as number | undefined) ?? 0,
    };
    const list = uses.get(index) ?? [];
    const key = gltfUseKey(use);
    if (!list.some((other) => gltfUseKey(other) === key)) list.push(use);
    uses.set(index, list);
  };
  const walk = (value: Record<string, unknown>) => {
    for (const [key, field] of Object.entries(value)) {
      if (field === null || typeof field !== 'object' || Array.isArray(field)) continue;
      const object = field as Record<string, unknown>;
      if (key.endsWith('Texture') && typeof object.index === 'number') add(key, object);
      else {
        walk(object);
      }
    }
  };
  for (const material of json.materials ?? []) walk(material);
  return uses;
}

/**
 * Opens the mip source of a glTF texture: a KTX2 file by HTTP Range when it has its own URL (only
 * its metadata is read now; levels stream later; with `TESSERA_texture_prefix`, the metadata and
 * the coarse levels come from the glTF's buffer, and nothing is read now), from memory when it lies
 * in the (already downloaded) binary buffer; a PNG/JPEG/WebP image is fetched once and its mips
 * generated in the image workers. Every request goes through `client` (retries of transient failures).
 * A prefix that does not match its file goes to `onPrefixMismatch`, and the file is read as without it.
 * @throws TileSourceError (network, HTTP status, a bad or unsupported KTX2 file, an undecodable image).
 */
export async function openGltfTextureSource(
  parser: GLTFParser,
  image: GltfTextureImage,
  srgb: boolean,
  images: ImagePyramidGenerator,
  client: HttpClient,
  signal: AbortSignal,
  onPrefixMismatch?: (error: TileSourceError) => void,
): Promise<EncodedPyramidSource> {
  if (image.mimeType === 'image/ktx2') {
    if (image.url !== null && !image.url.startsWith('data:')) {
      let prefix: { bytes: Uint8Array; fileBytes: number } | undefined;
      if (image.prefix !== null) {
        try {
          prefix = await heldPrefix(parser, image.prefix);
        } catch (error) {
          onPrefixMismatch?.(
            new TileSourceError(
              'prefix-mismatch',
              `${image.url}: ${TESSERA_TEXTURE_PREFIX} names no readable bufferView (${String(error)}); reading the file's own metadata`,
              false,
              { cause: error },
            ),
          );
        }
      }
      return Ktx2Source.open(image.url, { http: client, signal, prefix, onPrefixMismatch });
    }
    return new Ktx2Source(await imageBytes(parser, image, client, signal));
  }
  const bytes = await imageBytes(parser, image, client, signal);
  return (await images.generate(bytes, image.mimeType, srgb, signal)).source;
}

/**
 * The bytes a `TESSERA_texture_prefix` holds (a copy: the parser keeps its buffer views), and the
 * file length it states; a bufferView shorter than the stated bytes gives those it has, which the
 * KTX2 source then finds wanting and reports.
 */
async function heldPrefix(
  parser: GLTFParser,
  prefix: TexturePrefixJson,
): Promise<{ bytes: Uint8Array; fileBytes: number }> {
  if (!Number.isInteger(prefix.bufferView)) throw new Error(`bufferView ${String(prefix.bufferView)}`);
  const view = (await parser.getDependency('bufferView', prefix.bufferView)) as ArrayBuffer;
  const byteLength = Math.max(0, Math.min(view.byteLength, Number(prefix.byteLength) || 0));
  return { bytes: new Uint8Array(view.slice(0, byteLength)), fileBytes: Number(prefix.fileByteLength) };
}

async function imageBytes(
  parser: GLTFParser,
  image: GltfTextureImage,
  client: HttpClient,
  signal: AbortSignal,
): Promise<Uint8Array> {
  if (image.bufferView !== null) {
    const buffer = (await parser.getDependency('bufferView', image.bufferView)) as ArrayBuffer;
    // The parser keeps its buffer views: copy, so the image workers may take the bytes.
    return new Uint8Array(buffer.slice(0));
  }
  if (image.url === null) {
    throw new TileSourceError('corrupt', `glTF image '${image.name}' has no uri or bufferView`, false);
  }
  const bytes = await client.getBytes(image.url, signal);
  if (bytes === null) throw new TileSourceError('http-status', `${image.url}: not found`, false);
  return bytes;
}

function mimeOfUri(uri: string): string {
  const lower = uri.toLowerCase();
  if (lower.startsWith('data:')) return lower.slice(5, lower.indexOf(';'));
  if (lower.endsWith('.jpg') || lower.endsWith('.jpeg')) return 'image/jpeg';
  if (lower.endsWith('.webp')) return 'image/webp';
  if (lower.endsWith('.ktx2')) return 'image/ktx2';
  return 'image/png';
}
