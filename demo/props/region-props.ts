/**
 * The props of one region as instanced meshes (trunks, crowns, rocks, walls, roofs). Their
 * materials show a shared 1x1 placeholder until the region's streamed textures are attached; after
 * that Tessera's streaming system binds what is resident (its own placeholder once released).
 *
 * The streaming system sizes a texture's mips from the screen size of the meshes it is attached
 * to, but an InstancedMesh's geometry bounds one instance at the origin. So each surface also has a
 * "need proxy": a plain mesh with the same geometry and material, moved onto the instance nearest
 * the camera ({@link RegionProps.updateNeedProxies}); textures are attached to the proxies.
 */

import {
  type BufferGeometry,
  DataTexture,
  Group,
  InstancedMesh,
  Matrix4,
  Mesh,
  Quaternion,
  SRGBColorSpace,
  Vector3,
} from 'three';
import { MeshStandardNodeMaterial } from 'three/webgpu';
import type { RegionDefinition } from '../regions';
import type { HeightField } from '../world/height-field';
import { seededRandom } from '../world/seeded-random';
import { createPropGeometries } from './prop-geometries';
import type { PropSurface } from './prop-textures';

let placeholder: DataTexture | null = null;

/** The shared 1x1 grey texture bound while a region's textures are not resident. */
export function propPlaceholder(): DataTexture {
  if (placeholder) return placeholder;
  placeholder = new DataTexture(new Uint8Array([128, 128, 128, 255]), 1, 1);
  placeholder.name = 'demo:placeholder';
  placeholder.colorSpace = SRGBColorSpace;
  placeholder.needsUpdate = true;
  return placeholder;
}

/** A region's prop meshes. Add {@link RegionProps.group} to the scene. */
export class RegionProps {
  readonly group = new Group();
  private readonly materials = new Map<PropSurface, MeshStandardNodeMaterial>();
  private readonly geometries: BufferGeometry[] = [];
  private readonly proxies = new Map<PropSurface, Mesh>();
  /** Instance transforms per surface (column-major 4x4 each), to place the need proxy. */
  private readonly placements = new Map<PropSurface, Float32Array>();

  constructor(
    readonly region: RegionDefinition,
    heights: HeightField,
    seed: number,
  ) {
    this.group.name = `props:${region.name}`;
    const parts = createPropGeometries(region, seed);
    this.geometries.push(parts.trunk, parts.crown, parts.rock, parts.wall, parts.roof);
    for (const surface of ['leaves', 'bark', 'rock', 'wall', 'roof'] as const) {
      const material = new MeshStandardNodeMaterial({ map: propPlaceholder(), roughness: 0.9 });
      material.name = `demo:${region.name}:${surface}`;
      this.materials.set(surface, material);
    }
    const random = seededRandom(seed ^ (region.centre.x * 7 + region.centre.z * 13));
    const trees = this.place(heights, random, region.trees, region.radius, 0.7, 1.4);
    this.addInstances(parts.trunk, 'bark', trees);
    this.addInstances(parts.crown, 'leaves', trees);
    this.addInstances(parts.rock, 'rock', this.place(heights, random, region.rocks, region.radius, 0.5, 2.5));
    // Buildings cluster into a village near the centre.
    const buildings = this.place(heights, random, region.buildings, region.radius * 0.25, 0.9, 1.3);
    this.addInstances(parts.wall, 'wall', buildings);
    this.addInstances(parts.roof, 'roof', buildings);
  }

  /** The mesh whose screen size stands for `surface`'s need (attach the surface's texture to it). */
  needProxy(surface: PropSurface): Mesh {
    return this.proxies.get(surface)!;
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

  /** Frees geometries and materials (textures belong to whoever loaded them). */
  dispose(): void {
    for (const geometry of this.geometries) geometry.dispose();
    for (const material of this.materials.values()) material.dispose();
    this.group.clear();
  }

  private addInstances(geometry: BufferGeometry, surface: PropSurface, matrices: Matrix4[]): void {
    const mesh = new InstancedMesh(geometry, this.materials.get(surface)!, matrices.length);
    mesh.name = `${this.group.name}:${surface}`;
    for (let i = 0; i < matrices.length; i++) mesh.setMatrixAt(i, matrices[i]);
    mesh.instanceMatrix.needsUpdate = true;
    mesh.computeBoundingSphere();
    this.group.add(mesh);
    // Same geometry and material at the nearest instance: drawn exactly over it (same depth).
    const proxy = new Mesh(geometry, this.materials.get(surface)!);
    proxy.name = `${this.group.name}:${surface}:need-proxy`;
    proxy.matrixAutoUpdate = false;
    if (matrices.length > 0) proxy.matrix.copy(matrices[0]);
    else proxy.visible = false;
    this.proxies.set(surface, proxy);
    const placements = new Float32Array(matrices.length * 16);
    for (let i = 0; i < matrices.length; i++) matrices[i].toArray(placements, i * 16);
    this.placements.set(surface, placements);
    this.group.add(proxy);
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
