import {
  ClampToEdgeWrapping,
  LinearFilter,
  LinearMipmapLinearFilter,
  MirroredRepeatWrapping,
  NearestFilter,
  NearestMipmapLinearFilter,
  RepeatWrapping,
} from 'three';
import type { GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import {
  gltfTextureImage,
  gltfTextureUses,
  TESSERA_TEXTURE_KTX2,
} from '../../../src/three/gltf/gltf-texture-sources';

/** The parser fields the plugin reads: its JSON and its base path. */
function parser(json: unknown, path = 'https://cdn.example/scenes/'): GLTFParser {
  return { json, options: { path } } as unknown as GLTFParser;
}

const json = {
  images: [
    { uri: 'rock.ktx2', mimeType: 'image/ktx2' },
    { uri: 'rock.png' },
    { bufferView: 3, mimeType: 'image/webp', name: 'moss' },
    { uri: 'textures/bark.jpg' },
  ],
  samplers: [{ wrapS: 33071, wrapT: 33648, magFilter: 9728, minFilter: 9986 }],
  textures: [
    { source: 1, extensions: { KHR_texture_basisu: { source: 0 } }, sampler: 0 },
    { extensions: { EXT_texture_webp: { source: 2 } } },
    { source: 3, name: 'bark' },
    { source: 1 },
  ],
  materials: [
    { pbrMetallicRoughness: { baseColorTexture: { index: 0 } }, normalTexture: { index: 2 } },
    {
      emissiveTexture: { index: 3 },
      extensions: { KHR_materials_sheen: { sheenColorTexture: { index: 1 } } },
    },
  ],
};

describe('glTF texture sources', () => {
  it('prefers the KHR_texture_basisu source over the fallback image, then EXT_texture_webp, then source', () => {
    const basisu = gltfTextureImage(parser(json), 0);
    expect(basisu).toMatchObject({
      url: 'https://cdn.example/scenes/rock.ktx2',
      bufferView: null,
      mimeType: 'image/ktx2',
      name: 'rock.ktx2',
      wrapS: ClampToEdgeWrapping,
      wrapT: MirroredRepeatWrapping,
      magFilter: NearestFilter,
      minFilter: NearestMipmapLinearFilter,
    });
    expect(gltfTextureImage(parser(json), 1)).toMatchObject({
      url: null,
      bufferView: 3,
      mimeType: 'image/webp',
      name: 'moss',
    });
    // No mimeType: from the URI's extension; the texture's name wins; no sampler: repeat, trilinear (as GLTFLoader).
    expect(gltfTextureImage(parser(json), 2)).toMatchObject({
      url: 'https://cdn.example/scenes/textures/bark.jpg',
      mimeType: 'image/jpeg',
      name: 'bark',
      wrapS: RepeatWrapping,
      magFilter: LinearFilter,
      minFilter: LinearMipmapLinearFilter,
    });
    expect(gltfTextureImage(parser(json), 9)).toBeNull();
  });

  it('reads a KTX2 image of any payload through TESSERA_texture_ktx2, not as a Basis promise', () => {
    const declared = {
      images: [{ uri: 'atlas.ktx2', mimeType: 'image/ktx2' }],
      textures: [{ extensions: { [TESSERA_TEXTURE_KTX2]: { source: 0 } } }],
    };
    expect(gltfTextureImage(parser(declared), 0)).toMatchObject({
      url: 'https://cdn.example/scenes/atlas.ktx2',
      mimeType: 'image/ktx2',
      basisu: false,
    });
    expect(gltfTextureImage(parser(json), 0)?.basisu).toBe(true);
  });

  it('reads TESSERA_texture_prefix on a KTX2 image with a URL of its own, and nowhere else', () => {
    const prefix = { bufferView: 4, byteLength: 5815, fileByteLength: 291308 };
    const withPrefix = {
      images: [
        { uri: 'rock.ktx2', mimeType: 'image/ktx2', extensions: { TESSERA_texture_prefix: prefix } },
        { bufferView: 2, mimeType: 'image/ktx2', extensions: { TESSERA_texture_prefix: prefix } },
        { uri: 'rock.png', extensions: { TESSERA_texture_prefix: prefix } },
      ],
      textures: [
        { extensions: { KHR_texture_basisu: { source: 0 } } },
        { extensions: { KHR_texture_basisu: { source: 1 } } },
        { source: 2 },
      ],
    };
    expect(gltfTextureImage(parser(withPrefix), 0)?.prefix).toEqual(prefix);
    // In the buffer already, or not a KTX2 file: nothing to hold.
    expect(gltfTextureImage(parser(withPrefix), 1)?.prefix).toBeNull();
    expect(gltfTextureImage(parser(withPrefix), 2)?.prefix).toBeNull();
    expect(gltfTextureImage(parser(json), 0)?.prefix).toBeNull();
  });

  it('colour textures (base colour, emissive, sheen colour) are sRGB; normal and others linear', () => {
    const uses = gltfTextureUses(parser(json));
    const srgb = [...uses].filter(([, list]) => list.some((use) => use.srgb)).map(([index]) => index);
    expect(srgb.sort()).toEqual([0, 1, 3]);
    expect(uses.get(2)).toEqual([{ srgb: false, channel: 0, offset: [0, 0], repeat: [1, 1], rotation: 0 }]);
    expect(gltfTextureUses(parser({})).size).toBe(0);
  });

  it('each distinct use: texCoord, and KHR_texture_transform only when the file declares it', () => {
    const transform = { offset: [0.5, 0], scale: [10, 10], rotation: 0.25, texCoord: 1 };
    const materials = [
      {
        pbrMetallicRoughness: {
          baseColorTexture: { index: 0, extensions: { KHR_texture_transform: transform } },
        },
        normalTexture: { index: 0, texCoord: 1 },
        occlusionTexture: { index: 0, texCoord: 1 },
      },
      { pbrMetallicRoughness: { baseColorTexture: { index: 0 } } },
    ];
    const declared = gltfTextureUses(parser({ materials, extensionsUsed: ['KHR_texture_transform'] }));
    expect(declared.get(0)).toEqual([
      { srgb: true, channel: 1, offset: [0.5, 0], repeat: [10, 10], rotation: 0.25 },
      { srgb: false, channel: 1, offset: [0, 0], repeat: [1, 1], rotation: 0 },
      { srgb: true, channel: 0, offset: [0, 0], repeat: [1, 1], rotation: 0 },
    ]);
    // Undeclared, GLTFLoader ignores the extension: the first and last uses are the same.
    expect(gltfTextureUses(parser({ materials })).get(0)).toHaveLength(2);
  });
});
