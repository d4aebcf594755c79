/**
 * Writes `assets/examples/village.glb`, the streamed-textures example's glTF scene: three small
 * settlements (valley, desert, snowfield), each a hut (walls, roof), a tree (bark, leaves) and a
 * rock, whose fifteen materials take the demo's prop atlases `assets/props/<region>-<surface>.ktx2`
 * through `KHR_texture_basisu`, by URI (`../props/...`): the .glb holds only geometry, and the
 * KTX2 files stream by HTTP Range. (The prop files are zstd-supercompressed rgba8 KTX2, not
 * Basis: three's and Tessera's loaders read them, the glTF validator would object.)
 * Run with `npm run bake:examples` (deterministic).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Document } from '@gltf-transform/core';
import { KHRTextureBasisu } from '@gltf-transform/extensions';
import { BoxGeometry, ConeGeometry, CylinderGeometry, IcosahedronGeometry, SphereGeometry } from 'three';
import {
  geometryAccessors,
  ktx2TexturedPrimitive,
  packGlbWithImageUris,
} from '../../demo/props/glb-container';

const REGIONS = ['valley', 'desert', 'snowfield'] as const;
/** Each surface's shape and where it stands in a settlement (metres, y up). */
const PARTS = [
  { surface: 'wall', geometry: new BoxGeometry(1.6, 1.2, 1.6), at: [0, 0.6, 0] },
  { surface: 'roof', geometry: new ConeGeometry(1.3, 0.9, 4).rotateY(Math.PI / 4), at: [0, 1.65, 0] },
  { surface: 'bark', geometry: new CylinderGeometry(0.1, 0.14, 1.1, 12), at: [1.4, 0.55, 0.7] },
  { surface: 'leaves', geometry: new SphereGeometry(0.6, 24, 16), at: [1.4, 1.45, 0.7] },
  { surface: 'rock', geometry: new IcosahedronGeometry(0.45, 1), at: [-1.3, 0.3, 1.0] },
] as const;
/** Settlements' spacing along x, metres. */
const SPACING = 3.6;

const doc = new Document();
doc.createExtension(KHRTextureBasisu).setRequired(true);
const buffer = doc.createBuffer();

const scene = doc.createScene('village');
const shapes = PARTS.map((part) => geometryAccessors(doc, buffer, part.geometry));
REGIONS.forEach((region, r) => {
  const settlement = doc.createNode(region).setTranslation([(r - 1) * SPACING, 0, 0]);
  scene.addChild(settlement);
  PARTS.forEach((part, p) => {
    const name = `${region}-${part.surface}`;
    const primitive = ktx2TexturedPrimitive(doc, name, shapes[p]);
    const mesh = doc.createMesh(name).addPrimitive(primitive);
    settlement.addChild(
      doc
        .createNode(name)
        .setMesh(mesh)
        .setTranslation([...part.at]),
    );
  });
});

const out = resolve(import.meta.dirname, '../../assets/examples/village.glb');
mkdirSync(resolve(out, '..'), { recursive: true });
writeFileSync(out, await packGlbWithImageUris(doc, (image) => `../props/${image}.ktx2`));
console.log(`wrote ${out}`);
