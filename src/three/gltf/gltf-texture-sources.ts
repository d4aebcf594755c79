import { LoaderUtils } from 'three';
import type { GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { TileSourceError } from '../../core/errors';
import type { EncodedPyramidSource } from '../../core/streaming/mip-pyramid-source';
import type { ImagePyramidGenerator } from '../../sources/mips/image-pyramid-generator';
import { Ktx2Source } from '../../sources/mips/ktx2-source';

/** The glTF JSON fields read here (glTF 2.0 `textures`, `images`, `materials`). */
interface GltfJson {
  textures?: {
    source?: number;
    name?: string;
    sampler?: number;
    extensions?: Record<string, { source?: number }>;
  }[];
  images?: { uri?: string; bufferView?: number; mimeType?: string; name?: string }[];
  materials?: {
    pbrMetallicRoughness?: { baseColorTexture?: { index: number } };
    emissiveTexture?: { index: number };
    extensions?: Record<string, Record<string, { index: number } | undefined>>;
  }[];
  samplers?: { wrapS?: number; wrapT?: number }[];
}

/** Where a glTF texture's pixels come from, resolved against the glTF file. */
export interface GltfTextureImage {
  /** The image's URL (absolute or relative to the page), or null when it lies in a bufferView. */
  readonly url: string | null;
  readonly bufferView: number | null;
  /** `image/ktx2` for KHR_texture_basisu, else the image's MIME type (PNG, JPEG, WebP). */
  readonly mimeType: string;
  /** Texture, image or URI name (labels the GPU textures). */
  readonly name: string;
  /** glTF sampler wrap modes (WebGL enums; 10497 repeat by default). */
  readonly wrapS: number;
  readonly wrapT: number;
}

/** `KHR_texture_basisu` source of texture `index`, else its `EXT_texture_webp` source, else its `source`. */
export function gltfTextureImage(parser: GLTFParser, index: number): GltfTextureImage | null {
  const json = parser.json as GltfJson;
  const texture = json.textures?.[index];
  if (texture === undefined) return null;
  const basisu = texture.extensions?.KHR_texture_basisu?.source;
  const webp = texture.extensions?.EXT_texture_webp?.source;
  const sourceIndex = basisu ?? webp ?? texture.source;
  const image = sourceIndex === undefined ? undefined : json.images?.[sourceIndex];
  if (image === undefined) return null;
  const uri = image.uri;
  const mimeType = basisu !== undefined ? 'image/ktx2' : (image.mimeType ?? mimeOfUri(uri ?? ''));
  const sampler = texture.sampler === undefined ? undefined : json.samplers?.[texture.sampler];
  return {
    url: uri === undefined ? null : LoaderUtils.resolveURL(uri, parser.options.path),
    bufferView: image.bufferView ?? null,
    mimeType,
    name:
      texture.name ?? image.name ?? (uri !== undefined && !uri.startsWith('data:') ? uri : `texture${index}`),
    wrapS: sampler?.wrapS ?? 10497,
    wrapT: sampler?.wrapT ?? 10497,
  };
}

/**
 * Indices of the textures a material reads as colour (glTF says these are sRGB-encoded: base
 * colour, emissive, sheen colour, specular colour, diffuse of the spec-gloss extension); every
 * other texture (normal, occlusion, metallic-roughness, ...) is linear data.
 */
export function srgbTextureIndices(parser: GLTFParser): Set<number> {
  const json = parser.json as GltfJson;
  const srgb = new Set<number>();
  for (const material of json.materials ?? []) {
    const base = material.pbrMetallicRoughness?.baseColorTexture?.index;
    if (base !== undefined) srgb.add(base);
    if (material.emissiveTexture !== undefined) srgb.add(material.emissiveTexture.index);
    const ext = material.extensions ?? {};
    for (const [name, field] of [
      ['KHR_materials_sheen', 'sheenColorTexture'],
      ['KHR_materials_specular', 'specularColorTexture'],
      ['KHR_materials_pbrSpecularGlossiness', 'diffuseTexture'],
    ] as const) {
      const ref = ext[name]?.[field];
      if (ref !== undefined) srgb.add(ref.index);
    }
  }
  return srgb;
}

/**
 * Opens the mip source of a glTF texture: a KTX2 file by HTTP Range when it has its own URL (only
 * its metadata is read now; levels stream later), from memory when it lies in the (already
 * downloaded) binary buffer; a PNG/JPEG/WebP image is fetched once and its mips generated in the
 * image workers.
 * @throws TileSourceError (network, HTTP status, a bad or unsupported KTX2 file, an undecodable image).
 */
export async function openGltfTextureSource(
  parser: GLTFParser,
  image: GltfTextureImage,
  srgb: boolean,
  images: ImagePyramidGenerator,
  signal: AbortSignal,
): Promise<EncodedPyramidSource> {
  if (image.mimeType === 'image/ktx2') {
    if (image.url !== null && !image.url.startsWith('data:'))
      return Ktx2Source.fromUrl(image.url, { signal });
    return new Ktx2Source(await imageBytes(parser, image, signal));
  }
  const bytes = await imageBytes(parser, image, signal);
  return (await images.generate(bytes, image.mimeType, srgb, signal)).source;
}

async function imageBytes(
  parser: GLTFParser,
  image: GltfTextureImage,
  signal: AbortSignal,
): Promise<Uint8Array> {
  if (image.bufferView !== null) {
    const buffer = (await parser.getDependency('bufferView', image.bufferView)) as ArrayBuffer;
    // The parser keeps its buffer views: copy, so the image workers may take the bytes.
    return new Uint8Array(buffer.slice(0));
  }
  if (image.url === null)
    throw new TileSourceError('corrupt', `glTF image '${image.name}' has no uri or bufferView`, false);
  let response: Response;
  try {
    response = await fetch(image.url, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new TileSourceError('network', `${image.url}: ${String(error)}`, true, { cause: error });
  }
  if (!response.ok)
    throw new TileSourceError('http-status', `${image.url}: HTTP ${response.status}`, response.status >= 500);
  return new Uint8Array(await response.arrayBuffer());
}

function mimeOfUri(uri: string): string {
  const lower = uri.toLowerCase();
  if (lower.startsWith('data:')) return lower.slice(5, lower.indexOf(';'));
  if (lower.endsWith('.jpg') || lower.endsWith('.jpeg')) return 'image/jpeg';
  if (lower.endsWith('.webp')) return 'image/webp';
  if (lower.endsWith('.ktx2')) return 'image/ktx2';
  return 'image/png';
}
