/** Simple generated prop meshes: tree trunks and crowns, rocks, buildings and roofs. */

import {
  BoxGeometry,
  type BufferGeometry,
  CapsuleGeometry,
  ConeGeometry,
  CylinderGeometry,
  IcosahedronGeometry,
} from 'three';
import type { RegionDefinition } from '../regions';
import { seededRandom } from '../world/seeded-random';
import { motifsAcross } from './prop-textures';

/** The geometry of each prop part, placed so y = 0 is the ground. */
export interface PropGeometries {
  trunk: BufferGeometry;
  crown: BufferGeometry;
  rock: BufferGeometry;
  wall: BufferGeometry;
  roof: BufferGeometry;
}

function scaleUv(geometry: BufferGeometry, su: number, sv: number): BufferGeometry {
  const uv = geometry.getAttribute('uv');
  for (let i = 0; i < uv.count; i++) uv.setXY(i, uv.getX(i) * su, uv.getY(i) * sv);
  return geometry;
}

/** A lumpy rock: an icosphere with each vertex pushed in or out by a seeded amount. */
function rockGeometry(seed: number): BufferGeometry {
  const geometry = new IcosahedronGeometry(1.6, 2);
  const position = geometry.getAttribute('position');
  const random = seededRandom(seed);
  // Displace by direction so the duplicated (non-indexed) corners of adjacent faces move together.
  const bumps = Array.from({ length: 12 }, () => ({
    x: random() * 2 - 1,
    y: random() * 2 - 1,
    z: random() * 2 - 1,
    a: random() * 0.5,
  }));
  for (let i = 0; i < position.count; i++) {
    const x = position.getX(i);
    const y = position.getY(i);
    const z = position.getZ(i);
    let k = 1;
    for (const b of bumps) k += b.a * Math.max(0, (x * b.x + y * b.y + z * b.z) / 1.6) ** 3;
    position.setXYZ(i, x * k, Math.max(-0.4, y * k * 0.7) + 0.4, z * k);
  }
  geometry.computeVertexNormals();
  return geometry;
}

/** Builds the prop parts for `region`'s tree shape. */
export function createPropGeometries(region: RegionDefinition, seed: number): PropGeometries {
  const trunk = new CylinderGeometry(0.25, 0.4, 4, 7).translate(0, 2, 0);
  let crown: BufferGeometry;
  if (region.treeShape === 'broadleaf')
    crown = new IcosahedronGeometry(2.6, 1).scale(1, 1.2, 1).translate(0, 5.5, 0);
  else if (region.treeShape === 'pine') crown = new ConeGeometry(2.2, 8, 9).translate(0, 6.5, 0);
  else crown = new CapsuleGeometry(0.55, 4.5, 4, 10).translate(0, 3, 0);
  // UV repeats in motifs; each texture holds motifsAcross() of them per side.
  const leaves = 1 / motifsAcross('leaves');
  const bark = 1 / motifsAcross('bark');
  const wallScale = 1 / motifsAcross('wall');
  const roofScale = 1 / motifsAcross('roof');
  const rockScale = 1 / motifsAcross('rock');
  scaleUv(crown, 3 * leaves, 3 * leaves);
  scaleUv(trunk, bark, 3 * bark);
  const wall = scaleUv(new BoxGeometry(8, 5, 10).translate(0, 2.5, 0), 3 * wallScale, 2 * wallScale);
  const roof = scaleUv(
    new ConeGeometry(7.2, 3.5, 4)
      .rotateY(Math.PI / 4)
      .scale(1, 1, 1.25)
      .translate(0, 6.75, 0),
    3 * roofScale,
    2 * roofScale,
  );
  return { trunk, crown, rock: scaleUv(rockGeometry(seed), 2 * rockScale, 2 * rockScale), wall, roof };
}
