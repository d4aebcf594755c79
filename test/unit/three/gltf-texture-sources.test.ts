import type { GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { gltfTextureImage, srgbTextureIndices } from '../../../src/three/gltf/gltf-texture-sources';

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
  samplers: [{ wrapS: 33071, wrapT: 33648 }],
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
      wrapS: 33071,
      wrapT: 33648,
    });
    expect(gltfTextureImage(parser(json), 1)).toMatchObject({
      url: null,
      bufferView: 3,
      mimeType: 'image/webp',
      name: 'moss',
    });
    // No mimeType: from the URI's extension; the texture's name wins; glTF's default wrap is repeat.
    expect(gltfTextureImage(parser(json), 2)).toMatchObject({
      url: 'https://cdn.example/scenes/textures/bark.jpg',
      mimeType: 'image/jpeg',
      name: 'bark',
      wrapS: 10497,
    });
    expect(gltfTextureImage(parser(json), 9)).toBeNull();
  });

  it('colour textures (base colour, emissive, sheen colour) are sRGB; normal and others linear', () => {
    expect([...srgbTextureIndices(parser(json))].sort()).toEqual([0, 1, 3]);
    expect(srgbTextureIndices(parser({})).size).toBe(0);
  });
});
