/**
 * The props of one region as instanced meshes (trunks, crowns, rocks, walls, roofs). Their shapes
 * and materials come from the region's glTF scene (`assets/props/<region>.glb`, loaded with
 * Tessera's glTF plugin by `scenes/region-textures.ts`), adopted with {@link RegionProps.adopt};
 * the placements are the demo's own (seeded, on the terrain), fixed at construction.
 *
 * The streaming system sizes a texture's mips from the screen size of the meshes it is attached
 * to, but an InstancedMesh's geometry bounds one instance at the origin. So the glTF scene's own
 * mesh of each surface, to which the plugin attached its texture, becomes that surface's "need
 * proxy": moved onto the instance nearest the camera ({@link RegionProps.updateNeedProxies}).
 */

import { Group, InstancedMesh, type Material, Matrix4, type Mesh, Quaternion, Vector3 } from 'three';
import type { RegionDefinition } from '../regions';
import type { HeightField } from '../world/height-field';
import { seededRandom } from '../world/seeded-random';
import { PROP_SURFACES, type PropSurface } from './prop-textures';

/** A region's prop meshes. Add {@link RegionProps.group} to the scene. */
export class RegionProps {
  readonly group = new Group();
  private readonly proxies = new Map<PropSurface, Mesh>();
  /** Instance transforms per surface (column-major 4x4 each), to place the need proxy. */
  private readonly placements = new Map<PropSurface, Float32Array>();
  private adopted: Mesh[] = [];

  constructor(
    readonly region: RegionDefinition,
    heights: HeightField,
    seed: number,
  ) {
    this.group.name = `props:${region.name}`;
    const random = seededRandom(seed ^ (region.centre.x * 7 + region.centre.z * 13));
    const trees = this.place(heights, random, region.trees, region.radius, 0.7, 1.4);
    this.placements.set('bark', placementArray(trees));
    this.placements.set('leaves', placementArray(trees));
    this.placements.set(
      'rock',
      placementArray(this.place(heights, random, region.rocks, region.radius, 0.5, 2.5)),
    );
    // Buildings cluster into a village near the centre.
    const buildings = this.place(heights, random, region.buildings, region.radius * 0.25, 0.9, 1.3);
    this.placements.set('wall', placementArray(buildings));
    this.placements.set('roof', placementArray(buildings));
  }

  /**
   * Takes the region's glTF meshes, one per surface (their textures already attached to them), as
   * the props' shapes, materials and need proxies, replacing (and freeing) any adopted before.
   * @throws Error when a surface has no mesh (a scene that is not the region's).
   */
  adopt(meshes: ReadonlyMap<PropSurface, Mesh>): void {
    for (const surface of PROP_SURFACES)
      if (!meshes.has(surface)) throw new Error(`${this.group.name}: the scene has no '${surface}' mesh`);
    this.dispose();
    for (const surface of PROP_SURFACES) {
      const proxy = meshes.get(surface)!;
      const m = this.placements.get(surface)!;
      const count = m.length / 16;
      const mesh = new InstancedMesh(proxy.geometry, proxy.material, count);
      mesh.name = `${this.group.name}:${surface}`;
      mesh.instanceMatrix.array.set(m);
      mesh.instanceMatrix.needsUpdate = true;
      mesh.computeBoundingSphere();
      this.group.add(mesh);
      // Same geometry and material at the nearest instance: drawn exactly over it (same depth).
      proxy.removeFromParent();
      proxy.name = `${this.group.name}:${surface}:need-proxy`;
      proxy.matrixAutoUpdate = false;
      if (count > 0) proxy.matrix.fromArray(m, 0);
      else proxy.visible = false;
      proxy.matrixWorldNeedsUpdate = true;
      this.proxies.set(surface, proxy);
      this.group.add(proxy);
      this.adopted.push(proxy);
    }
  }

  /** Moves every need proxy onto its surface's instance nearest to `eye` (world metres). */
  updateNeedProxies(eye: Vector3): void {
    for (const [surface, proxy] of this.proxies) {
      const m = this.placements.get(surface)!;
      let best = -1;
      let bestDistance = Number.POSITIVE_INFINITY;
      for (let i = 0; i < m.length; i += 16) {
        const d = (m[i + 12] - eye.x) ** 2 + (m[i + 13] - eye.y) ** 2 + (m[i + 14] - eye.z) ** 2;
        if (d < bestDistance) {
          bestDistance = d;
          best = i;
        }
      }
      if (best < 0) continue;
      proxy.matrix.fromArray(m, best);
      proxy.matrixWorldNeedsUpdate = true;
    }
  }

  /**
   * Frees the adopted geometries and materials (textures belong to the streaming system) and the
   * meshes themselves: three keeps a mesh's render objects, in every pass (Tessera's feedback pass
   * included), until the mesh's own `dispose()`.
   */
  dispose(): void {
    for (const mesh of this.adopted) {
      mesh.geometry.dispose();
      (mesh.material as Material).dispose();
    }
    for (const object of this.group.children) object.dispose();
    this.adopted = [];
    this.proxies.clear();
    this.group.clear();
  }

  /** Random placements on dry ground within `radius` of the centre, with yaw and scale. */
  private place(
    heights: HeightField,
    random: () => number,
    count: number,
    radius: number,
    minScale: number,
    maxScale: number,
  ): Matrix4[] {
    const out: Matrix4[] = [];
    const position = new Vector3();
    const rotation = new Quaternion();
    const scale = new Vector3();
    const up = new Vector3(0, 1, 0);
    for (let attempt = 0; out.length < count && attempt < count * 4; attempt++) {
      const angle = random() * Math.PI * 2;
      const r = Math.sqrt(random()) * radius;
      const x = this.region.centre.x + Math.cos(angle) * r;
      const z = this.region.centre.z + Math.sin(angle) * r;
      const y = heights.heightAt(x, z);
      if (y <= 0.2) continue; // water
      const s = minScale + random() * (maxScale - minScale);
      out.push(
        new Matrix4().compose(
          position.set(x, y - 0.2, z),
          rotation.setFromAxisAngle(up, random() * Math.PI * 2),
          scale.set(s, s, s),
        ),
      );
    }
    return out;
  }
}

/** Matrices as one column-major array, 16 floats each. */
function placementArray(matrices: readonly Matrix4[]): Float32Array {
  const out = new Float32Array(matrices.length * 16);
  for (let i = 0; i < matrices.length; i++) matrices[i].toArray(out, i * 16);
  return out;
}
