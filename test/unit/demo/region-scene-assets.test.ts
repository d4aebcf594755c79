/**
 * The committed region scenes (assets/props/<region>.glb): one node per prop surface, each
 * material's base colour a `TESSERA_texture_ktx2` texture (the atlases are rgba8 KTX2, not the Basis
 * payloads `KHR_texture_basisu` promises) whose URI is the region's KTX2 atlas beside
 * the file, geometry only (small on disk); and `npm run bake:region-scenes` remakes them
 * byte-identical.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { propSceneFile, propTextureName } from '../../../demo/props/prop-texture-files';
import { PROP_SURFACES } from '../../../demo/props/prop-textures';
import { REGION_NAMES } from '../../../demo/regions';
import { TESSERA_TEXTURE_KTX2 } from '../../../src/three/gltf/gltf-texture-sources';

const assets = resolve(import.meta.dirname, '../../../assets');

interface GltfJson {
  extensionsRequired?: string[];
  nodes: { name: string; mesh: number }[];
  materials: { name: string; pbrMetallicRoughness: { baseColorTexture: { index: number } } }[];
  meshes: { primitives: { material: number }[] }[];
  textures: { extensions: { TESSERA_texture_ktx2: { source: number } } }[];
  images: { name: string; uri: string; mimeType: string }[];
}

/** The JSON chunk of a GLB (after checking its header). */
function glbJson(bytes: Buffer): GltfJson {
  expect(bytes.readUInt32LE(0)).toBe(0x46546c67);
  expect(bytes.readUInt32LE(8)).toBe(bytes.length);
  const length = bytes.readUInt32LE(12);
  expect(bytes.readUInt32LE(16)).toBe(0x4e4f534a);
  return JSON.parse(bytes.subarray(20, 20 + length).toString('utf8')) as GltfJson;
}

describe('region scenes', () => {
  it.each(REGION_NAMES)('%s.glb holds the five surfaces, each textured by its KTX2 by URI', (region) => {
    const file = resolve(assets, propSceneFile(region));
    const bytes = readFileSync(file);
    expect(bytes.length).toBeLessThan(64 * 1024);
    const json = glbJson(bytes);
    expect(json.extensionsRequired).toEqual([TESSERA_TEXTURE_KTX2]);
    expect(json.nodes.map((n) => n.name)).toEqual([...PROP_SURFACES]);
    for (const node of json.nodes) {
      const material = json.materials[json.meshes[node.mesh].primitives[0].material];
      const texture = json.textures[material.pbrMetallicRoughness.baseColorTexture.index];
      const image = json.images[texture.extensions.TESSERA_texture_ktx2.source];
      expect(image.name).toBe(propTextureName(region, node.name as (typeof PROP_SURFACES)[number]));
      expect(image.mimeType).toBe('image/ktx2');
      expect(image.uri).toBe(`${region}-${node.name}.ktx2`);
      expect(existsSync(resolve(dirname(file), image.uri))).toBe(true);
    }
  });

  it('are remade byte-identical by the bake script', () => {
    const out = mkdtempSync(resolve(tmpdir(), 'region-scenes-'));
    execFileSync('npx', ['tsx', 'demo/props/bake-region-scenes.ts', out], {
      cwd: resolve(import.meta.dirname, '../../..'),
      stdio: 'pipe',
    });
    for (const region of REGION_NAMES) {
      expect(readFileSync(resolve(out, propSceneFile(region)))).toEqual(
        readFileSync(resolve(assets, propSceneFile(region))),
      );
    }
  }, 60_000);
});
