/**
 * Writes each region's prop scene, `assets/props/<region>.glb`: one node per prop part (trunk,
 * crown, rock, wall, roof, named after its surface), geometry only, each material taking its
 * region's KTX2 atlas (`<region>-<surface>.ktx2`, beside the .glb, baked by ./bake-prop-textures.ts)
 * by URI, declared with `TESSERA_texture_ktx2` (rgba8 KTX2 files, not the Basis Universal payloads
 * `KHR_texture_basisu` promises), so the textures stream from their files by HTTP Range.
 * The demo loads a region's .glb with three's GLTFLoader and Tessera's glTF plugin
 * (`demo/scenes/region-textures.ts`) and instances its parts over the region. Geometry of
 * {@link PROP_TEXTURE_SEED} (the rock's lumps; the demo's `?seed=` does not change it).
 * Deterministic. Run `npm run bake:region-scenes` (an argument: write under that folder instead of
 * assets/, for the test that checks a remake is byte-identical).
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Document } from '@gltf-transform/core';
import { KHRTextureBasisu } from '@gltf-transform/extensions';
import type { BufferGeometry } from 'three';
import { REGIONS } from '../regions';
import { geometryAccessors, ktx2TexturedPrimitive, packGlbWithImageUris } from './glb-container';
import { createPropGeometries } from './prop-geometries';
import { PROP_TEXTURE_SEED, propSceneFile, propTextureFile, propTextureName } from './prop-texture-files';
import type { PropSurface } from './prop-textures';

async function main(): Promise<void> {
  const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, '../../assets'));
  for (const region of REGIONS) {
    const parts = createPropGeometries(region, PROP_TEXTURE_SEED);
    const bySurface: [PropSurface, BufferGeometry][] = [
      ['leaves', parts.crown],
      ['bark', parts.trunk],
      ['rock', parts.rock],
      ['wall', parts.wall],
      ['roof', parts.roof],
    ];
    const doc = new Document();
    doc.createExtension(KHRTextureBasisu).setRequired(true);
    const buffer = doc.createBuffer();
    const scene = doc.createScene(`props:${region.name}`);
    for (const [surface, geometry] of bySurface) {
      const name = propTextureName(region.name, surface);
      const primitive = ktx2TexturedPrimitive(doc, name, geometryAccessors(doc, buffer, geometry));
      scene.addChild(doc.createNode(surface).setMesh(doc.createMesh(surface).addPrimitive(primitive)));
    }
    const bytes = await packGlbWithImageUris(doc, (image) => {
      const surface = image.split(':')[2] as PropSurface;
      return propTextureFile(region.name, surface).replace(/^props\//, '');
    });
    const out = resolve(root, propSceneFile(region.name));
    mkdirSync(resolve(out, '..'), { recursive: true });
    writeFileSync(out, bytes);
    console.log(`wrote ${out} (${bytes.length} bytes)`);
  }
}

await main();
